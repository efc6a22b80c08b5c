"""ONNX's Scan, and Loops with scan outputs, as Loops of loop-carried values.

torch-mlir converts a Loop whose body yields loop-carried values only (into
`torch.prim.Loop`, then `scf.for`), but neither a Loop's scan outputs (the
values its body yields at each iteration, stacked) nor Scan at all. Before
import, both are rewritten at the ONNX level into such Loops:

- each scan output becomes a loop-carried tensor of its final shape, zeros
  at first, into which the body writes the iteration's value with ScatterND
  (torch-mlir's `tm_tensor.scatter`, lowered by lighthouse);
- a Scan becomes a Loop over the length of its scan axis, whose body takes
  the slice of each scan input at the iteration (Gather from the input the
  body sees in the enclosing scope), backwards for a reverse direction, and
  whose scan outputs, stacked along their axis, are transposed there.

A scan output's length is the number of iterations, so a Loop is rewritten
only when that number is a constant: its trip count is one (folded, or
compiled for by value) and its condition is true and passed through
unchanged. Scan's number is the length of its scan axis, which must be
static. Anything else is left as it was, for torch-mlir to refuse.
"""

import itertools
from typing import Dict, List, Mapping, Optional, Set

from .values import (
    inferred_shapes,
    fresh_name,
    DEFAULT_DOMAINS,
    constant_node,
    constant_node_value,
    constant_values,
    default_opset,
    replace_nodes,
    static_shape,
    types_of,
    used_names,
)
from ..torch_mlir import require

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")
numpy_helper = require("onnx.numpy_helper", "onnx")

__all__ = ["constant_trip_count", "loops_of_carried_values", "names_in"]


#: torch-mlir converts Loop from its opset 13 on (and ScatterND, which
#: writes an iteration's value, is of opset 11): a model of an earlier opset
#: with a Scan or a Loop is converted to it first.
_MIN_OPSET = 13


def loops_of_carried_values(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the main graph's Scans and Loops with scan outputs
    rewritten into Loops of loop-carried values where they can be, and
    converted to opset 13 if it has Loops or Scans of an earlier one;
    `proto` itself when it has none."""
    if not any(
        n.op_type in ("Loop", "Scan") and n.domain in DEFAULT_DOMAINS for n in proto.graph.node
    ):
        return proto
    opset = default_opset(proto, 0)
    if opset < 9 and any(n.op_type == "Scan" for n in proto.graph.node):
        # Scan of opset 8 has a batch axis, which ONNX's converter to later
        # opsets does not take out of the model's signature.
        return proto
    if opset < _MIN_OPSET:
        try:
            proto = onnx.version_converter.convert_version(proto, _MIN_OPSET)
        except Exception:  # noqa: BLE001 - onnx's C++ converter fails in its own ways
            return proto
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(proto)
    graph = rewritten.graph
    rewriter = _Rewriter(graph, list(rewritten.opset_import))

    def replacement(node):
        if node.domain not in DEFAULT_DOMAINS:
            return None
        if node.op_type == "Loop":
            return rewriter.loop(node)
        return rewriter.scan(node) if node.op_type == "Scan" else None

    if not replace_nodes(graph, replacement):
        return proto
    # ONNX's inference of a Loop may not give its results' types, which the
    # importer needs, and which the rewriting knows.
    # A graph output keeps its name and element type, its shape becomes the
    # Loop's (its trip count is a constant): torch-mlir's Loop gives the
    # shape of its body's values, and fails to cast it to a dynamic one.
    known = [value for value in graph.value_info if value.name not in rewriter.declared]
    del graph.value_info[:]
    graph.value_info.extend(known)
    for value in graph.output:
        if value.name in rewriter.declared:
            value.type.CopyFrom(rewriter.declared[value.name].type)
    outputs = {value.name for value in graph.output}
    graph.value_info.extend(v for v in rewriter.declared.values() if v.name not in outputs)
    return inferred_shapes(rewritten)


class _Rewriter:
    def __init__(self, graph: "onnx.GraphProto", opsets):
        self.opsets = opsets
        self.types = types_of(graph)
        self.constants = constant_values(graph)
        self.taken: Set[str] = names_in(graph)
        #: The types of the rewritten Loops' results, by name.
        self.declared: Dict[str, "onnx.ValueInfoProto"] = {}
        self.counter = itertools.count()

    def fresh(self, stem: str) -> str:
        return fresh_name(self.taken, self.counter, stem)

    def constant(self, stem: str, value: "np.ndarray", nodes: list) -> str:
        name = self.fresh(stem)
        nodes.append(constant_node(name, value))
        return name

    def zeros(self, stem: str, elem_type: int, shape: List[int], nodes: list) -> str:
        """A value of zeros of `shape`, made as the code runs (ConstantOfShape),
        not stored."""
        dims = self.constant(f"{stem}/shape", np.array(shape, np.int64), nodes)
        name = self.fresh(stem)
        dtype = helper.tensor_dtype_to_np_dtype(elem_type)
        zero = numpy_helper.from_array(np.zeros(1, dtype), "value")
        nodes.append(helper.make_node("ConstantOfShape", [dims], [name], name=name, value=zero))
        return name

    def loop(self, node) -> Optional[List["onnx.NodeProto"]]:
        body = _attribute(node, "body")
        carried = len(body.input) - 2
        scanned = len(body.output) - 1 - carried
        if scanned <= 0 or carried < 0:
            return None
        trip = constant_trip_count(node, body, self.constants)
        if trip is None:
            return None
        condition = node.input[1] if len(node.input) > 1 else ""
        outputs = list(node.output)
        scalar = onnx.TensorProto
        typed = self._typed_body(
            body,
            [
                helper.make_tensor_type_proto(scalar.INT64, []),
                helper.make_tensor_type_proto(scalar.BOOL, []),
            ]
            + [self.types.get(name) for name in node.input[2:]],
        )
        if typed is None:
            return None
        inferred = types_of(typed)
        shapes = []
        for index in range(scanned):
            produced = inferred.get(body.output[1 + carried + index].name)
            declared = self.types.get(outputs[carried + index])
            declared = static_shape(declared) if declared is not None else None
            if declared is not None and declared and declared[0] == trip:
                shape = declared
            elif produced is not None and static_shape(produced) is not None:
                shape = [trip, *static_shape(produced)]
            else:
                return None
            shapes.append((produced.tensor_type.elem_type if produced else 0, shape))
        if not all(elem_type for elem_type, _ in shapes):
            return None

        before: List["onnx.NodeProto"] = []
        new_body = onnx.GraphProto()
        new_body.CopyFrom(typed)
        del new_body.input[:]
        new_body.input.extend(typed.input[: len(body.input)])
        del new_body.initializer[:]
        iteration = body.input[0].name
        accumulators = self._accumulate(node, new_body, iteration, shapes, before)
        if condition:
            loop_inputs = [node.input[0], condition]
        else:
            loop_inputs = [
                node.input[0],
                self.constant(f"{node.name}/true", np.array(True), before),
            ]
        loop_inputs += list(node.input[2:]) + accumulators
        return before + [self.loop_of(node, loop_inputs, outputs, new_body)]

    def scan(self, node) -> Optional[List["onnx.NodeProto"]]:
        body = _attribute(node, "body")
        scan_inputs = _attribute(node, "num_scan_inputs")
        states = len(node.input) - scan_inputs
        scanned = len(body.output) - states
        if scan_inputs <= 0 or states < 0 or scanned < 0:
            return None
        input_axes = _attribute(node, "scan_input_axes") or [0] * scan_inputs
        input_directions = _attribute(node, "scan_input_directions") or [0] * scan_inputs
        output_axes = _attribute(node, "scan_output_axes") or [0] * scanned
        output_directions = _attribute(node, "scan_output_directions") or [0] * scanned
        trip = None
        slice_types = []
        for name, axis in zip(node.input[states:], input_axes):
            shape = static_shape(self.types[name]) if name in self.types else None
            if not shape:
                return None
            axis %= len(shape)
            if trip is not None and shape[axis] != trip:
                return None
            trip = shape[axis]
            elem_type = self.types[name].tensor_type.elem_type
            slice_types.append(
                helper.make_tensor_type_proto(elem_type, shape[:axis] + shape[axis + 1 :])
            )
        outputs = list(node.output)
        typed = self._typed_body(
            body, [self.types.get(name) for name in node.input[:states]] + slice_types
        )
        if typed is None:
            return None
        inferred = types_of(typed)
        shapes = []
        for index in range(scanned):
            produced = inferred.get(body.output[states + index].name)
            shape = static_shape(produced) if produced is not None else None
            if shape is None or not produced.tensor_type.elem_type:
                return None
            shapes.append((produced.tensor_type.elem_type, [trip, *shape]))

        before: List["onnx.NodeProto"] = []
        iteration = self.fresh(f"{node.name}/iteration")
        condition = self.fresh(f"{node.name}/condition")
        reversed_iteration = None
        if 1 in input_directions or 1 in output_directions:
            reversed_iteration = self.fresh(f"{node.name}/reversed")
        new_body = onnx.GraphProto()
        new_body.CopyFrom(typed)
        new_body.name = f"{node.name}_as_loop"
        # The slices are values of the body now, no longer its inputs.
        new_body.value_info.extend(typed.input[states : len(body.input)])
        del new_body.initializer[:]
        del new_body.input[:]
        new_body.input.extend(
            [
                helper.make_tensor_value_info(iteration, onnx.TensorProto.INT64, []),
                helper.make_tensor_value_info(condition, onnx.TensorProto.BOOL, []),
                *body.input[:states],
            ]
        )
        slices: List["onnx.NodeProto"] = []
        if reversed_iteration is not None:
            last = self.constant(f"{node.name}/last", np.array(trip - 1, np.int64), slices)
            slices.append(
                helper.make_node(
                    "Sub", [last, iteration], [reversed_iteration], name=reversed_iteration
                )
            )
        for value, axis, direction, sliced in zip(
            node.input[states:], input_axes, input_directions, body.input[states:]
        ):
            index = reversed_iteration if direction else iteration
            slices.append(
                helper.make_node(
                    "Gather", [value, index], [sliced.name], name=sliced.name, axis=axis
                )
            )
        condition_out = self.fresh(f"{node.name}/condition_out")
        slices.append(
            helper.make_node("Identity", [condition], [condition_out], name=condition_out)
        )
        body_nodes = list(new_body.node)
        del new_body.node[:]
        new_body.node.extend(slices + body_nodes)
        new_body_outputs = list(new_body.output)
        del new_body.output[:]
        new_body.output.extend(
            [helper.make_tensor_value_info(condition_out, onnx.TensorProto.BOOL, [])]
            + new_body_outputs
        )
        indices = [reversed_iteration if d else iteration for d in output_directions]
        stacked = [
            outputs[states + k]
            if output_axes[k] == 0
            else self.fresh(f"{outputs[states + k]}/stacked")
            for k in range(scanned)
        ]
        accumulators = self._accumulate(node, new_body, indices, shapes, before, into=stacked)
        loop_inputs = [
            self.constant(f"{node.name}/trip", np.array(trip, np.int64), before),
            self.constant(f"{node.name}/true", np.array(True), before),
            *node.input[:states],
            *accumulators,
        ]
        loop = self.loop_of(node, loop_inputs, outputs[:states] + stacked, new_body)
        after = []
        for k, (axis, name) in enumerate(zip(output_axes, stacked)):
            if axis != 0:
                rank = len(shapes[k][1])
                axis %= rank
                # Stacked along axis 0: move it to `axis`.
                perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank))
                after.append(
                    helper.make_node(
                        "Transpose", [name], [outputs[states + k]], name=name, perm=perm
                    )
                )
        return before + [loop] + after

    def loop_of(self, node, inputs, outputs, body) -> "onnx.NodeProto":
        """The Loop replacing `node`, whose results' types it declares: those
        of the body's outputs past the condition."""
        for name, value in zip(outputs, body.output[1:]):
            if name:
                self.declared[name] = helper.make_value_info(name, value.type)
        return helper.make_node("Loop", inputs, outputs, name=node.name, body=body)

    def _typed_body(self, body, input_types) -> Optional["onnx.GraphProto"]:
        """`body` with its inputs of `input_types` and the types of its values
        and outputs inferred by ONNX's shape inference on the body alone, the
        values it takes from the enclosing graph made initializers (constants)
        or inputs of their types, which follow its own; None if inference
        fails. ONNX's inference of a Scan or Loop leaves its body's types
        out when it cannot infer the op's results, as in LinearAttention's
        function, and the importer needs them."""
        if any(t is None for t in input_types):
            return None
        graph = onnx.GraphProto()
        graph.CopyFrom(body)
        # Inferred again: ONNX's inference keeps a type without shape that
        # the body lists (as an inlined function's do) as it is.
        del graph.value_info[:]
        del graph.input[:]
        graph.input.extend(
            helper.make_value_info(value.name, t) for value, t in zip(body.input, input_types)
        )
        defined = {value.name for value in body.input} | {t.name for t in body.initializer}
        defined |= {output for n in body.node for output in n.output}
        initializers = []
        for name in sorted(used_names(body.node) - defined):
            if name in self.constants:
                # As constants: shape inference then knows a Reshape's target.
                initializers.append(numpy_helper.from_array(self.constants[name], name))
            elif name in self.types:
                graph.input.append(helper.make_value_info(name, self.types[name]))
        graph.initializer.extend(initializers)
        model = helper.make_model(graph, opset_imports=self.opsets)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        except Exception:  # noqa: BLE001 - onnx's C++ inference fails in its own ways
            return None
        typed = inferred.graph
        # Those of the enclosing graph's values are not the body's own.
        del typed.initializer[len(body.initializer) :]
        # The importer takes the types of a body's values from its value_info
        # alone, outputs included.
        listed = {value.name for value in typed.value_info}
        typed.value_info.extend(v for v in typed.output if v.name not in listed)
        return typed

    def _accumulate(self, node, body, indices, shapes, before: list, into=None) -> List[str]:
        """Turns the body's last `len(shapes)` outputs into loop-carried
        accumulators written at `indices` (one name, or one per output);
        returns the accumulators' initial values, made in `before`."""
        if isinstance(indices, str):
            indices = [indices] * len(shapes)
        added: List["onnx.NodeProto"] = []
        positions: Dict[str, str] = {}
        for index in dict.fromkeys(indices):
            position = self.fresh(f"{node.name}/position")
            shape = self.constant(f"{node.name}/position_shape", np.array([1, 1], np.int64), added)
            added.append(helper.make_node("Reshape", [index, shape], [position], name=position))
            positions[index] = position
        produced = list(body.output)
        first = len(produced) - len(shapes)
        outputs = produced[:first]
        initial = []
        for k, ((elem_type, shape), index) in enumerate(zip(shapes, indices)):
            value = produced[first + k].name
            accumulator = self.fresh(f"{node.name}/accumulated")
            body.input.append(helper.make_tensor_value_info(accumulator, elem_type, shape))
            row_shape = self.constant(
                f"{node.name}/row_shape", np.array([1, *shape[1:]], np.int64), added
            )
            row = self.fresh(f"{node.name}/row")
            added.append(helper.make_node("Reshape", [value, row_shape], [row], name=row))
            written = self.fresh(f"{node.name}/written")
            added.append(
                helper.make_node(
                    "ScatterND", [accumulator, positions[index], row], [written], name=written
                )
            )
            outputs.append(helper.make_tensor_value_info(written, elem_type, shape))
            stem = into[k] if into else f"{node.name}/zeros"
            initial.append(self.zeros(f"{stem}/zeros", elem_type, shape, before))
        body.node.extend(added)
        del body.output[:]
        body.output.extend(outputs)
        return initial


def _attribute(node, name):
    for attribute in node.attribute:
        if attribute.name == name:
            return helper.get_attribute_value(attribute)
    return None


def constant_trip_count(node, body, constants: Mapping[str, "np.ndarray"]) -> Optional[int]:
    """The iterations of Loop `node` (of `body`), when it runs a constant
    trip count (`constants`: the graph's constant values): its condition
    true on entry and passed through by the body; else None."""
    trip = constants.get(node.input[0]) if node.input and node.input[0] else None
    if trip is None or trip.size != 1:
        return None
    condition = node.input[1] if len(node.input) > 1 else ""
    if condition:
        value = constants.get(condition)
        if value is None or value.size != 1 or not bool(value.reshape(())):
            return None
    if not _passes_condition_through(body, constants):
        return None
    return int(trip.reshape(()))


def _passes_condition_through(body, outer_constants: Mapping[str, "np.ndarray"]) -> bool:
    """Whether the body yields the condition it is given (through Identity
    nodes), or a constant true, its own or of the enclosing graph
    (`outer_constants`, as TorchScript's exporter writes it): the Loop then
    runs its trip count."""
    condition = body.input[1].name
    producers = {output: n for n in body.node for output in n.output}
    value = body.output[0].name
    while value != condition:
        producer = producers.get(value)
        if producer is None:
            constant = outer_constants.get(value)
            return constant is not None and constant.size == 1 and bool(constant.reshape(()))
        if producer.op_type == "Identity":
            value = producer.input[0]
        elif producer.op_type == "Constant":
            constant = constant_node_value(producer)
            return constant is not None and constant.size == 1 and bool(constant.reshape(()))
        else:
            return False
    return True


def names_in(graph) -> Set[str]:
    """Every value and node name of `graph` and its subgraphs."""
    names: Set[str] = set()
    pending = [graph]
    while pending:
        current = pending.pop()
        names.update(value.name for value in [*current.input, *current.output, *current.value_info])
        names.update(tensor.name for tensor in current.initializer)
        for node in current.node:
            names.update(node.input)
            names.update(node.output)
            names.add(node.name)
            for attribute in node.attribute:
                if attribute.type == attribute.GRAPH:
                    pending.append(attribute.g)
                pending.extend(attribute.graphs)
    return names
