"""ONNX's RNN, GRU and LSTM in the forms torch-mlir converts correctly:
forward ones without sequence lengths. torch-mlir converts neither direction
but forward of RNN and GRU, nor a reverse LSTM, and it ignores both
`sequence_lens` and LSTM's peepholes (`P`), silently.

A reverse recurrence is the forward one over the input reversed in time,
whose per-step outputs `Y` are reversed back; its last state (`Y_h`, `Y_c`)
is the forward one's. Reversed within each sequence's length when the node
has `sequence_lens` (ReverseSequence), along the whole time axis otherwise
(Gather of the steps backwards). A bidirectional recurrence is a forward
and a reverse one, each with its direction's weights, biases and initial
states (Gather of index 0 or 1 along the direction axis), its outputs
concatenated along that axis again. Activations are given one list for both
directions, forward first; `activation_alpha` and `activation_beta` are
consumed only by the activations that take them, so a bidirectional node
with either is left as it is.

Sequence lengths are applied to the outputs of a run without them: a step's
state depends on the earlier steps alone, so the steps past a sequence's
length are set to zeros in Y, and its last state is gathered from Y at its
last step. Both need the number of steps static.

An LSTM with peepholes that are not constant zeros, or with sequence
lengths and its last cell state used (which Y does not give), is computed
by lighthouse as a Scan of its step over the time axis per direction (then
a Loop, `loops`), with ONNX's default activations; one with other
activations, `clip`, `input_forget`, or sequence lengths and running
backwards, is refused, naming them.
"""

from typing import List, Optional

from ..values import along_axis, attributes_of, constant_node, text_of
from ....errors import LoweringError
from ...torch_mlir import require
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")

__all__ = ["forward_recurrences"]

#: The operands of each op split by direction along axis 0 (W, R, B, P;
#: the initial states are along the layout's direction axis), by position.
_WEIGHTS = {"RNN": (1, 2, 3), "GRU": (1, 2, 3), "LSTM": (1, 2, 3, 7)}
_STATES = {"RNN": (5,), "GRU": (5,), "LSTM": (5, 6)}
_SEQUENCE_LENS = 4
#: Swaps Y's direction and batch axes (of layout 0).
_SWAP = [0, 2, 1, 3]
#: Activations per direction.
_ACTIVATIONS = {"RNN": 1, "GRU": 2, "LSTM": 3}


def forward_recurrences(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """The nodes computing `node`, an RNN, GRU or LSTM, with forward ones
    that have no sequence lengths (or none but the number of steps); None if
    it is one already or cannot be rewritten."""
    node, types, constants, opset = site.node, site.types, site.constants, site.opset
    attributes = attributes_of(node)
    direction = text_of(attributes.get("direction", b"forward"))
    if node.op_type == "LSTM" and _has_peepholes(node, constants):
        return _ScannedLSTM(node, attributes, direction, types, opset).nodes()
    batch_first = attributes.get("layout", 0) == 1
    time_axis = 1 if batch_first else 0
    operands = list(node.input)
    x_type = types.get(operands[0])
    dims = x_type.tensor_type.shape.dim if x_type is not None else []
    steps = None
    if len(dims) == 3 and dims[time_axis].HasField("dim_value"):
        steps = dims[time_axis].dim_value
    lens = operands[_SEQUENCE_LENS] if len(operands) > _SEQUENCE_LENS else ""
    if lens and lens in constants and steps is not None and np.all(constants[lens] == steps):
        lens = ""  # Every sequence as long as the input: no lengths.
    if direction == "forward" and not lens:
        return None
    if direction == "bidirectional" and (
        "activation_alpha" in attributes or "activation_beta" in attributes
    ):
        return None
    if lens and len(node.output) > 2 and node.output[2]:
        # The cell states of every step are needed: the LSTM's own steps.
        return _ScannedLSTM(node, attributes, direction, types, opset).nodes()
    hidden = attributes.get("hidden_size")
    if steps is None or not hidden:
        return None
    operands = operands[:_SEQUENCE_LENS] + [""] + operands[_SEQUENCE_LENS + 1 :]
    dtype = helper.tensor_dtype_to_np_dtype(x_type.tensor_type.elem_type)
    rewriter = _Rewriter(node, time_axis, lens, steps, dtype, hidden)
    if direction == "forward":
        return rewriter.forward(operands, list(node.output), _attributes_of(node, None))
    if direction == "reverse":
        return rewriter.reverse(operands, list(node.output), _attributes_of(node, None))
    return rewriter.bidirectional(operands, attributes, batch_first)


def _refusal(node, why: str) -> LoweringError:
    message = f"cannot lower: ONNX node '{node.name}' ({node.op_type}) {why}"
    return LoweringError(message, message, [f"onnx.{node.op_type}"], nodes=[node.name])


def _attributes_of(node, activations) -> list:
    """`node`'s attributes for a forward node with `activations` (all of
    `node`'s if None)."""
    kept = []
    for attribute in node.attribute:
        if attribute.name == "direction":
            continue
        if attribute.name == "activations" and activations is not None:
            kept.append(helper.make_attribute("activations", activations))
            continue
        kept.append(attribute)
    return kept


class _Rewriter:
    """Builds the forward recurrences of `node`, whose input of `dtype` has
    `steps` steps along `time_axis` and, if `lens` names them, sequences of
    those lengths."""

    def __init__(self, node, time_axis: int, lens: str, steps: int, dtype, hidden: int):
        self.node = node
        self.dtype = dtype
        self.hidden = hidden
        self.time_axis = time_axis
        self.lens = lens
        self.steps = steps
        self.nodes: List["onnx.NodeProto"] = []

    def name(self, stem: str) -> str:
        return f"{self.node.name}/{stem}"

    def constant(self, stem: str, value) -> str:
        name = self.name(stem)
        if not any(name in n.output for n in self.nodes):
            self.nodes.append(constant_node(name, value))
        return name

    def op(self, op_type, inputs, output, **attributes) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output, **attributes))
        return output

    def reversed_in_time(self, value: str, output: str, time_axis: int, batch_axis: int) -> None:
        if self.lens:
            self.op(
                "ReverseSequence",
                [value, self.lens],
                output,
                time_axis=time_axis,
                batch_axis=batch_axis,
            )
            return
        backwards = self.constant(
            "steps_backwards", np.arange(self.steps - 1, -1, -1, dtype=np.int64)
        )
        self.op("Gather", [value, backwards], output, axis=time_axis)

    def forward(self, operands, outputs, attributes, stem: str = "forward") -> list:
        """The nodes of a forward recurrence over `operands` (without
        sequence lengths) giving `outputs` as if it had `self.lens`: the
        steps past a sequence's length give zeros in Y, and its last state
        is the one at its last step. A step's state depends on the earlier
        steps alone, so those states are the same without lengths."""
        # Y is needed to pick the last states from.
        produced = [self.name(f"{stem}/y_of_every_step")] if self.lens else list(outputs)
        forward = helper.make_node(
            self.node.op_type, operands, produced, name=self.name(stem), direction="forward"
        )
        forward.attribute.extend(attributes)
        self.nodes.append(forward)
        if self.lens:
            self.of_lengths(produced[0], outputs, stem)
        return self.nodes

    def of_lengths(self, y_steps: str, outputs, stem: str, c_steps: str = "") -> None:
        """Y, Y_h (and Y_c) of sequences of `self.lens` steps from the Y (and
        cell states) of all steps: layout 0 [steps, 1, batch, hidden],
        1 [batch, steps, 1, hidden]."""
        lens = self.op("Cast", [self.lens], self.name(f"{stem}/lens"), to=onnx.TensorProto.INT64)
        batch_first = self.time_axis == 1
        # Lengths along the batch axis of Y, the step numbers along its time axis.
        lens_shape = [-1, 1, 1, 1] if batch_first else [1, 1, -1, 1]
        step_shape = [1, -1, 1, 1] if batch_first else [-1, 1, 1, 1]
        along_batch = self.op(
            "Reshape",
            [lens, self.constant("lens_shape", np.array(lens_shape, np.int64))],
            self.name(f"{stem}/lens_along_batch"),
        )
        step_numbers = self.constant(
            "step_numbers", np.arange(self.steps, dtype=np.int64).reshape(step_shape)
        )
        if outputs[0]:
            valid = self.op("Less", [step_numbers, along_batch], self.name(f"{stem}/valid"))
            zero = self.constant("zero", np.zeros((), self.dtype))
            self.op("Where", [valid, y_steps, zero], outputs[0])
        wanted = [(k, steps) for k, steps in ((1, y_steps), (2, c_steps)) if steps]
        wanted = [(k, steps) for k, steps in wanted if k < len(outputs) and outputs[k]]
        if not wanted:
            return
        last = self.op(
            "Sub",
            [along_batch, self.constant("one", np.ones((), np.int64))],
            self.name(f"{stem}/last_step"),
        )
        # The last step of each sequence, for every hidden unit.
        indices = self.op(
            "Expand",
            [last, self.constant("hidden_units", np.array([1, 1, 1, self.hidden], np.int64))],
            self.name(f"{stem}/last_indices"),
        )
        state_shape = [-1, 1, self.hidden] if batch_first else [1, -1, self.hidden]
        state_shape = self.constant("state_shape", np.array(state_shape, np.int64))
        for k, steps in wanted:
            picked = self.op(
                "GatherElements",
                [steps, indices],
                self.name(f"{stem}/last_of_output{k}"),
                axis=self.time_axis,
            )
            self.op("Reshape", [picked, state_shape], outputs[k])

    def reverse(self, operands, outputs, attributes, stem: str = "reverse") -> list:
        """The nodes of a reverse recurrence over `operands` giving
        `outputs`, as a forward one; the Y of layout 0 is [steps, 1, batch,
        hidden], of layout 1 [batch, steps, 1, hidden]."""
        batch_axis = 1 - self.time_axis
        x = self.name(f"{stem}/x_backwards")
        self.reversed_in_time(operands[0], x, self.time_axis, batch_axis)
        y = outputs[0] if outputs else ""
        forward_outputs = list(outputs)
        if y:
            forward_outputs[0] = self.name(f"{stem}/y_backwards")
        self.forward([x, *operands[1:]], forward_outputs, attributes, stem)
        if not y:
            return self.nodes
        if self.time_axis or not self.lens:
            self.reversed_in_time(forward_outputs[0], y, self.time_axis, batch_axis)
            return self.nodes
        # Y [steps, 1, batch, hidden]: ReverseSequence takes the batch on
        # axis 0 or 1 only.
        batch_second = self.op(
            "Transpose", [forward_outputs[0]], self.name(f"{stem}/y_batch_second"), perm=_SWAP
        )
        reversed_y = self.name(f"{stem}/y_reversed")
        self.reversed_in_time(batch_second, reversed_y, 0, 1)
        self.op("Transpose", [reversed_y], y, perm=_SWAP)
        return self.nodes

    def bidirectional(self, operands, attributes, batch_first: bool) -> list:
        op_type = self.node.op_type
        activations = attributes.get("activations")
        per_direction = _ACTIVATIONS[op_type]
        state_axis = 1 if batch_first else 0
        y_axis = 2 if batch_first else 1
        halves = []
        for index, stem in enumerate(("forward", "reverse")):
            chosen = self.constant(f"{stem}/direction", np.array([index], np.int64))
            picked = list(operands)
            for position in (*_WEIGHTS[op_type], *_STATES[op_type]):
                if position < len(operands) and operands[position]:
                    axis = state_axis if position in _STATES[op_type] else 0
                    picked[position] = self.op(
                        "Gather",
                        [operands[position], chosen],
                        self.name(f"{stem}/operand{position}"),
                        axis=axis,
                    )
            outputs = [
                self.name(f"{stem}/output{k}") if output else ""
                for k, output in enumerate(self.node.output)
            ]
            own = None
            if activations:
                own = [
                    text_of(a)
                    for a in activations[index * per_direction : (index + 1) * per_direction]
                ]
            if index == 0:
                self.forward(picked, outputs, _attributes_of(self.node, own), stem)
            else:
                self.reverse(picked, outputs, _attributes_of(self.node, own), stem)
            halves.append(outputs)
        for k, output in enumerate(self.node.output):
            if output:
                axis = y_axis if k == 0 else state_axis
                self.op("Concat", [halves[0][k], halves[1][k]], output, axis=axis)
        return self.nodes


_PEEPHOLES = 7


def _has_peepholes(node, constants) -> bool:
    if len(node.input) <= _PEEPHOLES or not node.input[_PEEPHOLES]:
        return False
    value = constants.get(node.input[_PEEPHOLES])
    return value is None or bool(np.any(value))


class _ScannedLSTM:
    """An LSTM as one Scan of its step per direction. ONNX's step, gates
    in the order i, o, f, c, P in the order i, o, f:
    i = sigmoid(x W_i' + h R_i' + b_i + P_i c), f likewise, o with the new
    c; c = f c + i tanh(x W_c' + h R_c' + b_c); h = o tanh(c)."""

    #: Attributes of other values than the defaults refuse the node.
    _UNSUPPORTED = {
        "activations": lambda v: (
            [text_of(a) for a in v]
            not in (
                ["Sigmoid", "Tanh", "Tanh"],
                ["Sigmoid", "Tanh", "Tanh"] * 2,
            )
        ),
        "clip": lambda v: True,
        "input_forget": lambda v: v != 0,
    }

    def __init__(self, node, attributes, direction, types, opset):
        self.node = node
        self.attributes = attributes
        self.directions = ["forward", "reverse"] if direction == "bidirectional" else [direction]
        self.types = types
        self.opset = opset
        self.batch_first = attributes.get("layout", 0) == 1
        self.hidden = attributes.get("hidden_size")
        x_type = types.get(node.input[0])
        self.elem_type = x_type.tensor_type.elem_type if x_type is not None else 0
        self.dtype = helper.tensor_dtype_to_np_dtype(self.elem_type) if self.elem_type else None
        self.body: List["onnx.NodeProto"] = []

    def refuse(self, why: str):
        raise _refusal(
            self.node,
            "is computed by lighthouse step by step (for its peepholes, or the last "
            "cell state of sequences of given lengths), with ONNX's default "
            f"activations only, and it has {why}",
        )

    def nodes(self) -> List["onnx.NodeProto"]:
        for name, unsupported in self._UNSUPPORTED.items():
            if name in self.attributes and unsupported(self.attributes[name]):
                self.refuse(f"{name}={self.attributes[name]!r}")
        operands = list(self.node.input) + [""] * (8 - len(self.node.input))
        lens = operands[_SEQUENCE_LENS]
        if lens and self.directions != ["forward"]:
            self.refuse("sequence lengths, running backwards")
        if not self.hidden or self.dtype is None:
            self.refuse("no hidden_size or no element type known")
        steps = None
        if lens:
            x_type = self.types.get(operands[0])
            dims = x_type.tensor_type.shape.dim if x_type is not None else []
            time_axis = int(self.batch_first)
            if len(dims) != 3 or not dims[time_axis].HasField("dim_value"):
                self.refuse("sequence lengths, with a number of steps not known")
            steps = dims[time_axis].dim_value
        nodes: List["onnx.NodeProto"] = []
        state_axis = 1 if self.batch_first else 0
        # Y, Y_h, Y_c, and the cell states of every step, by direction.
        results: List[List[str]] = [[], [], [], []]
        for index, direction in enumerate(self.directions):
            stem = f"{self.node.name}/{direction}"
            chosen = f"{stem}/direction"
            nodes.append(constant_node(chosen, np.array(index, np.int64)))

            def picked(position, axis=0, stem=stem, chosen=chosen):
                name = f"{stem}/operand{position}"
                nodes.append(
                    helper.make_node(
                        "Gather", [operands[position], chosen], [name], name=name, axis=axis
                    )
                )
                return name

            w, r = picked(1), picked(2)
            weights = []
            for value, kind in ((w, "w"), (r, "r")):
                transposed = f"{stem}/{kind}_transposed"
                nodes.append(helper.make_node("Transpose", [value], [transposed], name=transposed))
                weights.append(transposed)
            bias = f"{stem}/bias"
            if operands[3]:
                # B is W's biases then R's: their sum.
                halves = f"{stem}/bias_halves"
                nodes.append(constant_node(f"{halves}/shape", np.array([2, -1], np.int64)))
                nodes.append(
                    helper.make_node(
                        "Reshape", [picked(3), f"{halves}/shape"], [halves], name=halves
                    )
                )
                for half in (0, 1):
                    nodes.append(constant_node(f"{halves}/{half}", np.array(half, np.int64)))
                    nodes.append(
                        helper.make_node(
                            "Gather",
                            [halves, f"{halves}/{half}"],
                            [f"{halves}/of{half}"],
                            name=f"{halves}/of{half}",
                        )
                    )
                nodes.append(
                    helper.make_node("Add", [f"{halves}/of0", f"{halves}/of1"], [bias], name=bias)
                )
            else:
                nodes.append(constant_node(bias, np.zeros(4 * self.hidden, self.dtype)))
            peepholes = f"{stem}/peepholes"
            if not operands[_PEEPHOLES]:
                operands[_PEEPHOLES] = f"{self.node.name}/no_peepholes"
                nodes.append(
                    constant_node(operands[_PEEPHOLES], np.zeros((2, 3 * self.hidden), self.dtype))
                )
            nodes.append(constant_node(f"{peepholes}/shape", np.array([3, -1], np.int64)))
            nodes.append(
                helper.make_node(
                    "Reshape", [picked(7), f"{peepholes}/shape"], [peepholes], name=peepholes
                )
            )
            states = []
            for position, kind in ((5, "h"), (6, "c")):
                if operands[position]:
                    states.append(picked(position, state_axis))
                else:
                    states.append(self.zeros(f"{stem}/{kind}0", operands[0], nodes))
            h, c, y, c_steps = (f"{stem}/{kind}" for kind in ("h", "c", "y", "c_steps"))
            reverse = int(direction == "reverse")
            time_axis = int(self.batch_first)
            y_axis = 2 if self.batch_first else 1
            nodes.append(
                helper.make_node(
                    "Scan",
                    [*states, operands[0]],
                    [h, c, y] + ([c_steps] if lens else []),
                    name=stem,
                    body=self.step(stem, *weights, bias, peepholes, bool(lens)),
                    num_scan_inputs=1,
                    scan_input_axes=[time_axis],
                    scan_input_directions=[reverse],
                    scan_output_axes=[time_axis] * (1 + bool(lens)),
                    scan_output_directions=[reverse] * (1 + bool(lens)),
                )
            )
            for k, (value, axis) in enumerate(
                ((y, y_axis), (h, state_axis), (c, state_axis), (c_steps, y_axis))
            ):
                if k < 3 or lens:
                    nodes += along_axis(
                        "Unsqueeze", value, axis, f"{value}/of_direction", self.opset
                    )
                    results[k].append(f"{value}/of_direction")
        if lens:
            # One direction: its outputs of every step are the node's.
            lengths = _Rewriter(self.node, time_axis, lens, steps, self.dtype, self.hidden)
            lengths.of_lengths(results[0][0], self.node.output, "lengths", results[3][0])
            return nodes + lengths.nodes
        for k, output in enumerate(self.node.output[:3]):
            if output:
                axis = (2 if self.batch_first else 1) if k == 0 else state_axis
                nodes.append(
                    helper.make_node(
                        "Concat",
                        results[k],
                        [output],
                        name=f"{self.node.name}/output{k}",
                        axis=axis,
                    )
                )
        return nodes

    def zeros(self, name: str, x: str, nodes: list) -> str:
        """Zeros [batch, hidden], the batch that of `x`."""
        x_type = self.types.get(x)
        dims = x_type.tensor_type.shape.dim if x_type is not None else []
        batch_axis = 0 if self.batch_first else 1
        if len(dims) != 3 or not dims[batch_axis].HasField("dim_value"):
            self.refuse("no initial state, with a batch of unknown size")
        nodes.append(
            constant_node(name, np.zeros((dims[batch_axis].dim_value, self.hidden), self.dtype))
        )
        return name

    def step(self, stem, w, r, bias, peepholes, cell_steps: bool) -> "onnx.GraphProto":
        """The Scan's body: (h, c, x_t) -> (h, c, h), and c if `cell_steps`."""
        nodes = []
        name = f"{stem}/step"

        def op(op_type, *inputs, **attributes):
            output = f"{name}/{len(nodes)}_{op_type.lower()}"
            nodes.append(
                helper.make_node(op_type, list(inputs), [output], name=output, **attributes)
            )
            return output

        h, c, x = (f"{name}/{kind}" for kind in ("h_in", "c_in", "x"))
        gates = op("Add", op("Add", op("MatMul", x, w), op("MatMul", h, r)), bias)
        nodes.append(constant_node(f"{name}/gates_shape", np.array([0, 4, -1], np.int64)))
        gates = op("Reshape", gates, f"{name}/gates_shape")

        def gate(index):
            nodes.append(constant_node(f"{name}/gate{index}", np.array(index, np.int64)))
            return op("Gather", gates, f"{name}/gate{index}", axis=1)

        def peephole(index):
            nodes.append(constant_node(f"{name}/peephole{index}", np.array(index, np.int64)))
            return op("Gather", peepholes, f"{name}/peephole{index}", axis=0)

        i = op("Sigmoid", op("Add", gate(0), op("Mul", peephole(0), c)))
        f = op("Sigmoid", op("Add", gate(2), op("Mul", peephole(2), c)))
        new_c = op("Add", op("Mul", f, c), op("Mul", i, op("Tanh", gate(3))))
        o = op("Sigmoid", op("Add", gate(1), op("Mul", peephole(1), new_c)))
        new_h = op("Mul", o, op("Tanh", new_c))
        results = [new_h, new_c, new_h] + ([new_c] if cell_steps else [])
        outputs = [f"{name}/{kind}" for kind in ("h_out", "c_out", "y", "c_steps")]
        outputs = outputs[: len(results)]
        nodes += [
            helper.make_node("Identity", [value], [output], name=output)
            for value, output in zip(results, outputs)
        ]
        untyped = onnx.TypeProto()
        untyped.tensor_type.elem_type = self.elem_type
        return helper.make_graph(
            nodes,
            name.replace("/", "_"),
            [helper.make_value_info(value, untyped) for value in (h, c, x)],
            [helper.make_value_info(value, untyped) for value in outputs],
        )


RULES = [
    Rule(f"{op.lower()}-forward", op, forward_recurrences, ALWAYS) for op in ("RNN", "GRU", "LSTM")
]
