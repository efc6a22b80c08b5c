"""ONNX ops expanded into the functions ONNX defines them by
(lighthouse.ingress.onnx.functions, through fold.expand_functions): the
defaults of their attributes given, an omitted input followed by others,
ops ONNX defines by no function left whole."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_graphs import model, op_types  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress.onnx import fold as _onnx_fold  # noqa: E402


@pytest.mark.parametrize("opset", [13, 18, 21])
def test_expanded_functions_keep_the_defaults_of_their_attributes(opset):
    """MeanVarianceNormalization's function reduces over its `axes`, left to
    their default [0, 2, 3] here; at opset 21 its function (of opset 18) is
    converted to the model's opset as it is inlined."""
    proto = onnx_ingress.load(
        model(
            [helper.make_node("MeanVarianceNormalization", ["x"], ["y"])],
            [("x", TensorProto.FLOAT, [2, 3, 4, 5])],
            [("y", TensorProto.FLOAT, [2, 3, 4, 5])],
            opset=opset,
        )
    )
    expanded = _onnx_fold.expand_functions(proto, {"MeanVarianceNormalization"})
    assert "MeanVarianceNormalization" not in op_types(expanded)
    assert [(o.domain, o.version) for o in expanded.opset_import] == [("", opset)]
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5)).astype(np.float32)
    expected = ReferenceEvaluator(proto).run(None, {"x": x})[0]
    np.testing.assert_allclose(
        ReferenceEvaluator(expanded).run(None, {"x": x})[0], expected, rtol=1e-5, atol=1e-6
    )


def test_attention_with_an_omitted_mask_and_past_keys():
    """An omitted input followed by others, which ONNX's inliner cannot expand
    from the op's schema."""
    shape, past = [1, 2, 3, 4], [1, 2, 2, 4]
    present = [1, 2, 5, 4]
    proto = model(
        [
            helper.make_node(
                "Attention",
                ["q", "k", "v", "", "past_key", "past_value"],
                ["y", "present_key", "present_value"],
            )
        ],
        [
            *((name, TensorProto.FLOAT, shape) for name in ("q", "k", "v")),
            ("past_key", TensorProto.FLOAT, past),
            ("past_value", TensorProto.FLOAT, past),
        ],
        [
            ("y", TensorProto.FLOAT, shape),
            ("present_key", TensorProto.FLOAT, present),
            ("present_value", TensorProto.FLOAT, present),
        ],
        opset=24,
    )
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in (shape, shape, shape, past, past)]
    names = [value.name for value in proto.graph.input]
    expected = ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))
    for actual, wanted in zip(lighthouse.compile_onnx(proto)(*inputs), expected):
        np.testing.assert_allclose(actual, wanted, rtol=1e-5, atol=1e-6)


def test_ops_without_functions_stay_whole():
    proto = onnx_ingress.load(
        model(
            [helper.make_node("CumSum", ["x", "axis"], ["y"])],
            [("x", TensorProto.FLOAT, [2, 3]), ("axis", TensorProto.INT64, [])],
            [("y", TensorProto.FLOAT, [2, 3])],
        )
    )
    # ONNX defines CumSum by no function, and knows no Frobnicate.
    assert _onnx_fold.expand_functions(proto, {"CumSum", "Frobnicate"}) is proto
