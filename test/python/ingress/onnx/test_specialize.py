"""Graph inputs whose values the lowering needs as constants (axes, shape
operands, sizes, an If's condition), compiled for by value
(lighthouse.ingress.onnx.specialize, lighthouse.execution.specialized):
the values a call gives checked against the model, a specialization
saved and loaded; what is computed from data is not compiled for."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import constant, model, op_types, reference, vector  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


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
