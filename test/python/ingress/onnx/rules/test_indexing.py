"""TensorScatter and Compress (lighthouse.ingress.onnx.rules.indexing)."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_one_node, model, reference  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "tensorscatter-circular": (
        helper.make_node("TensorScatter", ["cache", "update", "at"], ["y"], mode="circular"),
        [
            ("cache", TensorProto.FLOAT, [2, 1, 4, 3]),
            ("update", TensorProto.FLOAT, [2, 1, 2, 3]),
        ],
        [("y", TensorProto.FLOAT, [2, 1, 4, 3])],
        24,
        {"at": [3, 1]},
    ),
    "compress-flattened": (
        helper.make_node("Compress", ["x", "keep"], ["y"]),
        [("x", TensorProto.FLOAT, [2, 3]), ("keep", TensorProto.BOOL, [4])],
        [("y", TensorProto.FLOAT, ["selected"])],
        11,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """TensorScatter, and Compress of the flattened input: ops torch-mlir
    does not convert."""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])


@pytest.mark.parametrize("axis", [None, 1])
def test_compress_selects_as_many_as_its_condition_says(axis):
    """The output's declared size is that of one condition; the compiled
    code selects what each call's condition selects, past its length none."""
    attributes = {} if axis is None else {"axis": axis}
    proto = model(
        [helper.make_node("Compress", ["x", "keep"], ["y"], **attributes)],
        [("x", TensorProto.FLOAT, [2, 4]), ("keep", TensorProto.BOOL, [3])],
        [("y", TensorProto.FLOAT, [2] if axis is None else [2, 2])],
        opset=11,
    )
    prepared = onnx_ingress.prepared(onnx_ingress.load(proto))
    dims = prepared.graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_value or None for d in dims] == ([None] if axis is None else [2, None])
    compiled = lighthouse.compile_onnx(proto)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    for keep in ([True, False, True], [False, True, True], [False, False, False]):
        keep = np.array(keep)
        np.testing.assert_array_equal(compiled(x, keep), reference(proto, x, keep))
