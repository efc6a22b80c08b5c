"""ONNX sequences whose elements are values of the graph, read as those
values.

torch-mlir converts few of ONNX's sequence ops (not SequenceEmpty, nor a
Loop that carries a sequence), and TorchScript's exporter writes some tensor
ops with them: `torch.tensor_split` of MViT's pooled attention is a
SequenceEmpty, a Loop of a constant trip count whose body inserts a Slice
of the input, the insertion of the last Slice after it, and SequenceAts of
constant positions. Where the elements of a sequence are known, the ops
that read it read them instead:

- a Loop of a constant trip count (at most `MAX_ELEMENTS`) whose condition
  stays true and which carries a sequence of known elements is unrolled:
  its body copied once per iteration, the iteration number a constant of
  the rank the body declares;
- SequenceEmpty, SequenceConstruct, SequenceInsert and SequenceErase (at
  constant positions), SplitToSequence (into a number of parts the shapes
  tell) and an Identity of a sequence give sequences of known elements;
- SequenceAt of a constant position becomes an Identity of its element,
  SequenceLength a constant, ConcatFromSequence a Concat of the elements.

The sequences no longer read go, and the values computed from constants
are folded again: an If on the shape of an element (the exporter's
`squeeze` of a dimension it does not know to be 1) folds into the branch it
takes. The others (a graph input's sequence, a Loop's of a trip count given
at run time) are left for torch-mlir.
"""

import collections
import itertools
from typing import Dict, List, Optional

from ..torch_mlir import require
from .fold import fold_constants
from .loops import constant_trip_count, names_in
from .values import (
    inferred_shapes,
    fresh_name,
    DEFAULT_DOMAINS,
    along_axis,
    attributes_of,
    constant_node,
    constant_values,
    default_opset,
    known_dims,
    types_of,
    used_names,
    with_used_nodes,
)

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")

__all__ = ["MAX_ELEMENTS", "SEQUENCE_OPS", "sequences_as_elements"]

#: The most iterations of a Loop unrolled (each a copy of its body), and
#: parts of a SplitToSequence followed (each a value of the graph).
#: torch.tensor_split's Loop runs once per split index.
MAX_ELEMENTS = 64

#: The ops of ONNX's sequences.
SEQUENCE_OPS = frozenset(
    {
        "ConcatFromSequence",
        "SequenceAt",
        "SequenceConstruct",
        "SequenceEmpty",
        "SequenceErase",
        "SequenceInsert",
        "SequenceLength",
        "SplitToSequence",
    }
)


def sequences_as_elements(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto` with the sequences of its main graph whose elements are known
    read as those elements, its shapes inferred and its constants folded
    again; `proto` itself when it has none."""
    while any(n.op_type in SEQUENCE_OPS and n.domain in DEFAULT_DOMAINS for n in proto.graph.node):
        resolved = _Resolver(proto).resolved()
        if resolved is None:
            break
        # The elements' shapes are known now, and what is computed from them
        # (an If's condition) may fold; a folded If may bring more sequences.
        proto = fold_constants(inferred_shapes(resolved))
    return proto


class _Resolver:
    def __init__(self, proto: "onnx.ModelProto"):
        self.proto = proto
        self.constants = constant_values(proto.graph)
        self.types = types_of(proto.graph)
        self.opset = default_opset(proto, 0)
        self.taken = names_in(proto.graph)
        self.counter = itertools.count()
        #: The elements of the sequences known, by the sequence's name.
        self.elements: Dict[str, List[str]] = {}
        self.changed = False

    def fresh(self, stem: str) -> str:
        return fresh_name(self.taken, self.counter, stem)

    def resolved(self) -> Optional["onnx.ModelProto"]:
        """The model with the known sequences read as their elements, the
        nodes no longer used gone; None if no read changed."""
        pending = collections.deque(self.proto.graph.node)
        nodes = []
        while pending:
            node = pending.popleft()
            if node.domain not in DEFAULT_DOMAINS:
                nodes.append(node)
                continue
            unrolled = self.unrolled(node) if node.op_type == "Loop" else None
            if unrolled is not None:
                # Its copies are read as the graph's own nodes: they insert
                # into the sequence it carries.
                pending.extendleft(reversed(unrolled))
                self.changed = True
                continue
            replaced = self.read(node)
            nodes.extend([node] if replaced is None else replaced)
        if not self.changed:
            return None
        return with_used_nodes(self.proto, nodes)

    def read(self, node) -> Optional[List["onnx.NodeProto"]]:
        """The nodes replacing `node` (itself among them where it stays for
        the readers of its sequence not followed), or None if it stays as
        it is; the elements of the sequence it gives noted, if known."""
        op, inputs, output = node.op_type, list(node.input), node.output[0]
        known = self.elements.get(inputs[0]) if inputs else None
        if op == "SequenceEmpty":
            self.elements[output] = []
        elif op == "SequenceConstruct":
            self.elements[output] = inputs
        elif op == "Identity" and known is not None:
            self.elements[output] = known
        elif op == "SequenceInsert" and known is not None:
            # At the end by default; a negative position counts from it.
            position = self.position(inputs, 2, len(known), len(known), len(known))
            if position is not None:
                self.elements[output] = known[:position] + [inputs[1]] + known[position:]
        elif op == "SequenceErase" and known:
            position = self.position(inputs, 1, len(known), len(known) - 1, len(known) - 1)
            if position is not None:
                self.elements[output] = known[:position] + known[position + 1 :]
        elif op == "SplitToSequence":
            return self.split(node)
        elif op == "SequenceAt" and known:
            position = self.position(inputs, 1, len(known), None, len(known) - 1)
            if position is not None:
                self.changed = True
                return [helper.make_node("Identity", [known[position]], [output], name=node.name)]
        elif op == "SequenceLength" and known is not None:
            self.changed = True
            return [constant_node(output, np.array(len(known), np.int64))]
        elif op == "ConcatFromSequence" and known:
            self.changed = True
            return self.concatenated(node, known)
        return None

    def position(self, inputs, index: int, length: int, default, last: int) -> Optional[int]:
        """The position `inputs[index]` gives in a sequence of `length`
        elements, counted from the end when negative; `default` if it is
        not given, None if it is not a constant or is past `last`."""
        if len(inputs) <= index or not inputs[index]:
            return default
        value = self.constants.get(inputs[index])
        if value is None or value.size != 1:
            return None
        position = int(value.reshape(()))
        position += length if position < 0 else 0
        return position if 0 <= position <= last else None

    def concatenated(self, node, elements: List[str]) -> List["onnx.NodeProto"]:
        attributes = attributes_of(node)
        axis = attributes["axis"]
        nodes = []
        parts = elements
        if attributes.get("new_axis", 0):
            # Stacked: each element given the new axis first. Both count a
            # negative axis in the result's rank.
            parts = [self.fresh(f"{node.name}/stacked") for _ in elements]
            for element, part in zip(elements, parts):
                nodes += along_axis("Unsqueeze", element, axis, part, self.opset)
        nodes.append(helper.make_node("Concat", parts, [node.output[0]], name=node.name, axis=axis))
        return nodes

    def split(self, node) -> Optional[List["onnx.NodeProto"]]:
        """A Split into the parts of SplitToSequence `node`, when their
        number is known (given as sizes, or from the size of the axis),
        followed by `node` itself, for readers of the sequence not
        followed."""
        attributes = attributes_of(node)
        axis = attributes.get("axis", 0)
        value = node.input[0]
        split = node.input[1] if len(node.input) > 1 and node.input[1] else None
        sizes = self.constants.get(split) if split else None
        if split and sizes is None:
            return None
        if sizes is not None and sizes.ndim == 1:
            sizes = [int(size) for size in sizes]
        else:
            # Parts of one (or of the scalar `split`), the last of what is left.
            dims = known_dims(self.types[value]) if value in self.types else None
            if dims is None or not -len(dims) <= axis < len(dims) or dims[axis] is None:
                return None
            length = dims[axis]
            step = 1 if sizes is None else int(sizes.reshape(()))
            if step <= 0:
                return None
            sizes = [min(step, length - start) for start in range(0, length, step)]
        if not sizes or len(sizes) > MAX_ELEMENTS:
            return None
        parts = [self.fresh(f"{node.name}/part") for _ in sizes]
        nodes = []
        if self.opset >= 13:
            split_sizes = self.fresh(f"{node.name}/sizes")
            nodes.append(constant_node(split_sizes, np.array(sizes, np.int64)))
            nodes.append(
                helper.make_node(
                    "Split", [value, split_sizes], parts, name=f"{node.name}/split", axis=axis
                )
            )
        else:
            nodes.append(
                helper.make_node(
                    "Split", [value], parts, name=f"{node.name}/split", axis=axis, split=sizes
                )
            )
        elements = parts
        if split is None and not attributes.get("keepdims", 1):
            # Parts of one along the axis, without it.
            elements = [self.fresh(f"{node.name}/element") for _ in parts]
            for part, element in zip(parts, elements):
                nodes += along_axis("Squeeze", part, axis, element, self.opset)
        self.elements[node.output[0]] = elements
        return nodes + [node]

    def unrolled(self, node) -> Optional[List["onnx.NodeProto"]]:
        """The nodes of Loop `node`'s iterations, one after another, when
        it carries a sequence of known elements and runs a constant number
        of times; None otherwise."""
        carried = list(node.input[2:])
        if not any(name in self.elements for name in carried):
            return None
        body = attributes_of(node)["body"]
        trip = constant_trip_count(node, body, self.constants)
        if trip is None or not 0 <= trip <= MAX_ELEMENTS:
            return None
        scanned = len(body.output) - 1 - len(carried)
        if scanned < 0 or (scanned and not trip):
            return None  # No iteration gives the stacks' shapes.
        # onnxruntime gives the iteration number the rank the body declares
        # (TorchScript's exporter declares a [1], ONNX a scalar), and refuses
        # a body that reads it and declares none.
        counter = body.input[0]
        dims = known_dims(counter.type) if counter.type.HasField("tensor_type") else None
        read = used_names(body.node) | {value.name for value in body.output}
        if dims is None and counter.name in read:
            return None
        iteration_shape = [1] * len(dims or [])
        nodes: List["onnx.NodeProto"] = []
        current = carried
        stacks: List[List[str]] = [[] for _ in range(scanned)]
        for iteration in range(trip):
            prefix = f"{node.name}/{iteration}"
            renamed = {}
            number = self.fresh(f"{prefix}/iteration")
            nodes.append(constant_node(number, np.full(iteration_shape, iteration, np.int64)))
            going_on = self.fresh(f"{prefix}/condition")
            nodes.append(constant_node(going_on, np.array(True)))
            renamed[counter.name] = number
            renamed[body.input[1].name] = going_on
            renamed.update((value.name, name) for value, name in zip(body.input[2:], current))
            for tensor in body.initializer:
                renamed[tensor.name] = self.fresh(f"{prefix}/{tensor.name}")
                nodes.append(
                    constant_node(renamed[tensor.name], onnx.numpy_helper.to_array(tensor))
                )
            for index, inner in enumerate(body.node):
                renamed.update(
                    (name, self.fresh(f"{prefix}/{name}")) for name in inner.output if name
                )
                copy = _renamed(inner, renamed)
                copy.name = f"{prefix}/{inner.name or f'{inner.op_type}_{index}'}"
                nodes.append(copy)
            results = [renamed.get(value.name, value.name) for value in body.output[1:]]
            current = results[: len(carried)]
            for stack, result in zip(stacks, results[len(carried) :]):
                stack.append(result)
        for output, value in zip(node.output, current):
            if output:
                nodes.append(helper.make_node("Identity", [value], [output], name=output))
        for output, stack in zip(node.output[len(carried) :], stacks):
            if output:
                rows = [self.fresh(f"{output}/row") for _ in stack]
                for value, row in zip(stack, rows):
                    nodes += along_axis("Unsqueeze", value, 0, row, self.opset)
                nodes.append(helper.make_node("Concat", rows, [output], name=output, axis=0))
        return nodes


def _renamed(node, renamed: Dict[str, str]) -> "onnx.NodeProto":
    """A copy of `node` reading and giving the values `renamed` renames, its
    subgraphs reading them too where they do not define their own."""
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    for field in (copy.input, copy.output):
        field[:] = [renamed.get(name, name) for name in field]
    for attribute in copy.attribute:
        for graph in [attribute.g] if attribute.HasField("g") else list(attribute.graphs):
            _rename_in(graph, renamed)
    return copy


def _rename_in(graph, renamed: Dict[str, str]) -> None:
    """Renames in place the values of the enclosing scope that `graph`
    reads, and its subgraphs do."""
    own = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
    own |= {name for node in graph.node for name in node.output}
    outer = {name: new for name, new in renamed.items() if name not in own}
    for node in graph.node:
        node.input[:] = [outer.get(name, name) for name in node.input]
        for attribute in node.attribute:
            for subgraph in [attribute.g] if attribute.HasField("g") else list(attribute.graphs):
                _rename_in(subgraph, outer)
    for value in graph.output:
        value.name = outer.get(value.name, value.name)
