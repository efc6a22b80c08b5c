"""Sizes ONNX's inference leaves unknown that the graph tells
(lighthouse.ingress.onnx.shapes): a Slice keeps the sizes of the dimensions
it does not slice. On ONNX models built with onnx.helper, compiled for
dynamic sizes and checked against ONNX's reference evaluator."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import check_compiled, constant, model  # noqa: E402

from lighthouse.ingress.onnx.shapes import slices_keep_their_other_dims  # noqa: E402
from lighthouse.ingress.onnx.values import inferred_shapes, types_of  # noqa: E402


def positions_added(axes):
    """Position ids [1, 16] sliced along `axes` to the sequence's length (a
    bound computed from the input's shape), expanded to the batch and added
    to the input, as BERT's embeddings do."""
    ids = numpy_helper.from_array(np.arange(16, dtype=np.int64).reshape(1, 16), "ids")
    return model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            constant("one", [1]),
            constant("two", [2]),
            helper.make_node("Slice", ["shape", "one", "two"], ["length"]),
            constant("zero", [0]),
            constant("axes", [axes]),
            helper.make_node("Slice", ["ids", "zero", "length", "axes"], ["sliced"]),
            helper.make_node("Expand", ["sliced", "shape"], ["expanded"]),
            helper.make_node("Add", ["x", "expanded"], ["y"]),
        ],
        [("x", TensorProto.INT64, ["batch", "length"])],
        [("y", TensorProto.INT64, ["batch", "length"])],
        initializers=[ids],
    )


def sliced_dims(proto):
    return types_of(proto.graph)["sliced"].tensor_type.shape.dim


@pytest.mark.parametrize("axes", [1, -1], ids=["axis", "negative axis"])
def test_a_slice_keeps_the_sizes_it_does_not_slice(axes):
    proto = onnx.shape_inference.infer_shapes(positions_added(axes), data_prop=True)
    assert not sliced_dims(proto)[0].HasField("dim_value")  # What ONNX infers.
    refined = slices_keep_their_other_dims(proto)
    assert sliced_dims(refined)[0].dim_value == 1
    assert not sliced_dims(refined)[1].HasField("dim_value")
    # Without the known 1, the broadcast to the batch failed its run-time
    # check at any batch but 1.
    x = np.arange(30, dtype=np.int64).reshape(3, 10)
    check_compiled(positions_added(axes), x)


def test_a_slice_without_axes_slices_the_first_ones():
    proto = model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            constant("zero", [0]),
            constant("one", [1]),
            helper.make_node("Slice", ["shape", "zero", "one"], ["length"]),
            helper.make_node("Slice", ["x", "zero", "length"], ["sliced"]),
        ],
        [("x", TensorProto.FLOAT, ["n", 3, 4])],
        [("sliced", TensorProto.FLOAT, None)],
    )
    refined = slices_keep_their_other_dims(onnx.shape_inference.infer_shapes(proto, data_prop=True))
    assert [dim.dim_value for dim in sliced_dims(refined)[1:]] == [3, 4]


def test_slices_of_unknown_axes_are_left_alone():
    proto = positions_added(1)
    for node in proto.graph.node:
        if node.op_type == "Slice" and len(node.input) == 4:
            node.input[3] = "length"  # Axes computed: not known before run time.
    inferred = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    assert slices_keep_their_other_dims(inferred) is inferred


def test_shapes_inferred_without_the_large_initializers_are_onnxs():
    # inferred_shapes infers on the model whose large initializers are typed
    # inputs (a model over 2 GiB has no serialized form to infer on), and
    # gives the model its nodes and types in place: the same shapes as ONNX's
    # own inference of the whole model, through a Reshape whose target is
    # computed from a small constant, and every initializer, name and model
    # field kept, in order.
    weight = numpy_helper.from_array(np.ones((64, 48), np.float32), "weight")
    target = numpy_helper.from_array(np.array([-1, 4, 12], np.int64), "target")
    proto = model(
        [
            helper.make_node("MatMul", ["x", "weight"], ["product"]),
            helper.make_node("Reshape", ["product", "target"], ["reshaped"]),
            helper.make_node("Relu", ["reshaped"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, [2, 64])],
        [("y", TensorProto.FLOAT, None)],
        initializers=[weight, target],
    )
    proto.producer_name = "a test"
    proto.graph.name = "graph of a test"
    expected = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    inferred = inferred_shapes(proto)
    assert inferred is proto  # In place: the weights are not copied.
    assert types_of(inferred.graph) == types_of(expected.graph)
    (output,) = inferred.graph.output
    assert [d.dim_value for d in output.type.tensor_type.shape.dim] == [2, 4, 12]
    assert list(inferred.graph.initializer) == [weight, target]
    assert [v.name for v in inferred.graph.input] == ["x"]
    assert inferred.producer_name == "a test" and inferred.graph.name == "graph of a test"
    assert inferred.opset_import == proto.opset_import
