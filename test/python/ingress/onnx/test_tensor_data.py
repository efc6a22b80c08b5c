"""The data of an ONNX model's tensors checked against their dims and types
before anything else (lighthouse.ingress.onnx.tensor_data), as onnxruntime
checks them: a tensor whose data is longer or shorter than its dims take is
refused with a ValueError naming it and both counts, wherever it is
(initializers, Constant nodes, subgraphs, external data)."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import model  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress.onnx.tensor_data import refuse_data_unlike_dims  # noqa: E402

FLOAT = TensorProto.FLOAT
X = ("x", FLOAT, [2, 3])
Y = ("y", FLOAT, [2, 3])


def declared(value, name, dims, data_type=None):
    """`value` stored as it is, declared of `dims` (and `data_type`)."""
    tensor = numpy_helper.from_array(np.asarray(value), name)
    tensor.dims[:] = dims
    if data_type is not None:
        tensor.data_type = data_type
    return tensor


def adding(tensor):
    """x + `tensor` (an initializer named w)."""
    return model([helper.make_node("Add", ["x", "w"], ["y"])], [X], [Y], initializers=[tensor])


def typed(name, data_type, dims, field, values):
    """A tensor of `values` in its typed `field`, declared of `dims`."""
    tensor = TensorProto(name=name, data_type=data_type, dims=dims)
    getattr(tensor, field).extend(values)
    return tensor


def in_a_branch(tensor):
    """An If whose then branch adds `tensor`, its initializer, to x."""
    then = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["z"])],
        "then",
        [],
        [helper.make_tensor_value_info("z", FLOAT, [2, 3])],
        [tensor],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["v"])],
        "else",
        [],
        [helper.make_tensor_value_info("v", FLOAT, [2, 3])],
    )
    return model(
        [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
        [X, ("c", TensorProto.BOOL, [])],
        [Y],
    )


ONES = np.ones(6, np.float32)


@pytest.mark.parametrize(
    "proto, message",
    [
        # onnxruntime refuses it; ONNX's checker does not, and lighthouse
        # took the first value as Gemm's bias (fuzzer's mutant 371).
        (
            adding(declared(ONES, "w", [1, 1])),
            r"initializer 'w' holds 24 bytes of raw_data, where its dims \[1, 1\] of float take 4",
        ),
        (
            adding(declared(ONES[:3], "w", [2, 3])),
            r"initializer 'w' holds 12 bytes of raw_data, where its dims \[2, 3\] of float take 24",
        ),
        (
            adding(typed("w", FLOAT, [2, 1], "float_data", [1.0, 2.0, 3.0])),
            r"initializer 'w' holds 3 values in float_data, where its dims \[2, 1\] of float take 2",
        ),
        (
            model(
                [
                    helper.make_node("Constant", [], ["w"], value=declared(ONES, "w", [3])),
                    helper.make_node("Add", ["x", "w"], ["y"]),
                ],
                [("x", FLOAT, [3])],
                [("y", FLOAT, [3])],
            ),
            r"attribute 'value' of ONNX node 'Constant_0' \(Constant\) holds 24 bytes",
        ),
        (
            in_a_branch(declared(ONES[:4], "w", [3])),
            r"initializer 'w' of the then_branch of ONNX node 'If_0' \(If\) holds 16 bytes of "
            r"raw_data, where its dims \[3\] of float take 12",
        ),
        # Two 4-bit values a byte, in raw_data and in int32_data alike.
        (
            adding(declared(np.zeros(3, np.uint8), "w", [3], TensorProto.INT4)),
            r"initializer 'w' holds 3 bytes of raw_data, where its dims \[3\] of int4 take 2",
        ),
        (
            adding(typed("w", TensorProto.INT4, [5], "int32_data", [0x21, 0x43])),
            r"initializer 'w' holds 2 values in int32_data, where its dims \[5\] of int4 take 3",
        ),
        (
            adding(typed("w", TensorProto.COMPLEX64, [2], "float_data", [1.0, 2.0, 3.0])),
            r"initializer 'w' holds 3 values in float_data, where its dims \[2\] of complex64 "
            r"take 4",
        ),
    ],
    ids=[
        "longer",
        "shorter",
        "typed",
        "constant-node",
        "in-a-subgraph",
        "int4-raw",
        "int4-typed",
        "complex-typed",
    ],
)
def test_data_unlike_dims_is_refused_naming_the_tensor(proto, message):
    with pytest.raises(ValueError, match=rf"^the model: {message}"):
        onnx_ingress.load(proto)


def test_data_as_its_dims_take_it_passes():
    tensors = [
        # Five int4 values in three bytes, or in three values of int32_data.
        declared(np.zeros(3, np.uint8), "raw", [5], TensorProto.INT4),
        typed("typed", TensorProto.INT4, [5], "int32_data", [0x21, 0x43, 0x05]),
        typed("complex", TensorProto.COMPLEX64, [2], "float_data", [1.0, 2.0, 3.0, 4.0]),
        typed("strings", TensorProto.STRING, [2], "string_data", [b"a", b"b"]),
        typed("empty", FLOAT, [0, 3], "float_data", []),
    ]
    outputs = [(tensor.name, tensor.data_type, list(tensor.dims)) for tensor in tensors]
    refuse_data_unlike_dims(model([], [], outputs, initializers=tensors), "the model", "")


def test_initializer_no_node_uses_is_not_checked():
    # onnxruntime removes it before it checks the others.
    proto = model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [X],
        [Y],
        initializers=[declared(ONES, "unused", [1, 1])],
    )
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(lighthouse.compile_onnx(proto)(x), np.maximum(x, 0))


def saved_with_external_data(folder, length=None, more=b""):
    """x + w, of w's six floats saved in the file `weights` of `folder`, with
    `more` bytes after them; its `length` set to `length`, or none given."""
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    proto = adding(numpy_helper.from_array(w, "w"))
    path = folder / "model.onnx"
    onnx.save(proto, path, save_as_external_data=True, location="weights", size_threshold=0)
    with open(folder / "weights", "ab") as weights:
        weights.write(more)
    saved = onnx.load(path, load_external_data=False)
    tensor = saved.graph.initializer[0]
    entries = [entry for entry in tensor.external_data if entry.key != "length"]
    del tensor.external_data[:]
    tensor.external_data.extend(entries)
    if length is not None:
        tensor.external_data.add(key="length", value=str(length))
    onnx.save(saved, path)
    return path


@pytest.mark.parametrize(
    "length, more, message",
    [
        (28, b"\0" * 4, "has external data of length 28 bytes, where its dims"),
        (None, b"", None),
    ],
    ids=["length", "file"],
)
def test_external_data_unlike_dims_is_refused_before_it_is_read(tmp_path, length, more, message):
    path = saved_with_external_data(tmp_path, length, more)
    if message is None:  # A file shorter than its dims take: 20 of 24 bytes.
        with open(tmp_path / "weights", "r+b") as weights:
            weights.truncate(20)
        message = "has 20 bytes of external data in 'weights' past offset 0, where its dims"
    with pytest.raises(ValueError, match=rf"model.onnx: initializer 'w' {message} \[2, 3\]"):
        onnx_ingress.load(path)


def test_external_data_of_no_length_is_read_for_its_dims(tmp_path):
    # onnxruntime reads the 24 bytes its dims take, and so does lighthouse,
    # where ONNX's loader read the file's 28.
    path = saved_with_external_data(tmp_path, more=b"\0" * 4)
    loaded = onnx_ingress.load(path)
    assert len(loaded.graph.initializer[0].raw_data) == 24
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(lighthouse.compile_onnx(path)(x), x + w)
