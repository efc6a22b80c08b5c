"""Pad of wrap mode (lighthouse.ingress.onnx.rules.pad), checked against
onnxruntime."""

import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_one_node  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "pad-wrapped-and-cropped": (
        helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap"),
        [("x", TensorProto.INT32, [1, 3, 4])],
        [("y", TensorProto.INT32, [1, 8, 3])],
        19,
        {"pads": [0, 4, 0, 0, 1, -1]},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """Pad of wrap mode, whose conversion by torch-mlir does not end, with
    a negative pad that crops."""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])
