"""Scans, and Loops with scan outputs, made Loops of loop-carried values
(lighthouse.ingress.onnx.loops), compiled and checked against ONNX's
reference evaluator or Scan's definition."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_graphs import constant, model, op_types, vector  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress.onnx import loops as _onnx_loops  # noqa: E402


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
