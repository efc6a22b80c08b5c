"""RNN, GRU and LSTM backwards, both ways, over sequences of given lengths
and with peepholes (lighthouse.ingress.onnx.rules.recurrences), checked
against ONNX's reference evaluator or onnxruntime."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_graphs import check_against_onnxruntime, model, op_types  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402


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
