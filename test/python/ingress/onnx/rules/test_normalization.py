"""LpNormalization (lighthouse.ingress.onnx.rules.normalization), of a
vector of zeros too, checked against onnxruntime."""

import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_against_onnxruntime, one_node_model, random_inputs  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "lpnormalization-of-zeros": (
        helper.make_node("LpNormalization", ["x"], ["y"], axis=0, p=2),
        [("x", TensorProto.FLOAT, [2, 3])],
        [("y", TensorProto.FLOAT, [2, 3])],
        22,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """LpNormalization of a vector of zeros too, for which ONNX gives zeros
    and torch-mlir's conversion NaN."""
    proto = one_node_model(*LIGHTHOUSE_FUNCTIONS[name])
    values = random_inputs(proto)
    values[0][:, 1] = 0  # A column of zeros: its norm along axis 0 is zero.
    check_against_onnxruntime(proto, values)
