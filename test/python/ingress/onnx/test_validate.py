"""ONNX models checked before lowering (lighthouse.ingress.onnx.validate):
what onnxruntime refuses is refused with a ValueError naming the node (an
axis past the rank, a type the op's schema does not allow, a graph output
declared of another type than computed), and valid models still compile."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import check_compiled, model  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402

FLOAT = TensorProto.FLOAT
X = ("x", FLOAT, [2, 3])


def one_node(op_type, inputs=(X,), output=("y", FLOAT, [2, 3]), opset=18, **attributes):
    names = [name for name, _, _ in inputs]
    return model([helper.make_node(op_type, names, ["y"], **attributes)], inputs, [output], opset)


def ones(name, shape):
    return numpy_helper.from_array(np.ones(shape, np.float32), name)


@pytest.mark.parametrize(
    "proto, message",
    [
        # torch-mlir's conversion of it does not return: lighthouse stopped it
        # at its time limit of 300 s.
        (
            one_node("Softmax", axis=100),
            r"the model: ONNX node 'Softmax_0' \(Softmax\): axis 100 out of range for its "
            r"input 'x' of rank 2 \(from -2 to 1\)",
        ),
        # lighthouse returned bool(x) for this, a cast to the declared type.
        (
            one_node("Relu", output=("y", TensorProto.BOOL, [2, 3])),
            r"the model: graph output 'y' is declared tensor\(bool\), but ONNX node 'Relu_0' "
            r"\(Relu\) computes tensor\(float\)",
        ),
    ],
    ids=["softmax-axis-100", "relu-declared-bool"],
)
def test_models_onnxruntime_refuses_are_refused_before_lowering(proto, message):
    with pytest.raises(ValueError, match=message):
        lighthouse.compile_onnx(proto)


@pytest.mark.parametrize(
    "op_type, attributes, output, opset, initializers, message",
    [
        # Ops ONNX's inference does not check the axis of (onnxruntime does).
        ("LpNormalization", {"axis": 2}, [2, 3], 18, [], r"axis 2 .* \(from -2 to 1\)"),
        ("LayerNormalization", {"axis": -3}, [2, 3], 18, [ones("scale", [3])], "axis -3"),
        ("Squeeze", {"axes": [0, 7]}, [3], 11, [], "axes 7 .* rank 2"),
        # Axes that index more dimensions than their input has.
        ("Unsqueeze", {"axes": [1, 4]}, [2, 1, 3, 1], 11, [], r"axes 4 .* \(from -4 to 3\)"),
        ("Flatten", {"axis": 3}, [6, 1], 18, [], r"axis 3 .* \(from -2 to 2\)"),
    ],
)
def test_axes_out_of_range_are_refused_naming_the_node(
    op_type, attributes, output, opset, initializers, message
):
    names = ["x", *(tensor.name for tensor in initializers)]
    graph = helper.make_graph(
        [helper.make_node(op_type, names, ["y"], name="the_node", **attributes)],
        "axes",
        [helper.make_tensor_value_info(*X)],
        [helper.make_tensor_value_info("y", FLOAT, output)],
        initializers,
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with pytest.raises(ValueError, match=rf"ONNX node 'the_node' \({op_type}\): {message}"):
        onnx_ingress.load(proto)


@pytest.mark.parametrize(
    "op_type, axes, output, message",
    [
        # onnxruntime refuses it; lighthouse took its values flattened.
        (
            "Unsqueeze",
            [[0], [1]],
            [1, 1, 2, 3],
            r"axes \(input 'axes'\) is a constant of shape \[2, 1\]",
        ),
        ("ReduceSum", [1, -3], [1, 1], r"axes \(input 'axes'\) -3 out of range .* rank 2"),
    ],
)
def test_axes_given_as_constant_inputs_are_checked(op_type, axes, output, message):
    proto = model(
        [helper.make_node(op_type, ["x", "axes"], ["y"])],
        [X],
        [("y", FLOAT, output)],
        initializers=[numpy_helper.from_array(np.array(axes, np.int64), "axes")],
    )
    with pytest.raises(ValueError, match=rf"ONNX node '{op_type}_0' \({op_type}\): {message}"):
        onnx_ingress.load(proto)


def test_axis_of_a_node_in_a_subgraph_is_refused_naming_it():
    branch = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["z"], axis=-5)],
        "then",
        [],
        [helper.make_tensor_value_info("z", FLOAT, [2, 3])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["w"])],
        "else",
        [],
        [helper.make_tensor_value_info("w", FLOAT, [2, 3])],
    )
    proto = model(
        [helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=other)],
        [X, ("c", TensorProto.BOOL, [])],
        [("y", FLOAT, [2, 3])],
    )
    with pytest.raises(ValueError, match=r"ONNX node 'If_0/then_branch/Softmax_0' .* axis -5"):
        onnx_ingress.load(proto)


def test_axes_in_range_and_axes_onnx_ignores_are_taken():
    x = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    check_compiled(one_node("Softmax", axis=-2), x)
    check_compiled(one_node("Flatten", output=("y", FLOAT, [6, 1]), axis=2), x)
    # A per-tensor QuantizeLinear ignores its axis, as onnxruntime does.
    quantize = model(
        [helper.make_node("QuantizeLinear", ["x", "scale"], ["y"], axis=9)],
        [X],
        [("y", TensorProto.UINT8, [2, 3])],
        initializers=[numpy_helper.from_array(np.array(0.5, np.float32), "scale")],
    )
    onnx_ingress.load(quantize)


@pytest.mark.parametrize(
    "proto, message",
    [
        (
            one_node("Softmax", inputs=[("x", TensorProto.UINT8, [2, 3])]),
            r"ONNX node 'Softmax_0' \(Softmax\): input 'x' is tensor\(uint8\), which Softmax of "
            r"opset 13 does not take as input \(it takes .*tensor\(bfloat16\)\)",
        ),
        # bfloat16 is a type of Softmax from opset 13 on.
        (
            one_node("Softmax", inputs=[("x", TensorProto.BFLOAT16, [2, 3])], opset=11),
            r"input 'x' is tensor\(bfloat16\), which Softmax of opset 11 does not take",
        ),
        (
            model(
                [helper.make_node("Less", ["x", "z"], ["y"])],
                [X, ("z", TensorProto.BFLOAT16, [2, 3])],
                [("y", TensorProto.BOOL, [2, 3])],
            ),
            r"ONNX node 'Less_0' \(Less\): input 'z' is tensor\(bfloat16\) and input 'x' "
            r"tensor\(float\), which Less takes of one type \(T\)",
        ),
        # ONNX's message names no node.
        (
            one_node("Cast", to=12345),
            r"ONNX node 'Cast_0' \(Cast\): to 12345 is no element type of ONNX's",
        ),
        # A shape: ONNX's message, which names the node.
        (
            one_node("Relu", output=("y", FLOAT, [4, 3])),
            r"fails ONNX's shape and type inference: .*node name: Relu_0.*differ in dimension 0",
        ),
    ],
    ids=[
        "softmax-of-uint8",
        "softmax-of-bfloat16-at-opset-11",
        "less-of-two-types",
        "cast-to-no-type",
        "shape",
    ],
)
def test_types_and_shapes_onnx_infers_otherwise_are_refused(proto, message):
    with pytest.raises(ValueError, match=message):
        onnx_ingress.load(proto)


def test_function_op_leaving_attributes_to_their_defaults_passes_strict_inference():
    # ONNX's strict inference of MeanVarianceNormalization's function
    # leaves the default of `axes` unset, and fails on it.
    proto = model(
        [helper.make_node("MeanVarianceNormalization", ["x"], ["y"])],
        [("x", FLOAT, [2, 3, 2, 2])],
        [("y", FLOAT, [2, 3, 2, 2])],
        opset=13,
    )
    check_compiled(proto, np.random.default_rng(4).standard_normal((2, 3, 2, 2), np.float32))
    assert not proto.graph.node[0].attribute  # The caller's model is left as it is.


def test_op_leaving_an_attribute_to_its_default_passes_strict_inference():
    # ONNX's inference of STFT reads no default of `onesided` (one-sided, 9
    # frequencies of 16), as lighthouse's compile for the values of
    # frame_step and frame_length had it.
    proto = model(
        [helper.make_node("STFT", ["signal", "step", "", "length"], ["y"])],
        [("signal", FLOAT, [1, 128, 1])],
        [("y", FLOAT, [1, 15, 9, 2])],
        opset=17,
        initializers=[
            numpy_helper.from_array(np.array(8, np.int64), "step"),
            numpy_helper.from_array(np.array(16, np.int64), "length"),
        ],
    )
    loaded = onnx_ingress.load(proto)
    assert [a.name for a in loaded.graph.node[0].attribute] == ["onesided"]
