"""BitCast between integers of one width as a Cast
(lighthouse.ingress.onnx.rules.bitcast), checked against onnxruntime."""

import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_one_node  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "bitcast-int8-to-uint8": (
        helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.UINT8),
        [("x", TensorProto.INT8, [2, 5])],
        [("y", TensorProto.UINT8, [2, 5])],
        26,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """BitCast of int8 to uint8: a Cast, the same bits."""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])
