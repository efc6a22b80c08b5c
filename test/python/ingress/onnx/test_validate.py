"""ONNX models checked before lowering (lighthouse.ingress.onnx.validate):
what onnxruntime refuses is refused with a ValueError naming the node (an
axis past the rank, a type the op's schema does not allow, a graph output
declared of another type than computed), and valid models still compile."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import check_against_onnxruntime, check_compiled, model  # noqa: E402

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


def test_axes_given_as_constant_inputs_are_checked():
    proto = model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"])],
        [X],
        [("y", FLOAT, [1, 1])],
        initializers=[numpy_helper.from_array(np.array([1, -3], np.int64), "axes")],
    )
    message = r"ONNX node 'ReduceSum_0' \(ReduceSum\): axes \(input 'axes'\) -3 out of range"
    with pytest.raises(ValueError, match=rf"{message} .* rank 2"):
        onnx_ingress.load(proto)


def with_constants(op_type, inputs, output, constants, opset=18, **attributes):
    """A model of one `op_type` node of x (float[2, 3, 4]) and `constants`
    (initializers, by name, of int64 or float32 as their values are), of
    inputs `inputs` in order ("" for one left out) and `output`'s shape."""
    initializers = [
        numpy_helper.from_array(
            np.array(value, np.float32 if np.asarray(value).dtype.kind == "f" else np.int64), name
        )
        for name, value in constants.items()
    ]
    return model(
        [helper.make_node(op_type, inputs, ["y"], **attributes)],
        [("x", FLOAT, [2, 3, 4])],
        [("y", FLOAT, output)],
        opset,
        initializers,
    )


PADS = {"pads": [0, 0, 1, 0, 0, 1]}


@pytest.mark.parametrize(
    "proto, message",
    [
        # onnxruntime refuses each; ONNX's inference lets each through, of
        # a rank it does not check, and lighthouse compiled the first five.
        # The fuzzer's mutant 1997: lighthouse took the shape flattened.
        pytest.param(
            with_constants("Reshape", ["x", "shape"], [4, 6], {"shape": [[4], [6]]}),
            r"'Reshape_0' \(Reshape\): input 'shape' \(shape\) is of shape \[2, 1\], where "
            r"Reshape takes a 1-D tensor",
            id="vector",
        ),
        pytest.param(
            with_constants("ReduceSum", ["x", "axes"], [2, 1, 4], {"axes": 1}, keepdims=1),
            r"input 'axes' \(axes\) is of shape \[\], where ReduceSum takes a 1-D tensor",
            id="vector-not-scalar",
        ),
        pytest.param(
            with_constants("Clip", ["x", "min"], [2, 3, 4], {"min": [[0.0]]}),
            r"input 'min' \(min\) is of shape \[1, 1\], where Clip takes a scalar \(or a 1-D "
            r"tensor of one value\)",
            id="scalar",
        ),
        pytest.param(
            with_constants("Pad", ["x", "pads", "v"], [2, 3, 6], {**PADS, "v": [1.0, 2.0]}),
            r"input 'v' \(constant_value\) is of shape \[2\], where Pad takes a tensor of one "
            r"value",
            id="one-value",
        ),
        # The fuzzer's mutant 1050: a bias that does not broadcast to X.
        pytest.param(
            with_constants(
                "LayerNormalization", ["x", "s", "b"], [2, 3, 4], {"s": [1.0] * 4, "b": [[0.0]] * 4}
            ),
            r"input 'b' \(B\) is of shape \[4, 1\], where LayerNormalization takes a tensor "
            r"that broadcasts to its output's shape \[2, 3, 4\]",
            id="broadcast-to-output",
        ),
        # torch-mlir's process crashed on it.
        pytest.param(
            model(
                [helper.make_node("ConstantOfShape", ["shape"], ["y"])],
                [],
                [("y", FLOAT, [])],
                initializers=[numpy_helper.from_array(np.array(3, np.int64), "shape")],
            ),
            r"input 'shape' \(input\) is of shape \[\], where ConstantOfShape takes a tensor of "
            r"one dimension or more",
            id="not-scalar",
        ),
        # Unsqueeze takes a scalar too.
        pytest.param(
            with_constants("Unsqueeze", ["x", "axes"], [1, 2, 1, 3, 4], {"axes": [[0], [2]]}),
            r"input 'axes' \(axes\) is of shape \[2, 1\], where Unsqueeze takes a scalar or a "
            r"1-D tensor",
            id="scalar-or-vector",
        ),
        # A rank its declared type gives, of an input whose size is not known.
        pytest.param(
            model(
                [helper.make_node("Reshape", ["x", "shape"], ["y"])],
                [("x", FLOAT, [2, 3, 4]), ("shape", TensorProto.INT64, ["N", 1])],
                [("y", FLOAT, ["A", "B"])],
            ),
            r"input 'shape' \(shape\) is of shape \[\?, 1\], where Reshape takes a 1-D tensor",
            id="rank-of-a-graph-input",
        ),
    ],
)
def test_input_shapes_an_op_does_not_take_are_refused_naming_the_node(proto, message):
    with pytest.raises(ValueError, match=rf"^the model: ONNX node .*{message}"):
        onnx_ingress.load(proto)


def test_inputs_broadcast_to_the_output_the_node_computes_not_the_one_declared():
    # The graph output is declared of another rank than Gemm's [3, 6], to
    # which C broadcasts: ONNX's message says so, not lighthouse's check.
    proto = model(
        [helper.make_node("Gemm", ["a", "b", "c"], ["y"], transB=1)],
        [("a", FLOAT, [3, 4]), ("b", FLOAT, [6, 4])],
        [("y", FLOAT, [6])],
        initializers=[numpy_helper.from_array(np.ones((1, 6), np.float32), "c")],
    )
    with pytest.raises(ValueError, match=r"shape and type inference: .* differ in rank"):
        onnx_ingress.load(proto)


@pytest.mark.parametrize(
    "proto",
    [
        # Broadcast to X, not X's normalized dimensions: onnxruntime takes both.
        with_constants(
            "LayerNormalization",
            ["x", "scale", "bias"],
            [2, 3, 4],
            {"scale": [1.5], "bias": np.full((3, 1), 0.5)},
            axis=-1,
        ),
        with_constants("PRelu", ["x", "slope"], [2, 3, 4], {"slope": [[0.1], [0.2], [0.3]]}),
        with_constants("Clip", ["x", "min"], [2, 3, 4], {"min": [0.0]}),
        with_constants("Pad", ["x", "pads", "v"], [2, 3, 6], {**PADS, "v": [[2.0]]}),
    ],
    ids=["layer-norm", "prelu", "clip", "pad"],
)
def test_input_shapes_onnxruntime_takes_compile_as_it_computes_them(proto):
    x = np.random.default_rng(6).standard_normal((2, 3, 4)).astype(np.float32)
    check_against_onnxruntime(proto, [x])


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
