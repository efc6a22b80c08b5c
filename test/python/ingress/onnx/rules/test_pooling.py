"""LpPool and MaxUnpool (lighthouse.ingress.onnx.rules.pooling), checked
against onnxruntime."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_against_onnxruntime, check_one_node, model  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "lppool-same-upper-dilated": (
        helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 3], auto_pad="SAME_UPPER", p=3),
        [("x", TensorProto.FLOAT, [1, 2, 5, 6])],
        [("y", TensorProto.FLOAT, [1, 2, 5, 6])],
        18,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """LpPool, which torch-mlir does not convert: the p-th root of the sum of
    |x|^p over each window, of `auto_pad` SAME_UPPER here."""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])


def test_max_unpool_scatters_into_the_pooled_shape():
    """Values at the positions a 2x2 max pooling of a 2x3x4x4 input took
    (indices in the whole tensor, flattened), the rest zeros."""
    proto = model(
        [helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        [("x", TensorProto.FLOAT, [2, 3, 2, 2]), ("i", TensorProto.INT64, [2, 3, 2, 2])],
        [("y", TensorProto.FLOAT, [2, 3, 4, 4])],
        opset=22,
    )
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 2, 2)).astype(np.float32)
    # One position of each 2x2 window, counted in the 2x3x4x4 output.
    rows, columns = rng.integers(0, 2, (2, 2, 3, 2, 2))
    n, c, h, w = np.indices((2, 3, 2, 2))
    i = ((n * 3 + c) * 4 + 2 * h + rows) * 4 + 2 * w + columns
    check_against_onnxruntime(proto, [x, i.astype(np.int64)])
