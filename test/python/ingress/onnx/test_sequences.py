"""Sequences of known elements read as those elements
(lighthouse.ingress.onnx.sequences), compiled and checked against
onnxruntime, which runs the sequences as they are."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import (  # noqa: E402
    check_against_onnxruntime,
    constant,
    model,
    op_types,
    random_inputs,
    vector,
)

from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress.onnx.prepare import prepared  # noqa: E402
from lighthouse.ingress.onnx.sequences import SEQUENCE_OPS, sequences_as_elements  # noqa: E402

INT64_MAX = np.iinfo(np.int64).max


def sequence(name):
    return helper.make_tensor_sequence_value_info(name, TensorProto.FLOAT, None)


def split_off_the_first_token():
    """`torch.tensor_split(x, (1,), dim=2)` as TorchScript's exporter writes
    it (MViT's pooled attention): a Loop of one iteration, its number a [1]
    and its condition the enclosing graph's constant, inserts the slice
    before the split index, the slice after it is inserted after the Loop;
    the rest doubled and the token put back, then the exporter's
    `squeeze(1)`, an If on whether that size is 1."""
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["bounds", "i"], ["start"], axis=0),
            helper.make_node("Add", ["i", "one"], ["next"]),
            helper.make_node("Gather", ["bounds", "next"], ["stop"], axis=0),
            helper.make_node("Slice", ["x", "start", "stop", "axis"], ["piece"]),
            helper.make_node("SequenceInsert", ["pieces_in", "piece"], ["pieces_out"]),
            helper.make_node("Identity", ["go"], ["go_on"]),
        ],
        "body",
        [vector("i", [1], TensorProto.INT64), vector("go_in", [], TensorProto.BOOL)]
        + [sequence("pieces_in")],
        [vector("go_on", [], TensorProto.BOOL), sequence("pieces_out")],
    )
    squeezed = helper.make_graph(
        [
            constant("squeezed_axis", [1]),
            helper.make_node("Squeeze", ["joined", "squeezed_axis"], ["kept"]),
        ],
        "then",
        [],
        [vector("kept", [1, 5, 4])],
    )
    as_it_is = helper.make_graph(
        [helper.make_node("Identity", ["joined"], ["same"])],
        "else",
        [],
        [vector("same", [1, 1, 5, 4])],
    )
    return model(
        [
            constant("bounds", [0, 1]),
            constant("one", [1]),
            constant("axis", [2]),
            constant("trip", [1]),
            helper.make_node(
                "Constant", [], ["go"], value=helper.make_tensor("go", TensorProto.BOOL, [], [True])
            ),
            helper.make_node("SequenceEmpty", [], ["empty"], dtype=TensorProto.FLOAT),
            helper.make_node("Loop", ["trip", "go", "empty"], ["first"], body=body),
            constant("after", [1]),
            constant("end", [INT64_MAX]),
            helper.make_node("Slice", ["x", "after", "end", "axis"], ["rest"]),
            helper.make_node("SequenceInsert", ["first", "rest"], ["pieces"]),
            constant("at_first", 0),
            constant("at_last", -1),
            helper.make_node("SequenceAt", ["pieces", "at_first"], ["token"]),
            helper.make_node("SequenceAt", ["pieces", "at_last"], ["tokens"]),
            helper.make_node("Add", ["tokens", "tokens"], ["doubled"]),
            helper.make_node("Concat", ["token", "doubled"], ["joined"], axis=2),
            helper.make_node("Shape", ["joined"], ["shape"]),
            constant("size_axis", [1]),
            helper.make_node("Gather", ["shape", "size_axis"], ["size"], axis=0),
            helper.make_node("Equal", ["size", "one"], ["is_one"]),
            helper.make_node("If", ["is_one"], ["y"], then_branch=squeezed, else_branch=as_it_is),
        ],
        [("x", TensorProto.FLOAT, [1, 1, 5, 4])],
        [("y", TensorProto.FLOAT, [1, 5, 4])],
        opset=17,
    )


def split_erased_and_stacked():
    """x [2, 3, 4] split into its rows along axis 1 (without the axis), the
    middle one erased, w inserted in front, stacked again along axis 1 and
    scaled by the sequence's length; and its last element."""
    return model(
        [
            helper.make_node("SplitToSequence", ["x"], ["rows"], axis=1, keepdims=0),
            constant("middle", 1),
            helper.make_node("SequenceErase", ["rows", "middle"], ["two"]),
            constant("front", 0),
            helper.make_node("SequenceInsert", ["two", "w", "front"], ["three"]),
            helper.make_node("SequenceLength", ["three"], ["length"]),
            helper.make_node("Cast", ["length"], ["scale"], to=TensorProto.FLOAT),
            helper.make_node("ConcatFromSequence", ["three"], ["stacked"], axis=1, new_axis=1),
            helper.make_node("Mul", ["stacked", "scale"], ["y"]),
            constant("last", -1),
            helper.make_node("SequenceAt", ["three", "last"], ["z"]),
        ],
        [("x", TensorProto.FLOAT, [2, 3, 4]), ("w", TensorProto.FLOAT, [2, 4])],
        [("y", TensorProto.FLOAT, [2, 3, 4]), ("z", TensorProto.FLOAT, [2, 4])],
    )


def split_by_sizes_and_reordered():
    """x [2, 3, 5] split along axis 1 into sizes [1, 2], the parts
    concatenated as [second, first, second]; and along axis 2 into parts of
    2 (the last of 1), concatenated in reverse."""
    return model(
        [
            constant("sizes", [1, 2]),
            helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=1),
            constant("first", 0),
            constant("second", 1),
            helper.make_node("SequenceAt", ["parts", "first"], ["a"]),
            helper.make_node("SequenceAt", ["parts", "second"], ["b"]),
            helper.make_node("SequenceConstruct", ["b", "a", "b"], ["reordered"]),
            helper.make_node("ConcatFromSequence", ["reordered"], ["y"], axis=1),
            constant("step", 2),
            helper.make_node("SplitToSequence", ["x", "step"], ["columns"], axis=2),
            constant("third", 2),
            helper.make_node("SequenceAt", ["columns", "third"], ["c2"]),
            helper.make_node("SequenceAt", ["columns", "second"], ["c1"]),
            helper.make_node("SequenceAt", ["columns", "first"], ["c0"]),
            helper.make_node("Concat", ["c2", "c1", "c0"], ["z"], axis=2),
        ],
        [("x", TensorProto.FLOAT, [2, 3, 5])],
        [("y", TensorProto.FLOAT, [2, 5, 5]), ("z", TensorProto.FLOAT, [2, 3, 5])],
    )


def rows_collected_and_scanned(trip="trip"):
    """A Loop of 3 iterations (or as many as the graph input `trip` says)
    that inserts row i of x into a sequence and stacks twice the row as a
    scan output; the sequence stacked, plus the scan output."""
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
            helper.make_node("SequenceInsert", ["rows_in", "row"], ["rows_out"]),
            helper.make_node("Add", ["row", "row"], ["twice"]),
            helper.make_node("Identity", ["go_in"], ["go_on"]),
        ],
        "body",
        [vector("i", [], TensorProto.INT64), vector("go_in", [], TensorProto.BOOL)]
        + [sequence("rows_in")],
        [vector("go_on", [], TensorProto.BOOL), sequence("rows_out"), vector("twice", [4])],
    )
    inputs = [("x", TensorProto.FLOAT, [3, 4])]
    nodes = [helper.make_node("SequenceEmpty", [], ["empty"], dtype=TensorProto.FLOAT)]
    if trip == "trip":
        inputs.append(("trip", TensorProto.INT64, []))
    else:
        nodes.append(constant("trip", trip))
    return model(
        nodes
        + [
            helper.make_node("Loop", ["trip", "", "empty"], ["rows", "scanned"], body=body),
            helper.make_node("ConcatFromSequence", ["rows"], ["stacked"], axis=0, new_axis=1),
            helper.make_node("Add", ["stacked", "scanned"], ["y"]),
        ],
        inputs,
        [("y", TensorProto.FLOAT, [3, 4])],
    )


@pytest.mark.parametrize(
    "build",
    [
        split_off_the_first_token,
        split_erased_and_stacked,
        split_by_sizes_and_reordered,
        lambda: rows_collected_and_scanned(trip=3),
    ],
    ids=["tensor-split-as-exported", "erased-and-inserted", "split-by-sizes", "loop-with-scan"],
)
def test_sequences_of_known_elements_become_their_elements(build):
    proto = build()
    ops = set(op_types(prepared(onnx_ingress.load(proto))))
    assert not ops & (SEQUENCE_OPS | {"Loop", "If"})
    check_against_onnxruntime(proto, random_inputs(proto))


def rows_counted_by_an_untyped_number():
    """`rows_collected_and_scanned(3)` whose body reads its iteration number
    but declares no type for it: onnxruntime refuses it, and its rank (that
    of the rows' index) is not known."""
    proto = rows_collected_and_scanned(trip=3)
    loop = next(node for node in proto.graph.node if node.op_type == "Loop")
    loop.attribute[0].g.input[0].ClearField("type")
    return proto


@pytest.mark.parametrize(
    "build",
    [rows_collected_and_scanned, rows_counted_by_an_untyped_number],
    ids=["trip-count-an-input", "untyped-iteration-number"],
)
def test_loops_that_do_not_tell_their_iterations_stay(build):
    proto = onnx_ingress.load(build())
    assert sequences_as_elements(proto) is proto
