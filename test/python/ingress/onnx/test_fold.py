"""Values the lowering needs as constants (axes, shapes, bounds) folded when
computed from constants, Ifs of a constant condition made the branch they
take (lighthouse.ingress.onnx.fold). On ONNX models built with onnx.helper,
compiled and checked against ONNX's reference evaluator."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_graphs import check_compiled, constant, model, op_types, vector  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress.onnx import fold as _onnx_fold  # noqa: E402


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


@pytest.mark.parametrize("index", [1, -1], ids=["index", "negative index"])
def test_static_sizes_gathered_from_a_dynamic_shape_fold(index):
    """The last size of [batch, 6] is 6 at any batch: a padding computed
    from it (as a Swin's windows are) folds to a constant, and the Pad's
    result has a static size, where the Shape of the whole does not fold."""
    proto = model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            constant("at", [index]),
            helper.make_node("Gather", ["shape", "at"], ["width"]),
            constant("window", [4]),
            helper.make_node("Mod", ["width", "window"], ["rest"]),
            helper.make_node("Sub", ["window", "rest"], ["missing"]),
            constant("zeros", [0, 0, 0]),
            helper.make_node("Concat", ["zeros", "missing"], ["pads"], axis=0),
            helper.make_node("Pad", ["x", "pads"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, ["batch", 6])],
        [("y", TensorProto.FLOAT, ["batch", None])],
    )
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    assert op_types(folded) == ["Constant", "Pad"]
    y_type = next(v for v in folded.graph.output if v.name == "y").type.tensor_type
    assert y_type.shape.dim[1].dim_value == 8
    x = np.random.default_rng(6).standard_normal((3, 6)).astype(np.float32)
    check_compiled(proto, x)


def test_dynamic_sizes_gathered_from_a_shape_do_not_fold():
    proto = sum_over_gathered_axis()
    proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    assert "Gather" in op_types(folded)


@pytest.mark.parametrize(
    "starts, ends, y_dims",
    [
        ([-1], [np.iinfo(np.int64).max], [None, 6]),
        ([1], [3], [None, 4, 6]),
        ([0], [1], [None, None]),
    ],
    ids=["last", "static", "dynamic"],
)
def test_static_sizes_sliced_from_a_dynamic_shape_fold(starts, ends, y_dims):
    """TorchScript exports `x.reshape(-1, x.size(-1))` with a Slice of x's
    Shape: of [batch, 4, 6], the sizes from 1 fold at any batch (and the
    Reshape's target with them), the batch does not."""
    proto = model(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            constant("starts", starts),
            constant("ends", ends),
            helper.make_node("Slice", ["shape", "starts", "ends"], ["sizes"]),
            constant("inferred", [-1]),
            helper.make_node("Concat", ["inferred", "sizes"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, ["batch", 4, 6])],
        [("y", TensorProto.FLOAT, y_dims)],
    )
    folded = _onnx_fold.fold_constants(onnx_ingress.load(proto))
    assert ("Slice" in op_types(folded)) == (starts == [0])
    x = np.random.default_rng(8).standard_normal((3, 4, 6)).astype(np.float32)
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
                onnx_ingress.import_loaded(
                    _onnx_fold.expand_functions(onnx_ingress.load(proto), ["RMSNormalization"])
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
