"""Slices with negative steps as gathers (lighthouse.ingress.onnx.rules.slice)."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import check_compiled, model, op_types  # noqa: E402

from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


@pytest.mark.parametrize(
    "starts, ends, axes, steps, y_shape",
    [
        ([20, 10, 4], [0, 0, 1], [0, 1, 2], [-1, -3, -2], [5, 2, 2]),
        ([-1, 1], [-100, 100], [1, 0], [-2, 3], [2, 3, 5]),
        ([2], [5], [-1], [-1], [6, 5, 0]),  # Empty: a negative step from below the end.
    ],
    ids=["every-axis-backwards", "mixed-out-of-bounds", "empty"],
)
def test_slices_with_negative_steps_gather_their_positions(starts, ends, axes, steps, y_shape):
    """torch-mlir lowered them to IR of mismatched shapes."""
    initializers = [
        numpy_helper.from_array(np.array(values, np.int64), name)
        for name, values in zip(("starts", "ends", "axes", "steps"), (starts, ends, axes, steps))
    ]
    proto = model(
        [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        [("x", TensorProto.FLOAT, [6, 5, 5])],
        [("y", TensorProto.FLOAT, y_shape)],
        opset=13,
        initializers=initializers,
    )
    assert "Gather" in op_types(onnx_ingress.prepared(onnx_ingress.load(proto)))
    x = np.random.default_rng(6).standard_normal((6, 5, 5)).astype(np.float32)
    check_compiled(proto, x)
