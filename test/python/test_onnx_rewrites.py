"""ONNX models rewritten before lowering: values the lowering needs as
constants (axes, shapes, bounds) folded when computed from constants
(lighthouse.ingress.onnx), compiled for by value when given as graph inputs
(lighthouse.execution.specialized); Scans and Loops with scan outputs made Loops of
loop-carried values (lighthouse.ingress.onnx.loops). On ONNX models built
with onnx.helper, compiled and checked against ONNX's reference evaluator."""

import numpy as np
import pytest

onnx = pytest.importorskip(
    "onnx", reason="needs lighthouse[onnx] (build_tools/setup.sh installs it)"
)
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress.onnx import fold as _onnx_fold, loops as _onnx_loops  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


def constant(name, value):
    return helper.make_node(
        "Constant", [], [name], value=numpy_helper.from_array(np.array(value, np.int64))
    )


def model(nodes, inputs, outputs, opset=18, initializers=()):
    graph = helper.make_graph(
        nodes,
        "folded",
        [helper.make_tensor_value_info(name, kind, shape) for name, kind, shape in inputs],
        [helper.make_tensor_value_info(name, kind, shape) for name, kind, shape in outputs],
        list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def mean_from_axis_1(keepdims):
    """ReduceMean over the axes from 1 to the rank, computed from the input's
    shape as RMSNormalization's function computes them."""
    return model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Size", ["shape"], ["rank"]),
            constant("start", 1),
            constant("step", 1),
            helper.make_node("Range", ["start", "rank", "step"], ["axes"]),
            helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=keepdims),
        ],
        [("x", TensorProto.FLOAT, [2, 3, 4])],
        [("y", TensorProto.FLOAT, [2, 1, 1] if keepdims else [2])],
    )


def sum_over_gathered_axis():
    """ReduceSum over the axis `shape(x)[0] - 1`, through Shape and Gather."""
    return model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            constant("first", [0]),
            helper.make_node("Gather", ["shape", "first"], ["batch"]),
            constant("one", [1]),
            helper.make_node("Sub", ["batch", "one"], ["axes"]),
            helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0),
        ],
        [("x", TensorProto.FLOAT, [2, 3, 4])],
        [("y", TensorProto.FLOAT, [2, 4])],
    )


def rms_normalization(axis):
    return model(
        [helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=axis, epsilon=1e-5)],
        [("x", TensorProto.FLOAT, [2, 3, 4]), ("scale", TensorProto.FLOAT, [3, 4][axis:])],
        [("y", TensorProto.FLOAT, [2, 3, 4])],
        opset=23,
    )


def op_types(proto):
    return [node.op_type for node in proto.graph.node]


def check_compiled(proto, *inputs):
    names = [value.name for value in proto.graph.input]
    expected = ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))[0]
    np.testing.assert_allclose(
        lighthouse.compile_onnx(proto)(*inputs), expected, rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduction_axes_computed_from_a_static_shape(keepdims):
    proto = mean_from_axis_1(keepdims)
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    # Shape, Size, Range and their Constant inputs became one constant: [1, 2].
    assert op_types(folded) == ["Constant", "ReduceMean"]
    axes = numpy_helper.to_array(folded.graph.node[0].attribute[0].t)
    assert axes.tolist() == [1, 2]
    with ir.Context():
        raw = onnx_ingress.import_model(proto)
    assert '"onnx.Range"' not in str(raw)
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    check_compiled(proto, x)


def test_reduction_axis_gathered_from_a_shape():
    proto = sum_over_gathered_axis()
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    assert op_types(folded) == ["Constant", "ReduceSum"]
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    check_compiled(proto, x)


def test_folding_repeats_with_the_shapes_folded_values_make_static():
    """The Reshape's target folds in a first round; shape inference then knows
    the Reshape's result, whose Shape, Gather and Sub fold in a second."""
    proto = model(
        [
            constant("two", 2),
            constant("four", 4),
            constant("one", 1),
            helper.make_node("Range", ["two", "four", "one"], ["leading"]),
            constant("rest", [-1]),
            helper.make_node("Concat", ["leading", "rest"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["cube"]),
            helper.make_node("Shape", ["cube"], ["cube_shape"]),
            constant("first", [0]),
            helper.make_node("Gather", ["cube_shape", "first"], ["batch"]),
            helper.make_node("Sub", ["batch", "one"], ["axes"]),
            helper.make_node("ReduceSum", ["cube", "axes"], ["y"], keepdims=0),
        ],
        [("x", TensorProto.FLOAT, [4, 6])],
        [("y", TensorProto.FLOAT, [2, 4])],
    )
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    assert op_types(folded) == ["Constant", "Reshape", "Constant", "ReduceSum"]
    x = np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32)
    check_compiled(proto, x)


@pytest.mark.parametrize("axis", [1, -1])
def test_rms_normalization_expanded_and_its_axes_folded(axis):
    proto = rms_normalization(axis)
    with ir.Context():
        # Whole, RMSNormalization is an op torch-mlir does not lower ...
        with pytest.raises(onnx_ingress.LoweringError) as info:
            onnx_ingress.lower_to_linalg(onnx_ingress.import_model(proto))
        assert info.value.ops == ["onnx.RMSNormalization"]
        # ... nor its function as such: ReduceMean's axes come from Range.
        with pytest.raises(onnx_ingress.LoweringError) as info:
            onnx_ingress.lower_to_linalg(
                onnx_ingress._import(
                    _onnx_fold.expand_functions(onnx_ingress.load(proto), ["RMSNormalization"]),
                    None,
                )
            )
        assert info.value.ops == ["onnx.ReduceMean"]
        raw, _ = onnx_ingress.import_and_lower(proto)
    text = str(raw)
    assert '"onnx.RMSNormalization"' not in text and '"onnx.ReduceMean"' in text
    assert '"onnx.Range"' not in text and '"onnx.Shape"' not in text
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    scale = rng.standard_normal([3, 4][axis:]).astype(np.float32)
    check_compiled(proto, x, scale)


def test_axes_given_as_a_graph_input_are_not_folded():
    """Axes the caller passes are not constants, whatever value a test passes:
    the model is left as it is, and fails as it did (a [3, 2] result of a
    [3, 2, 2] input may reduce axis 1 or 2)."""
    proto = model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        [("x", TensorProto.FLOAT, [3, 2, 2]), ("axes", TensorProto.INT64, [1])],
        [("y", TensorProto.FLOAT, [3, 2])],
    )
    loaded = onnx_ingress.load(proto)
    assert _onnx_fold.fold_constants(loaded) is loaded
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError) as info:
        onnx_ingress.import_and_lower(proto)
    assert info.value.ops == ["torch.aten.sum.dim_IntList"]


def test_initializers_that_are_graph_inputs_are_not_constants():
    # `bias` has a default value the caller may override.
    bias = numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "bias")
    proto = model(
        [
            helper.make_node("Neg", ["bias"], ["negated"]),
            helper.make_node("Add", ["x", "negated"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, [2]), ("bias", TensorProto.FLOAT, [2])],
        [("y", TensorProto.FLOAT, [2])],
        initializers=[bias],
    )
    assert op_types(_onnx_fold.fold_constants(onnx_ingress.load(proto))) == ["Neg", "Add"]
    # Without the graph input, it is a constant.
    del proto.graph.input[1]
    assert op_types(_onnx_fold.fold_constants(onnx_ingress.load(proto))) == ["Constant", "Add"]


def test_large_results_and_graph_outputs_stay_computed():
    proto = model(
        [
            constant("dims", [3, 3]),
            helper.make_node(
                "ConstantOfShape",
                ["dims"],
                ["ones"],
                value=numpy_helper.from_array(np.array([1.0], np.float32)),
            ),
            helper.make_node("Add", ["x", "ones"], ["y"]),
            # Computed from a static shape, but only a graph output uses it.
            helper.make_node("Shape", ["x"], ["shape"]),
        ],
        [("x", TensorProto.FLOAT, [3, 3])],
        [("y", TensorProto.FLOAT, [3, 3]), ("shape", TensorProto.INT64, [2])],
    )
    loaded = onnx_ingress.load(proto)
    kept = _onnx_fold.fold_constants(loaded, max_elements=8)
    assert op_types(kept) == ["Constant", "ConstantOfShape", "Add", "Shape"]
    folded = _onnx_fold.fold_constants(loaded, max_elements=9)
    assert op_types(folded) == ["Constant", "Add", "Shape"]
    assert [value.name for value in folded.graph.output] == ["y", "shape"]
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    y, shape = lighthouse.compile_onnx(proto)(x)
    np.testing.assert_array_equal(y, x + 1)
    assert shape.tolist() == [3, 3]


@pytest.mark.parametrize("opset", [13, 18, 21])
def test_expanded_functions_keep_the_defaults_of_their_attributes(opset):
    """MeanVarianceNormalization's function reduces over its `axes`, left to
    their default [0, 2, 3] here; at opset 21 its function (of opset 18) is
    converted to the model's opset as it is inlined."""
    proto = onnx_ingress.load(
        model(
            [helper.make_node("MeanVarianceNormalization", ["x"], ["y"])],
            [("x", TensorProto.FLOAT, [2, 3, 4, 5])],
            [("y", TensorProto.FLOAT, [2, 3, 4, 5])],
            opset=opset,
        )
    )
    expanded = _onnx_fold.expand_functions(proto, {"MeanVarianceNormalization"})
    assert "MeanVarianceNormalization" not in op_types(expanded)
    assert [(o.domain, o.version) for o in expanded.opset_import] == [("", opset)]
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5)).astype(np.float32)
    expected = ReferenceEvaluator(proto).run(None, {"x": x})[0]
    np.testing.assert_allclose(
        ReferenceEvaluator(expanded).run(None, {"x": x})[0], expected, rtol=1e-5, atol=1e-6
    )


def test_attention_with_an_omitted_mask_and_past_keys():
    """An omitted input followed by others, which ONNX's inliner cannot expand
    from the op's schema."""
    shape, past = [1, 2, 3, 4], [1, 2, 2, 4]
    present = [1, 2, 5, 4]
    proto = model(
        [
            helper.make_node(
                "Attention",
                ["q", "k", "v", "", "past_key", "past_value"],
                ["y", "present_key", "present_value"],
            )
        ],
        [
            *((name, TensorProto.FLOAT, shape) for name in ("q", "k", "v")),
            ("past_key", TensorProto.FLOAT, past),
            ("past_value", TensorProto.FLOAT, past),
        ],
        [
            ("y", TensorProto.FLOAT, shape),
            ("present_key", TensorProto.FLOAT, present),
            ("present_value", TensorProto.FLOAT, present),
        ],
        opset=24,
    )
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in (shape, shape, shape, past, past)]
    names = [value.name for value in proto.graph.input]
    expected = ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))
    for actual, wanted in zip(lighthouse.compile_onnx(proto)(*inputs), expected):
        np.testing.assert_allclose(actual, wanted, rtol=1e-5, atol=1e-6)


def test_ops_without_functions_stay_whole():
    proto = onnx_ingress.load(
        model(
            [helper.make_node("CumSum", ["x", "axis"], ["y"])],
            [("x", TensorProto.FLOAT, [2, 3]), ("axis", TensorProto.INT64, [])],
            [("y", TensorProto.FLOAT, [2, 3])],
        )
    )
    # ONNX defines CumSum by no function, and knows no Frobnicate.
    assert _onnx_fold.expand_functions(proto, {"CumSum", "Frobnicate"}) is proto


def reference(proto, *inputs):
    names = [value.name for value in proto.graph.input]
    return ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))[0]


def sum_over_axes_input():
    return model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        [("x", TensorProto.FLOAT, [3, 2, 4]), ("axes", TensorProto.INT64, [1])],
        [("y", TensorProto.FLOAT, ["a", "b"])],
    )


def test_axes_given_as_a_graph_input_are_compiled_for_by_value():
    proto = sum_over_axes_input()
    compiled = lighthouse.compile_onnx(proto)
    assert isinstance(compiled, lighthouse.compiler.SpecializedModule)
    assert compiled.specialized_inputs == ("axes",)
    assert "torch.aten.sum.dim_IntList" in compiled.reason
    x = np.random.default_rng(6).standard_normal((3, 2, 4)).astype(np.float32)
    for axis in [1, -1, 0, 1]:
        axes = np.array([axis], np.int64)
        np.testing.assert_allclose(compiled(x, axes), reference(proto, x, axes), rtol=1e-6)
    # Each value is compiled once; the code takes the other inputs.
    one = compiled.specialization(x, np.array([1], np.int64))
    assert one is compiled.specialization(x + 1, np.array([1], np.int64))
    assert len(one.arguments) == 1
    assert one is not compiled.specialization(x, np.array([2], np.int64))
    # Its compilations' stages, added up, as a CompiledModule has them.
    assert compiled.timings["jit"] >= one.timings["jit"] > 0


def test_values_that_do_not_fit_the_model_are_refused_at_the_call():
    compiled = lighthouse.compile_onnx(sum_over_axes_input())
    x = np.zeros((3, 2, 4), np.float32)
    with pytest.raises(TypeError, match=r"argument 1 \(axes\): expected int64 elements, got int32"):
        compiled(x, np.array([1], np.int32))
    with pytest.raises(ValueError, match=r"argument 1 \(axes\): expected shape \(1,\), got \(2,\)"):
        compiled(x, np.array([1, 2], np.int64))
    # ONNX's shape inference refuses the value; so does every later call.
    for _ in range(2):
        with pytest.raises(ValueError, match=r"cannot take axes=\[3\]: .*axis must be in"):
            compiled(x, np.array([3], np.int64))
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        compiled(x)


def test_a_specialization_is_saved_and_loaded(tmp_path):
    proto = sum_over_axes_input()
    compiled = lighthouse.compile_onnx(proto)
    axes = np.array([2], np.int64)
    with pytest.raises(TypeError, match=r"compiled at each call for the values of its inputs axes"):
        compiled.save(tmp_path / "all")
    compiled.specialization(np.zeros((3, 2, 4), np.float32), axes).save(tmp_path / "axis2")
    loaded = lighthouse.compiler.load(tmp_path / "axis2")
    x = np.arange(24, dtype=np.float32).reshape(3, 2, 4)
    np.testing.assert_array_equal(loaded(x), reference(proto, x, axes))


INT64 = (TensorProto.INT64, np.int64)


@pytest.mark.parametrize(
    "nodes, inputs",
    [
        (  # Slice's starts, ends and steps
            [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
            [
                ("starts", INT64, [0, 3]),
                ("ends", INT64, [3, 0]),
                ("axes", INT64, [0, 1]),
                ("steps", INT64, [1, -1]),
            ],
        ),
        (  # CumSum's axis, through a Cast
            [
                helper.make_node("Cast", ["axis"], ["axis64"], to=TensorProto.INT64),
                helper.make_node("CumSum", ["x", "axis64"], ["y"], reverse=1),
            ],
            [("axis", (TensorProto.INT32, np.int32), 1)],
        ),
        (  # Pad's pads
            [helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")],
            [("pads", INT64, [0, 1, 0, 2])],
        ),
    ],
    ids=["slice", "cumsum", "pad"],
)
def test_shape_operands_of_other_ops_are_compiled_for_by_value(nodes, inputs):
    proto = model(
        nodes,
        [("x", TensorProto.FLOAT, [4, 5])]
        + [(name, kind, np.shape(value)) for name, (kind, _), value in inputs],
        [("y", TensorProto.FLOAT, ["a", "b"])],
    )
    compiled = lighthouse.compile_onnx(proto, pipeline="default")
    assert compiled.specialized_inputs == tuple(name for name, _, _ in inputs)
    x = np.random.default_rng(7).standard_normal((4, 5)).astype(np.float32)
    values = [np.array(value, dtype) for _, (_, dtype), value in inputs]
    np.testing.assert_allclose(compiled(x, *values), reference(proto, x, *values), rtol=1e-6)


def test_axes_computed_from_data_are_not_compiled_for_by_value():
    """Axes that depend on a larger input (here its argmax) come from data:
    the model is not compiled for each of its values, and fails as before."""
    proto = model(
        [
            helper.make_node("ArgMax", ["w"], ["axes"], keepdims=1),
            helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0),
        ],
        [("x", TensorProto.FLOAT, [3, 2, 4]), ("w", TensorProto.FLOAT, [65])],
        [("y", TensorProto.FLOAT, ["a", "b"])],
    )
    with pytest.raises(onnx_ingress.LoweringError, match="ReduceSum"):
        lighthouse.compile_onnx(proto)


def test_sizes_the_failing_nodes_data_is_computed_from_are_compiled_for_by_value():
    """ONNX's function of AffineGrid: the grid it transposes is made of
    Ranges to the sizes an If's branches read from the `size` input by
    name. The lowering fails at the Transpose of data of unknown shape."""
    from lighthouse.ingress.onnx import fold as _onnx_fold

    proto = model(
        [helper.make_node("AffineGrid", ["theta", "size"], ["grid"])],
        [("theta", TensorProto.FLOAT, [2, 2, 3]), ("size", TensorProto.INT64, [4])],
        [("grid", TensorProto.FLOAT, [2, 5, 6, 2])],
        opset=20,
    )
    expanded = _onnx_fold.expand_functions(onnx_ingress.load(proto), {"AffineGrid"})
    assert "AffineGrid" not in op_types(expanded)
    compiled = lighthouse.compile_onnx(expanded)
    assert compiled.specialized_inputs == ("size",)
    theta = np.random.default_rng(3).standard_normal((2, 2, 3)).astype(np.float32)
    size = np.array([2, 3, 5, 6], np.int64)
    np.testing.assert_allclose(
        compiled(theta, size), reference(proto, theta, size), rtol=1e-5, atol=1e-6
    )


def vector(name, shape, kind=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, kind, shape)


def loop_body(stop_early=False):
    """x += i, and x * x stacked at each iteration; with `stop_early`, the
    loop goes on while i < 2 only."""
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x_in", "fi"], ["x_out"]),
        helper.make_node("Mul", ["x_out", "x_out"], ["square"]),
    ]
    if stop_early:
        nodes += [constant("two", 2), helper.make_node("Less", ["i", "two"], ["go_on"])]
    else:
        nodes.append(helper.make_node("Identity", ["go_on_in"], ["go_on"]))
    return helper.make_graph(
        nodes,
        "body",
        [
            vector("i", [], TensorProto.INT64),
            vector("go_on_in", [], TensorProto.BOOL),
            vector("x_in", [3]),
        ],
        [vector("go_on", [], TensorProto.BOOL), vector("x_out", [3]), vector("square", [3])],
    )


def loop_model(trip=None, stop_early=False):
    """A Loop with a scan output, run `trip` times, or as many times as the
    graph input `trip` says."""
    initializers = [numpy_helper.from_array(np.array(True), "go")]
    inputs = [("x", TensorProto.FLOAT, [3])]
    if trip is None:
        inputs.append(("trip", TensorProto.INT64, []))
    else:
        initializers.append(numpy_helper.from_array(np.array(trip, np.int64), "trip"))
    return model(
        [
            helper.make_node(
                "Loop", ["trip", "go", "x"], ["y", "squares"], body=loop_body(stop_early)
            )
        ],
        inputs,
        [("y", TensorProto.FLOAT, [3]), ("squares", TensorProto.FLOAT, ["n", 3])],
        initializers=initializers,
    )


def test_a_loops_scan_output_becomes_a_loop_carried_value():
    proto = loop_model(trip=4)
    rewritten = _onnx_loops.loops_of_carried_values(onnx_ingress.load(proto))
    loop = next(node for node in rewritten.graph.node if node.op_type == "Loop")
    body = helper.get_attribute_value(loop.attribute[0])
    # One more loop-carried value, written with ScatterND, and no scan output.
    assert len(loop.input) == 4 and len(body.input) == 4 and len(body.output) == 3
    assert "ScatterND" in [node.op_type for node in body.node]
    x = np.array([0.5, 1.0, -2.0], np.float32)
    y, squares = lighthouse.compile_onnx(proto)(x)
    expected_y, expected_squares = ReferenceEvaluator(proto).run(None, {"x": x})
    np.testing.assert_allclose(y, expected_y, rtol=1e-6)
    np.testing.assert_allclose(squares, expected_squares, rtol=1e-6)


def test_a_loop_run_as_many_times_as_an_input_says_is_compiled_for_its_value():
    proto = loop_model()
    compiled = lighthouse.compile_onnx(proto, pipeline="default")
    assert compiled.specialized_inputs == ("trip",)
    x = np.array([0.5, 1.0, -2.0], np.float32)
    for trip in [2, 5]:
        trip = np.array(trip, np.int64)
        _, squares = compiled(x, trip)
        assert squares.shape == (int(trip), 3)
        np.testing.assert_allclose(
            squares, ReferenceEvaluator(proto).run(None, {"x": x, "trip": trip})[1], rtol=1e-6
        )


def test_a_loop_that_may_stop_early_is_left_as_it_is():
    """Its scan output's length is known only once it has run."""
    proto = loop_model(trip=4, stop_early=True)
    loaded = onnx_ingress.load(proto)
    assert _onnx_loops.loops_of_carried_values(loaded) is loaded
    with pytest.raises(onnx_ingress.LoweringError, match="onnx.Loop"):
        lighthouse.compile_onnx(proto)


def scan_body():
    """A running sum and product of the rows it is given; the sum, and the
    row times the sum, stacked."""
    return helper.make_graph(
        [
            helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
            helper.make_node("Mul", ["product_in", "row"], ["product_out"]),
            helper.make_node("Mul", ["row", "sum_out"], ["scaled"]),
            helper.make_node("Identity", ["sum_out"], ["sum_seen"]),
        ],
        "body",
        [vector("sum_in", [2]), vector("product_in", [2]), vector("row", [2])],
        [
            vector("sum_out", [2]),
            vector("product_out", [2]),
            vector("scaled", [2]),
            vector("sum_seen", [2]),
        ],
    )


@pytest.mark.parametrize(
    "opset, attributes",
    [
        (18, {}),
        # Rows along axis 1, taken from the last; stacked along axis 1, and
        # the second from the last.
        (
            18,
            dict(
                scan_input_axes=[1],
                scan_input_directions=[1],
                scan_output_axes=[1, 0],
                scan_output_directions=[0, 1],
            ),
        ),
        (9, {}),  # converted to opset 13, where torch-mlir converts Loop
    ],
    ids=["forward", "reversed-axes", "opset-9"],
)
def test_scan_becomes_a_loop(opset, attributes):
    along_columns = attributes.get("scan_input_axes") == [1]
    rows = [2, 4] if along_columns else [4, 2]
    proto = model(
        [
            helper.make_node(
                "Scan",
                ["sum", "product", "rows"],
                ["total", "product_all", "scaled", "sums"],
                body=scan_body(),
                num_scan_inputs=1,
                **attributes,
            )
        ],
        [
            ("sum", TensorProto.FLOAT, [2]),
            ("product", TensorProto.FLOAT, [2]),
            ("rows", TensorProto.FLOAT, rows),
        ],
        [
            ("total", TensorProto.FLOAT, [2]),
            ("product_all", TensorProto.FLOAT, [2]),
            ("scaled", TensorProto.FLOAT, [2, 4] if along_columns else [4, 2]),
            ("sums", TensorProto.FLOAT, [4, 2]),
        ],
        opset=opset,
    )
    rewritten = _onnx_loops.loops_of_carried_values(onnx_ingress.load(proto))
    assert "Scan" not in op_types(rewritten) and "Loop" in op_types(rewritten)
    rng = np.random.default_rng(8)
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in ([2], [2], rows)]
    results = lighthouse.compile_onnx(proto)(*inputs)
    for result, expected in zip(results, scanned(*inputs, **attributes)):
        np.testing.assert_allclose(result, expected, rtol=1e-5)


def scanned(total, product, rows, **attributes):
    """What the Scan of `scan_body` computes, as ONNX defines Scan (ONNX's
    reference evaluator takes no reverse direction)."""
    axis = attributes.get("scan_input_axes", [0])[0]
    order = range(rows.shape[axis])
    if attributes.get("scan_input_directions", [0])[0]:
        order = reversed(order)
    scaled, sums = [], []
    for index in order:
        row = np.take(rows, index, axis=axis)
        total = total + row
        product = product * row
        scaled.append(row * total)
        sums.append(total)
    stacked = []
    for values, output_axis, direction in zip(
        [scaled, sums],
        attributes.get("scan_output_axes", [0, 0]),
        attributes.get("scan_output_directions", [0, 0]),
    ):
        stacked.append(np.stack(values[::-1] if direction else values, axis=output_axis))
    return [total, product, *stacked]


def test_a_model_of_an_early_opset_is_converted_when_it_fails_to_lower():
    """torch-mlir converts ReduceMin without axes (all of them) only in its
    form of opset 18 and later, which the model is converted to."""
    proto = model(
        [helper.make_node("ReduceMin", ["x"], ["y"], keepdims=0)],
        [("x", TensorProto.FLOAT, [2, 3])],
        [("y", TensorProto.FLOAT, [])],
        opset=11,
    )
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError, match="onnx.ReduceMin"):
        onnx_ingress.lower_to_linalg(onnx_ingress.import_model(proto))
    x = np.random.default_rng(9).standard_normal((2, 3)).astype(np.float32)
    check_compiled(proto, x)


def resize_model(operands, attributes, output_shape, input_shape=(1, 1, 2, 4)):
    """A Resize (nearest, unless `attributes` say) of an image by constant
    `operands` (roi, scales, sizes)."""
    operands = {"roi": None, "scales": None, "sizes": None, **operands}
    initializers = [
        numpy_helper.from_array(np.array(value, np.int64 if name == "sizes" else np.float32), name)
        for name, value in operands.items()
        if value is not None
    ]
    names = [name if operands.get(name) is not None else "" for name in ("roi", "scales", "sizes")]
    while not names[-1]:
        names.pop()
    return model(
        [helper.make_node("Resize", ["x", *names], ["y"], **{"mode": "nearest", **attributes})],
        [("x", TensorProto.FLOAT, list(input_shape))],
        [("y", TensorProto.FLOAT, output_shape)],
        opset=19,
        initializers=initializers,
    )


@pytest.mark.parametrize(
    "operands, attributes, output_shape",
    [
        ({"scales": [2.0, 3.0]}, {"axes": [2, 3]}, [1, 1, 4, 12]),
        ({"roi": None, "scales": None, "sizes": [3, 6]}, {"axes": [2, 3]}, [1, 1, 3, 6]),
        # One scale for both axes, 2 (the smaller): 4x8 rather than 5x8.
        (
            {"sizes": [5, 8]},
            {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"},
            [1, 1, 4, 8],
        ),
    ],
    ids=["scales-of-axes", "sizes-of-axes", "not-larger"],
)
def test_a_resize_of_some_axes_becomes_one_of_every_axis(operands, attributes, output_shape):
    proto = resize_model(operands, attributes, output_shape)
    plain = next(
        n
        for n in onnx_ingress.prepared(onnx_ingress.load(proto)).graph.node
        if n.op_type == "Resize"
    )
    assert {a.name for a in plain.attribute} == {"mode"}
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)
    check_compiled(proto, x)


def test_a_kept_aspect_ratio_the_plain_form_would_not_keep_is_lighthouses_function():
    """Sizes 1x3 of a 2x4 image, not smaller: the scale 0.75 gives 2x3,
    which stretched would interpolate the 2 rows by 1, not by 0.75. The
    Resize stays as it is, and torch-mlir cannot convert it: lighthouse's
    function interpolates by 0.75."""
    proto = resize_model(
        {"roi": None, "scales": None, "sizes": [1, 3]},
        {"axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"},
        [1, 1, 2, 3],
    )
    assert "Resize" in op_types(onnx_ingress.prepared(onnx_ingress.load(proto)))
    check_compiled(proto, np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4))


@pytest.mark.parametrize(
    "a_shape, b_shape, y_shape",
    [([3], [2, 4, 3, 5], [2, 4, 5]), ([2, 4, 3, 5], [5], [2, 4, 3])],
    ids=["vector-times-stack", "stack-times-vector"],
)
@pytest.mark.parametrize("opset", [11, 18])
def test_a_matmul_of_a_vector_and_a_stack_of_matrices(a_shape, b_shape, y_shape, opset):
    proto = model(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        [("a", TensorProto.FLOAT, a_shape), ("b", TensorProto.FLOAT, b_shape)],
        [("y", TensorProto.FLOAT, y_shape)],
        opset=opset,
    )
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in (a_shape, b_shape))
    check_compiled(proto, a, b)


#: Gates of each recurrence.
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def recurrence(op_type, direction, layout=0, lens=False, peepholes=False, **attributes):
    """An `op_type` over 4 steps of a batch of 2, with biases and initial
    states, all outputs graph outputs."""
    steps, batch, features, hidden = 4, 2, 3, 5
    dirs = 2 if direction == "bidirectional" else 1
    gates = GATES[op_type]
    state = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    operands = [
        ("x", [batch, steps, features] if layout else [steps, batch, features]),
        ("w", [dirs, gates * hidden, features]),
        ("r", [dirs, gates * hidden, hidden]),
        ("b", [dirs, 2 * gates * hidden]),
        ("lens", [batch]),
        ("h0", state),
    ]
    if op_type == "LSTM":
        operands += [("c0", state)] + ([("p", [dirs, 3 * hidden])] if peepholes else [])
    outputs = [
        ("y", [batch, steps, dirs, hidden] if layout else [steps, dirs, batch, hidden]),
        ("y_h", state),
    ] + ([("y_c", state)] if op_type == "LSTM" else [])
    node = helper.make_node(
        op_type,
        [name if name != "lens" or lens else "" for name, _ in operands],
        [name for name, _ in outputs],
        direction=direction,
        hidden_size=hidden,
        layout=layout,
        **attributes,
    )
    proto = model(
        [node],
        [
            (name, TensorProto.INT32 if name == "lens" else TensorProto.FLOAT, shape)
            for name, shape in operands
            if name != "lens" or lens
        ],
        [(name, TensorProto.FLOAT, shape) for name, shape in outputs],
        opset=14,
    )
    rng = np.random.default_rng(len(op_type) + layout)
    inputs = [
        np.array([4, 2], np.int32)
        if name == "lens"
        else (0.5 * rng.standard_normal(shape)).astype(np.float32)
        for name, shape in operands
        if name != "lens" or lens
    ]
    return proto, inputs


@pytest.mark.parametrize("op_type", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize(
    "direction, layout",
    [("reverse", 0), ("reverse", 1), ("bidirectional", 0), ("bidirectional", 1)],
    ids=["reverse", "reverse-batch-first", "both", "both-batch-first"],
)
def test_recurrences_backwards_or_both_ways_run_as_forward_ones(op_type, direction, layout):
    proto, inputs = recurrence(op_type, direction, layout)
    prepared = onnx_ingress.prepared(onnx_ingress.load(proto))
    directions = [
        helper.get_attribute_value(a).decode()
        for n in prepared.graph.node
        for a in n.attribute
        if n.op_type == op_type and a.name == "direction"
    ]
    assert directions == ["forward"] * (2 if direction == "bidirectional" else 1)
    check_all_outputs(proto, inputs)


@pytest.mark.parametrize(
    "op_type, direction, peepholes",
    [
        (op_type, direction, False)
        for op_type in ("RNN", "GRU", "LSTM")
        for direction in ("forward", "reverse", "bidirectional")
    ]
    + [("LSTM", "forward", True)],
)
def test_recurrences_over_sequences_of_given_lengths(op_type, direction, peepholes):
    """Lengths 4 and 2: the steps past 2 of the second sequence give zeros
    and its last state is that of step 2, as onnxruntime computes them (ONNX's
    reference evaluator ignores the lengths; so does torch-mlir's conversion)."""
    proto, inputs = recurrence(op_type, direction, lens=True, peepholes=peepholes)
    if op_type == "LSTM" and not peepholes:  # Its last cell state is not computed.
        proto.graph.node[0].output[2] = ""
        del proto.graph.output[2]
    check_against_onnxruntime(proto, inputs)


def check_against_onnxruntime(proto, inputs):
    ort = pytest.importorskip("onnxruntime")
    names = [value.name for value in proto.graph.input]
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, dict(zip(names, inputs)))
    got = lighthouse.compile_onnx(proto)(*inputs)
    for value, want in zip(got if isinstance(got, tuple) else (got,), expected, strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_an_lstms_last_cell_state_of_given_lengths_is_that_of_its_last_step():
    proto, inputs = recurrence("LSTM", "forward", lens=True)
    check_against_onnxruntime(proto, inputs)


def test_an_lstms_last_cell_state_of_given_lengths_backwards_is_refused():
    proto, _ = recurrence("LSTM", "reverse", lens=True)
    with pytest.raises(onnx_ingress.LoweringError, match="step by step.*backwards"):
        lighthouse.compile_onnx(proto)


def check_all_outputs(proto, inputs):
    names = [value.name for value in proto.graph.input]
    expected = ReferenceEvaluator(proto).run(None, dict(zip(names, inputs)))
    got = lighthouse.compile_onnx(proto)(*inputs)
    assert len(got) == len(expected)
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "direction, layout",
    [("forward", 0), ("reverse", 1), ("bidirectional", 0)],
)
def test_an_lstm_with_peepholes_is_computed_with_them(direction, layout):
    """torch-mlir's LSTM ignores peepholes: lighthouse scans the steps."""
    proto, inputs = recurrence("LSTM", direction, layout, peepholes=True)
    assert "LSTM" not in op_types(onnx_ingress.prepared(onnx_ingress.load(proto)))
    check_all_outputs(proto, inputs)


def test_an_lstm_with_peepholes_and_a_clip_is_refused():
    proto, _ = recurrence("LSTM", "forward", peepholes=True, clip=1.0)
    with pytest.raises(onnx_ingress.LoweringError, match="peepholes.*clip=1.0"):
        lighthouse.compile_onnx(proto)


def test_both_ways_with_alphas_of_activations_is_left_as_it_is():
    proto, _ = recurrence(
        "RNN", "bidirectional", activations=["LeakyRelu", "Tanh"], activation_alpha=[0.1]
    )
    prepared = onnx_ingress.prepared(onnx_ingress.load(proto))
    assert op_types(prepared) == ["RNN"]


RESIZES = [
    {"mode": "linear", "antialias": 1},
    {"mode": "cubic", "antialias": 1, "cubic_coeff_a": -0.5},
    {"mode": "cubic", "exclude_outside": 1, "cubic_coeff_a": -0.5},
    {"mode": "cubic", "coordinate_transformation_mode": "pytorch_half_pixel"},
    {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
    {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"},
    {"mode": "nearest", "coordinate_transformation_mode": "align_corners", "nearest_mode": "floor"},
    {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "ceil"},
    {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
]


@pytest.mark.parametrize("attributes", RESIZES, ids=lambda a: "-".join(map(str, a.values())))
@pytest.mark.parametrize(
    "operands, output_shape",
    [
        ({"scales": [1.0, 1.0, 0.6, 1.7]}, [1, 2, 3, 8]),
        ({"sizes": [1, 2, 7, 2]}, [1, 2, 7, 2]),
        ({"roi": [0, 0, 0.2, 0.1, 1, 1, 0.9, 1.3], "sizes": [1, 2, 4, 6]}, [1, 2, 4, 6]),
    ],
    ids=["scales", "sizes", "roi"],
)
def test_lighthouses_resize_function_matches_onnxs_reference(attributes, operands, output_shape):
    """Every mode and coordinate transformation, down and up, along the last
    two axes (one MatMul or Gather each) and on a 5x5 input."""
    from lighthouse.ingress.onnx import fold as _onnx_fold

    if attributes.get("coordinate_transformation_mode") == "tf_crop_and_resize":
        operands = {"roi": [0, 0, 0, 0, 1, 1, 1, 1], **operands}  # It needs one.
    if "roi" in operands:
        attributes = {**attributes, "extrapolation_value": -3.0}
    proto = resize_model(operands, attributes, output_shape, input_shape=(1, 2, 5, 5))
    expanded = _onnx_fold.expand_functions(onnx_ingress.load(proto), {"Resize"})
    assert "Resize" not in op_types(expanded)
    x = np.random.default_rng(8).standard_normal((1, 2, 5, 5)).astype(np.float32)
    (want,) = ReferenceEvaluator(proto).run(None, {"x": x})
    (got,) = ReferenceEvaluator(expanded).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_resize_torch_mlir_does_not_convert_is_compiled_as_lighthouses_function():
    proto = resize_model(
        {"scales": [1.0, 1.0, 0.5, 0.5]}, {"mode": "linear", "antialias": 1}, [1, 1, 1, 2]
    )
    check_compiled(proto, np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4))


def grid_sample(mode, padding, aligned, spatial):
    """A GridSample of a 2-channel input of `spatial` size at 3x2 (x2)
    points, some of them past the borders (the grid spans [-1.6, 1.6])."""
    rank = len(spatial)
    points = [3, 2, 2][:rank]
    proto = model(
        [
            helper.make_node(
                "GridSample",
                ["x", "grid"],
                ["y"],
                mode=mode,
                padding_mode=padding,
                align_corners=aligned,
            )
        ],
        [
            ("x", TensorProto.FLOAT, [2, 2, *spatial]),
            ("grid", TensorProto.FLOAT, [2, *points, rank]),
        ],
        [("y", TensorProto.FLOAT, [2, 2, *points])],
        opset=22,
    )
    rng = np.random.default_rng(rank)
    x = rng.standard_normal((2, 2, *spatial)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (2, *points, rank)).astype(np.float32)
    # Points exactly between positions: nearest rounds them half to even.
    grid.reshape(-1)[:2] = [-0.5, 0.25]
    return proto, x, grid


@pytest.mark.parametrize("aligned", [0, 1])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize(
    "mode, spatial",
    [("nearest", [3, 4]), ("linear", [3, 4]), ("cubic", [3, 4]), ("linear", [2, 3, 4])],
    ids=["nearest", "linear", "cubic", "linear-3d"],
)
def test_grid_sample_is_computed_by_gathers_at_its_taps(mode, spatial, padding, aligned):
    proto, x, grid = grid_sample(mode, padding, aligned, spatial)
    prepared = onnx_ingress.prepared(onnx_ingress.load(proto))
    assert "GridSample" not in op_types(prepared)
    (want,) = ReferenceEvaluator(proto).run(None, {"x": x, "grid": grid})
    (got,) = ReferenceEvaluator(prepared).run(None, {"x": x, "grid": grid})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "cubic"])
def test_grid_sample_compiles(mode):
    proto, x, grid = grid_sample(mode, "reflection", 0, [3, 4])
    check_compiled(proto, x, grid)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_of_weighted_rows(reduction):
    """Averaged, torch-mlir's conversion summed the weights as integers: the
    loss of weights below 1 was inf. Expanded into ONNX's function instead."""
    proto = model(
        [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "y", "w"], ["z"], reduction=reduction)],
        [
            ("x", TensorProto.FLOAT, [3, 5]),
            ("y", TensorProto.INT64, [3]),
            ("w", TensorProto.FLOAT, [5]),
        ],
        [("z", TensorProto.FLOAT, [3] if reduction == "none" else [])],
        opset=13,
    )
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    w = rng.uniform(0.1, 0.9, 5).astype(np.float32)
    check_compiled(proto, x, np.array([0, 2, 4]), w)


def random_inputs(proto, seed=5):
    """Inputs for `proto`'s graph inputs: floats, and small integers."""
    rng = np.random.default_rng(seed)
    values = []
    for value in proto.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        if np.issubdtype(dtype, np.floating):
            values.append(rng.standard_normal(shape).astype(dtype))
        else:
            values.append(rng.integers(-3 if dtype.kind == "i" else 0, 4, shape).astype(dtype))
    return values


LIGHTHOUSE_FUNCTIONS = {
    "qlinearmatmul-stacked-int8": (
        helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"]),
        [
            ("a", TensorProto.INT8, [2, 2, 4]),
            ("b", TensorProto.INT8, [2, 4, 3]),
        ],
        [("y", TensorProto.INT8, [2, 2, 3])],
        21,
        {"sa": 0.05, "za": 1, "sb": 0.2, "zb": -2, "sy": 0.01, "zy": 3},
    ),
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
    "lppool-same-upper-dilated": (
        helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 3], auto_pad="SAME_UPPER", p=3),
        [("x", TensorProto.FLOAT, [1, 2, 5, 6])],
        [("y", TensorProto.FLOAT, [1, 2, 5, 6])],
        18,
        {},
    ),
    "convtranspose-groups-same-upper": (
        helper.make_node(
            "ConvTranspose", ["x", "w", "b"], ["y"], group=2, strides=[2, 2], auto_pad="SAME_UPPER"
        ),
        [
            # ONNX's reference evaluator takes one output channel per group only.
            ("x", TensorProto.FLOAT, [1, 2, 3, 3]),
            ("w", TensorProto.FLOAT, [2, 1, 3, 3]),
            ("b", TensorProto.FLOAT, [2]),
        ],
        [("y", TensorProto.FLOAT, [1, 2, 6, 6])],
        18,
        {},
    ),
    "col2im-strided-dilated-padded": (
        helper.make_node(
            "Col2Im",
            ["columns", "image", "block"],
            ["y"],
            strides=[2, 1],
            dilations=[1, 2],
            pads=[1, 0, 0, 1],
        ),
        # 2 channels of 2x2 blocks over a 3x3 grid of positions.
        [("columns", TensorProto.FLOAT, [1, 8, 9])],
        [("y", TensorProto.FLOAT, [1, 2, 5, 4])],
        18,
        {"image": [5, 4], "block": [2, 2]},
    ),
    "lpnormalization-of-zeros": (
        helper.make_node("LpNormalization", ["x"], ["y"], axis=0, p=2),
        [("x", TensorProto.FLOAT, [2, 3])],
        [("y", TensorProto.FLOAT, [2, 3])],
        22,
        {},
    ),
    "spacetodepth-crd": (
        helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=2, mode="CRD"),
        [("x", TensorProto.FLOAT, [1, 2, 4, 6])],
        [("y", TensorProto.FLOAT, [1, 8, 2, 3])],
        28,
        {},
    ),
    "pad-wrapped-and-cropped": (
        helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap"),
        [("x", TensorProto.INT32, [1, 3, 4])],
        [("y", TensorProto.INT32, [1, 8, 3])],
        19,
        {"pads": [0, 4, 0, 0, 1, -1]},
    ),
    "bitcast-int8-to-uint8": (
        helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.UINT8),
        [("x", TensorProto.INT8, [2, 5])],
        [("y", TensorProto.UINT8, [2, 5])],
        26,
        {},
    ),
    "compress-flattened": (
        helper.make_node("Compress", ["x", "keep"], ["y"]),
        [("x", TensorProto.FLOAT, [2, 3]), ("keep", TensorProto.BOOL, [4])],
        [("y", TensorProto.FLOAT, ["selected"])],
        11,
        {},
    ),
    "deformconv-strided-padded-masked-two-offset-groups": (
        helper.make_node(
            "DeformConv",
            ["x", "w", "offset", "b", "mask"],
            ["y"],
            strides=[2, 1],
            dilations=[1, 2],
            pads=[1, 0, 0, 1],
            offset_group=2,
        ),
        [
            ("x", TensorProto.FLOAT, [2, 4, 5, 6]),
            ("w", TensorProto.FLOAT, [3, 4, 2, 2]),
            # 2 offset groups x 4 taps x (dy, dx) over a 3x5 output.
            ("offset", TensorProto.FLOAT, [2, 16, 3, 5]),
            ("b", TensorProto.FLOAT, [3]),
            ("mask", TensorProto.FLOAT, [2, 8, 3, 5]),
        ],
        [("y", TensorProto.FLOAT, [2, 3, 3, 5])],
        22,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """Each op in a form torch-mlir does not convert, or converts wrong.
    (ONNX's reference adds the first group's bias to every group of a
    grouped ConvTranspose.)"""
    node, inputs, outputs, opset, constants = LIGHTHOUSE_FUNCTIONS[name]
    initializers = [
        numpy_helper.from_array(
            np.array(value, np.float32 if isinstance(value, float) else np.int64), key
        )
        for key, value in constants.items()
    ]
    for tensor in initializers:  # Zero points of the inputs' integer type.
        if tensor.name.startswith("z"):
            tensor.data_type = TensorProto.INT8
            tensor.ClearField("int64_data")
            tensor.raw_data = np.array(constants[tensor.name], np.int8).tobytes()
    proto = model([node], inputs, outputs, opset=opset, initializers=initializers)
    values = random_inputs(proto)
    if name == "lpnormalization-of-zeros":
        values[0][:, 1] = 0
    check_against_onnxruntime(proto, values)


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


@pytest.mark.parametrize("op_type", ["Binarizer", "ArrayFeatureExtractor"])
def test_onnx_ml_ops_of_a_model_of_that_domain_alone(op_type):
    """A model importing ai.onnx.ml only: its ops in the default domain's
    forms, whose opset it is given."""
    node = (
        helper.make_node(op_type, ["x"], ["y"], domain="ai.onnx.ml", threshold=0.25)
        if op_type == "Binarizer"
        else helper.make_node(op_type, ["x", "at"], ["y"], domain="ai.onnx.ml")
    )
    graph = helper.make_graph(
        [node],
        "ml",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])]
        + ([helper.make_tensor_value_info("at", TensorProto.INT64, [2])] if node.input[1:] else []),
        [
            helper.make_tensor_value_info(
                "y", TensorProto.FLOAT, [3, 4 if op_type == "Binarizer" else 2]
            )
        ],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 1)])
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    inputs = [x] if op_type == "Binarizer" else [x, np.array([3, 0], np.int64)]
    check_against_onnxruntime(proto, inputs)


def branches():
    """A then branch doubling x, an else branch giving its first two elements."""
    then_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["doubled"])], "then", [], [vector("doubled", [3])]
    )
    else_branch = helper.make_graph(
        [
            constant("starts", [0]),
            constant("ends", [2]),
            helper.make_node("Slice", ["x", "starts", "ends"], ["head"]),
        ],
        "else",
        [],
        [vector("head", [2])],
    )
    return {"then_branch": then_branch, "else_branch": else_branch}


@pytest.mark.parametrize("condition", [True, False])
def test_an_if_of_a_constant_condition_becomes_the_branch_it_takes(condition):
    proto = model(
        [helper.make_node("If", ["go"], ["y"], **branches())],
        [("x", TensorProto.FLOAT, [3])],
        [("y", TensorProto.FLOAT, ["n"])],
        initializers=[numpy_helper.from_array(np.array(condition), "go")],
    )
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    assert "If" not in op_types(folded)
    assert ("Add" in op_types(folded)) == condition
    check_compiled(proto, np.array([1.0, -2.0, 3.5], np.float32))


def test_an_if_of_a_condition_given_as_input_is_compiled_for_its_value():
    """Of two branches giving constants, torch-mlir makes an arith.select of
    tensors, which its backend contract refuses; compiled for the value of
    the condition, the If is the branch it takes."""

    def branch(name, values):
        return helper.make_graph(
            [constant(name, values)], name, [], [vector(name, [3], TensorProto.INT64)]
        )

    proto = model(
        [
            helper.make_node(
                "If",
                ["go"],
                ["y"],
                then_branch=branch("ones", [1, 1, 1]),
                else_branch=branch("twos", [2, 2, 2]),
            )
        ],
        [("go", TensorProto.BOOL, [])],
        [("y", TensorProto.INT64, [3])],
    )
    compiled = lighthouse.compile_onnx(proto)
    assert compiled.specialized_inputs == ("go",)
    for condition in [True, False, True]:
        condition = np.array(condition)
        np.testing.assert_array_equal(compiled(condition), reference(proto, condition))


@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 1)])
def test_cumprod_is_expanded_into_lighthouses_function_of_it(exclusive, reverse):
    """ONNX defines CumProd by no function, and torch-mlir converts it not:
    lighthouse's function of it is a Scan along the axis (then a Loop)."""
    proto = model(
        [helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)],
        [("x", TensorProto.FLOAT, [3, 4])],
        [("y", TensorProto.FLOAT, [3, 4])],
        opset=26,
        initializers=[numpy_helper.from_array(np.array(1, np.int64), "axis")],
    )
    with ir.Context():
        raw, _ = onnx_ingress.import_and_lower(proto)
    assert '"onnx.CumProd"' not in str(raw) and '"onnx.Loop"' in str(raw)
    x = np.random.default_rng(10).uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    check_compiled(proto, x)


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
