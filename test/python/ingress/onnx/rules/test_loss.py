"""SoftmaxCrossEntropyLoss of weighted rows, expanded into ONNX's function
(lighthouse.ingress.onnx.rules.loss)."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_compiled, model  # noqa: E402


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_of_weighted_rows(reduction):
    """Averaged, torch-mlir's conversion summed the weights as integers: the
    loss of weights below 1 was inf. Expanded into ONNX's function instead."""
    proto = model(
        [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "y", "w"], ["z"], reduction=reduction)],
        [
            ("x", TensorProto.FLOAT, [3, 5]),
            ("y", TensorProto.INT64, [3]),
            ("w", TensorProto.FLOAT, [5]),
        ],
        [("z", TensorProto.FLOAT, [3] if reduction == "none" else [])],
        opset=13,
    )
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    w = rng.uniform(0.1, 0.9, 5).astype(np.float32)
    check_compiled(proto, x, np.array([0, 2, 4]), w)
