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
