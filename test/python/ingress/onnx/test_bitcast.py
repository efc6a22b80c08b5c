"""BitCast between floats and integers (lighthouse.ingress.onnx.bitcast), on
both pipelines: every bit kept, a NaN's payload, infinities, -0 and
denormals included."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402

import lighthouse  # noqa: E402


@pytest.mark.parametrize("pipeline", ["default", "loops"])
@pytest.mark.parametrize(
    "source, target, shape",
    [
        (np.float32, np.int32, (3, 4)),
        (np.int32, np.float32, (5,)),
        (np.float64, np.int64, ()),
        (np.int64, np.float64, ("n",)),
    ],
    ids=["f32-i32", "i32-f32", "f64-i64-scalar", "i64-f64-dynamic"],
)
def test_bitcast_between_floats_and_integers_keeps_every_bit(pipeline, source, target, shape):
    kinds = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}
    kinds.update({np.int32: TensorProto.INT32, np.int64: TensorProto.INT64})
    node = helper.make_node("BitCast", ["x"], ["y"], to=kinds[target])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", kinds[source], list(shape))],
        [helper.make_tensor_value_info("y", kinds[target], list(shape))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    compiled = lighthouse.compile_onnx(model, pipeline=pipeline)
    # A NaN with a payload, an infinity, -0, a denormal, 1.5 and 7, as bits.
    if np.dtype(source).itemsize == 4:
        bits = np.array([0x7FC00123, 0xFF800000, 0x80000000, 1, 0x3FC00000, 7], np.uint32)
    else:
        bits = np.array([0x7FF8000000000123, 0xFFF0 << 48, 1 << 63, 1, 0x3FF8 << 48, 7], np.uint64)
    values = bits.view(source)
    x = {(3, 4): np.resize(values, (3, 4)), (5,): values[:5], (): values[3].reshape(())}.get(
        shape, values
    )
    y = np.asarray(compiled(x))
    assert y.dtype == np.dtype(target) and y.shape == x.shape
    assert y.tobytes() == x.tobytes()
