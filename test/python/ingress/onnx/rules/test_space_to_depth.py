"""SpaceToDepth of CRD mode (lighthouse.ingress.onnx.rules.space_to_depth),
checked against onnxruntime."""

import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_one_node  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "spacetodepth-crd": (
        helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=2, mode="CRD"),
        [("x", TensorProto.FLOAT, [1, 2, 4, 6])],
        [("y", TensorProto.FLOAT, [1, 8, 2, 3])],
        28,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """SpaceToDepth of CRD mode, which torch-mlir's conversion ignores."""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])
