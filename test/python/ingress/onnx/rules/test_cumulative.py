"""CumProd as a Scan of running products (lighthouse.ingress.onnx.rules.
cumulative); where the rule cannot apply, the lowering error says why."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import check_compiled, model  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress import LoweringError  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


def test_a_lowering_error_names_each_rule_and_why_it_declined():
    # A dynamic size: the rule's Scan needs the shape of a row, and
    # torch-mlir converts no CumProd.
    node = helper.make_node("CumProd", ["x", "axis"], ["y"], name="product")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor("axis", TensorProto.INT64, [], [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    with pytest.raises(LoweringError) as caught:
        lighthouse.compile_onnx(model)
    message = str(caught.value)
    assert "ONNX rules for node 'product' (CumProd), declined:" in message
    assert "cumulative-product-as-scan (on a lowering error): its input's shape is not static" in (
        message
    )


@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumprod_of_a_constant_axis_matches_numpy(exclusive, reverse):
    node = helper.make_node(
        "CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse, name="product"
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor("axis", TensorProto.INT64, [], [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    x = np.random.default_rng(0).uniform(0.5, 1.5, (3, 4)).astype(np.float32)
    source = x[:, ::-1] if reverse else x
    products = np.cumprod(source, axis=1)
    if exclusive:
        products = np.concatenate([np.ones((3, 1), np.float32), products[:, :-1]], axis=1)
    expected = products[:, ::-1] if reverse else products
    np.testing.assert_allclose(lighthouse.compile_onnx(model)(x), expected, rtol=1e-6)


@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 1)])
def test_cumprod_is_expanded_into_lighthouses_function_of_it(exclusive, reverse):
    """ONNX defines CumProd by no function, and torch-mlir converts it not:
    lighthouse's function of it is a Scan along the axis (then a Loop)."""
    proto = model(
        [helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)],
        [("x", TensorProto.FLOAT, [3, 4])],
        [("y", TensorProto.FLOAT, [3, 4])],
        opset=26,
        initializers=[numpy_helper.from_array(np.array(1, np.int64), "axis")],
    )
    with ir.Context():
        raw, _ = onnx_ingress.import_and_lower(proto)
    assert '"onnx.CumProd"' not in str(raw) and '"onnx.Loop"' in str(raw)
    x = np.random.default_rng(10).uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    check_compiled(proto, x)
