"""lighthouse.ingress.onnx.import_and_lower: a model of an opset before the
forms torch-mlir converts, converted to a later opset once it fails to
lower."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_compiled, model  # noqa: E402

from lighthouse import ir  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


def test_a_model_of_an_early_opset_is_converted_when_it_fails_to_lower():
    """torch-mlir converts ReduceMin without axes (all of them) only in its
    form of opset 18 and later, which the model is converted to."""
    proto = model(
        [helper.make_node("ReduceMin", ["x"], ["y"], keepdims=0)],
        [("x", TensorProto.FLOAT, [2, 3])],
        [("y", TensorProto.FLOAT, [])],
        opset=11,
    )
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError, match="onnx.ReduceMin"):
        onnx_ingress.lower_to_linalg(onnx_ingress.import_model(proto))
    x = np.random.default_rng(9).standard_normal((2, 3)).astype(np.float32)
    check_compiled(proto, x)


def test_bool_tensors_stored_as_typed_values():
    """BOOL tensors stored as typed values (`make_tensor(..., vals=[...])`), an
    initializer and a Constant's value, of sizes no multiple of 8: imported
    (as bytes; the importer's typed path fails on MLIR 22's bindings) and
    computed as ONNX's reference does. The caller's model is left as it is."""
    condition = helper.make_tensor("condition", TensorProto.BOOL, [2, 3], [1, 0, 1, 1, 1, 0])
    mask = helper.make_tensor("mask", TensorProto.BOOL, [2, 3], [True, True, False, True, 0, 1])
    proto = model(
        [
            helper.make_node("Constant", [], ["mask"], value=mask),
            helper.make_node("And", ["condition", "mask"], ["both"]),
            helper.make_node("Where", ["both", "x", "y"], ["z"]),
        ],
        [("x", TensorProto.FLOAT, [2, 3]), ("y", TensorProto.FLOAT, [2, 3])],
        [("z", TensorProto.FLOAT, [2, 3])],
        initializers=[condition],
    )
    rng = np.random.default_rng(4)
    x, y = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    check_compiled(proto, x, y)
    assert list(proto.graph.initializer[0].int32_data) == [1, 0, 1, 1, 1, 0]
    assert not proto.graph.initializer[0].raw_data
