"""Reshapes that flatten dynamic sizes (lighthouse.ingress.onnx.rules.reshape):
compiled once for dynamic sizes, called at two, against onnxruntime."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import constant, model, op_types  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress.onnx.prepare import prepared  # noqa: E402

INT64_MAX = np.iinfo(np.int64).max


def check_at_sizes(proto, *shapes):
    """`proto` compiled once and called at each of `shapes` (of its first
    input; its second, if any, is [1, n, ...]: a broadcast of the
    positions), against onnxruntime."""
    compiled = lighthouse.compile_onnx(proto)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [value.name for value in proto.graph.input]
    rng = np.random.default_rng(7)
    for shape in shapes:
        inputs = [rng.standard_normal(shape).astype(np.float32)]
        if len(names) > 1:
            inputs.append(rng.standard_normal((1, *shape[1:])).astype(np.float32))
        expected = session.run(None, dict(zip(names, inputs)))[0]
        np.testing.assert_allclose(compiled(*inputs), expected, rtol=1e-5, atol=1e-6)


def embedded_and_flattened(dims, target):
    """x [b, n, ...] plus positions [1, n, ...] (as a decoder's embeddings
    are summed), reshaped to `target` (the rows of a Gemm), through a Relu
    and reshaped back to x's shape."""
    return model(
        [
            helper.make_node("Add", ["x", "positions"], ["summed"]),
            constant("target", target),
            helper.make_node("Reshape", ["summed", "target"], ["rows"]),
            helper.make_node("Relu", ["rows"], ["activated"]),
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Reshape", ["activated", "shape"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, dims), ("positions", TensorProto.FLOAT, [1, *dims[1:]])],
        [("y", TensorProto.FLOAT, dims)],
    )


@pytest.mark.parametrize(
    "dims, target",
    [
        (["b", "n", 8], [-1, 8]),
        (["b", "n", 2, 4], [-1, 8]),
        (["b", "n", 8], [0, -1]),
    ],
    ids=["rows", "heads-as-rows", "kept-batch"],
)
def test_a_reshape_flattening_dynamic_sizes_is_a_flatten(dims, target):
    """torch-mlir lowered [b, n, 8] -> [-1, 8] (and [b, n, 2, 4] -> [-1, 8])
    as a collapse of [b, 1, 8], into which the Add wrote its result: the
    compiled code's check of the Add failed at any n but 1. A 0 keeping the
    batch is a Flatten at 1."""
    proto = embedded_and_flattened(dims, target)
    assert op_types(prepared(onnx_ingress.load(proto))).count("Flatten") == 1
    sizes = list(dims[2:])
    check_at_sizes(proto, (2, 3, *sizes), (3, 5, *sizes))


def test_a_flattened_size_read_from_a_dynamic_shape():
    """TorchScript's export of `h.reshape(-1, h.size(-1))`: the last size is
    sliced from h's Shape, which does not fold, and is static."""
    proto = model(
        [
            helper.make_node("Add", ["x", "positions"], ["h"]),
            helper.make_node("Shape", ["h"], ["shape"]),
            constant("last", [-1]),
            constant("end", [INT64_MAX]),
            constant("axes", [0]),
            helper.make_node("Slice", ["shape", "last", "end", "axes"], ["width"]),
            constant("inferred", [-1]),
            helper.make_node("Concat", ["inferred", "width"], ["target"], axis=0),
            helper.make_node("Reshape", ["h", "target"], ["rows"]),
            helper.make_node("Relu", ["rows"], ["activated"]),
            helper.make_node("Reshape", ["activated", "shape"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, ["b", "n", 8]), ("positions", TensorProto.FLOAT, [1, "n", 8])],
        [("y", TensorProto.FLOAT, ["b", "n", 8])],
    )
    assert "Flatten" in op_types(prepared(onnx_ingress.load(proto)))
    check_at_sizes(proto, (2, 3, 8), (3, 5, 8))


@pytest.mark.parametrize(
    "dims, target",
    [(["b", "n", 8], [-1, 2, 4]), (["b", "n", 8], [-1, 4]), ([2, 3, 8], [-1, 8])],
    ids=["not-to-two-dimensions", "not-a-flatten", "static"],
)
def test_other_reshapes_are_left_alone(dims, target):
    proto = model(
        [constant("target", target), helper.make_node("Reshape", ["x", "target"], ["y"])],
        [("x", TensorProto.FLOAT, dims)],
        [("y", TensorProto.FLOAT, [None if size == -1 else size for size in target])],
    )
    assert "Flatten" not in op_types(prepared(onnx_ingress.load(proto)))
