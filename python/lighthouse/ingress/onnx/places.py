"""Where in an ONNX model a lowering error is: the locations lighthouse
gives the ops torch-mlir's importer leaves without one, and the node (name
and op type), graph output or graph input that each error diagnostic of
torch-mlir's passes comes from (`ModelPlaces.place`); the nodes and the
tensors of a model, the tensors with where each is (`all_tensors`)."""

import re
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple

from ... import ir
from .values import DEFAULT_DOMAINS
from ...errors import LoweringError
from ..torch_mlir import require

onnx = require("onnx", "onnx")


def subgraphs(node) -> Iterable[Tuple[str, "onnx.GraphProto"]]:
    """The graphs of `node`'s attributes (If's branches, Loop's body), by attribute name."""
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.GRAPH:
            yield attribute.name, attribute.g
        for graph in attribute.graphs:
            yield attribute.name, graph


def all_nodes(graph) -> List["onnx.NodeProto"]:
    """The nodes of `graph` and of its nodes' subgraphs."""
    nodes = []
    for node in graph.node:
        nodes.append(node)
        for _, subgraph in subgraphs(node):
            nodes.extend(all_nodes(subgraph))
    return nodes


class PlacedTensor(NamedTuple):
    """A tensor of a model, the words that say where it is, and the name of
    the initializer it is (or a sparse one's values or indices of), if it is
    one."""

    where: str
    tensor: "onnx.TensorProto"
    initializer: Optional[str]


def all_tensors(proto: "onnx.ModelProto") -> Iterator[PlacedTensor]:
    """The tensors of `proto`: the initializers of its graphs (a sparse
    one's values and indices) and the tensors of its nodes' attributes (a
    Constant's `value`), in the main graph, its functions and their nodes'
    subgraphs."""
    yield from _graph_tensors(proto.graph, "")
    for function in proto.functions:
        yield from _nodes_tensors(function.node, f" of function '{function.name}'")


def _graph_tensors(graph, inside: str) -> Iterator[PlacedTensor]:
    for tensor in graph.initializer:
        yield PlacedTensor(f"initializer '{tensor.name}'{inside}", tensor, tensor.name)
    for sparse in graph.sparse_initializer:
        name = sparse.values.name
        yield from _sparse_tensors(f"sparse initializer '{name}'{inside}", sparse, name)
    yield from _nodes_tensors(graph.node, inside)


def _nodes_tensors(nodes, inside: str) -> Iterator[PlacedTensor]:
    for node in nodes:
        yield from _attribute_tensors(node, inside)
        for attribute, subgraph in subgraphs(node):
            where = f" of the {attribute} of ONNX node '{node.name}' ({_op(node)}){inside}"
            yield from _graph_tensors(subgraph, where)


def _attribute_tensors(node, inside: str) -> Iterator[PlacedTensor]:
    for attribute in node.attribute:
        where = f"attribute '{attribute.name}' of ONNX node '{node.name}' ({_op(node)}){inside}"
        if attribute.type == onnx.AttributeProto.TENSOR:
            yield PlacedTensor(where, attribute.t, None)
        elif attribute.type == onnx.AttributeProto.SPARSE_TENSOR:
            yield from _sparse_tensors(where, attribute.sparse_tensor, None)
        for index, tensor in enumerate(attribute.tensors):
            yield PlacedTensor(f"{where} [{index}]", tensor, None)
        for index, sparse in enumerate(attribute.sparse_tensors):
            yield from _sparse_tensors(f"{where} [{index}]", sparse, None)


def _sparse_tensors(where: str, sparse, initializer: Optional[str]) -> Iterator[PlacedTensor]:
    yield PlacedTensor(f"the values of {where}", sparse.values, initializer)
    yield PlacedTensor(f"the indices of {where}", sparse.indices, initializer)


#: How the location lighthouse gives the main graph's return starts: the
#: importer gives it none, and torch-mlir's casts to the declared output types
#: are made there (`graph output 'y'`, `graph outputs 'y', 'z'`).
_OUTPUTS_LOCATION = "graph output"


def locate_the_unlocated(module: ir.Module, proto: "onnx.ModelProto") -> None:
    """Gives the ops the importer leaves without a location one that says
    where in the model they come from, so that errors at them do too: the
    main graph's return names its outputs; a subgraph's terminator takes the
    location of the node that holds it."""
    outputs = [output.name for output in proto.graph.output]
    plural = "s" if len(outputs) != 1 else ""
    with module.context:
        returned = ir.Location.name(
            f"{_OUTPUTS_LOCATION}{plural} " + ", ".join(f"'{name}'" for name in outputs)
        )

    def locate(op, inherited, main: bool) -> None:
        op = op.operation  # An OpView's `name` may be its symbol's.
        if str(op.location) == "loc(unknown)":
            if main and op.name == "func.return":
                op.location = returned
            elif inherited is not None:
                op.location = inherited
        inner = inherited if str(op.location) == "loc(unknown)" else op.location
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    locate(child, inner, main and op.name == "func.func")

    # The first function is the main graph's; others are ONNX functions'.
    for index, op in enumerate(module.body.operations):
        locate(op, None, index == 0)


class ModelPlaces:
    """Where in an ONNX model the diagnostics of a lowering error are: its
    nodes (their names are the ops' locations), its graph's outputs (the
    return's location), inputs and initializers, or the graph itself."""

    #: Places named in a message, at most.
    MAX_PLACES = 4

    def __init__(self, proto: "onnx.ModelProto", raw: ir.Module, earlier: list):
        self.proto = proto
        graph = proto.graph
        self.nodes = {n.name: n for p in (*earlier, proto) for n in all_nodes(p.graph)}
        self.current = {n.name for n in all_nodes(graph)}
        self.producer = {name: node for node in graph.node for name in node.output}
        self.users: Dict[str, list] = {}
        for node in graph.node:
            for name in node.input:
                self.users.setdefault(name, []).append(node)
        self.inputs = {value.name: value for value in graph.input}
        self.initializers = {tensor.name: tensor for tensor in graph.initializer}
        self.outputs = list(graph.output)
        # The outputs' declared types as torch-mlir prints them, which its
        # diagnostics at the return quote.
        function = raw.body.operations[0]
        function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        self.output_types = [str(t) for t in function_type.results]

    def place(self, error: LoweringError) -> LoweringError:
        """`error`, its message naming where in the model its diagnostics are."""
        places, nodes = [], []
        for location, message, operation in _errors(error.diagnostics):
            if location is None:  # An op without location: where its users are.
                names = error.placed.get(operation or "", [])
            else:
                names = [location]
            for name in names:
                place, node = self._describe(name, message)
                if place and place not in places:
                    places.append(place)
                if node and node not in nodes:
                    nodes.append(node)
        if len(places) > self.MAX_PLACES:
            places[self.MAX_PLACES :] = [f"and {len(places) - self.MAX_PLACES} more"]
        return error.at(places, nodes)

    def _describe(self, name: str, message: str) -> Tuple[Optional[str], Optional[str]]:
        """What the location `name` of a diagnostic `message` is in the model,
        and the node it names, if any."""
        if name in self.nodes:
            return self._node(name), name
        if name.startswith(_OUTPUTS_LOCATION):
            return self._outputs(message)
        if name.startswith("graph:"):
            return self._graph(message)
        if name in self.initializers or name in self.inputs:
            return self._value(name), None
        return None, None

    def _node(self, name: str) -> str:
        node = self.nodes[name]
        text = f"ONNX node '{name}' ({_op(node)})"
        for parent in (name.rsplit("/", 2)[0], name.rsplit("/", 1)[0]):
            if parent != name and parent in self.nodes:
                if parent in self.current:
                    text += f", in a graph of node '{parent}' ({_op(self.nodes[parent])})"
                else:
                    text += (
                        f", of the function ONNX defines node '{parent}' "
                        f"({_op(self.nodes[parent])}) by"
                    )
                break
        outputs = [o for o in self.outputs if self.producer.get(o.name) is node]
        if outputs:
            text += ", which computes " + ", ".join(
                f"graph output '{o.name}' declared {_type(o.type)}" for o in outputs
            )
        return text

    def _outputs(self, message: str) -> Tuple[str, Optional[str]]:
        operand = re.search(r"return operand (\d+)", message)
        if operand and int(operand.group(1)) < len(self.outputs):
            chosen = [int(operand.group(1))]
        else:
            chosen = [i for i, t in enumerate(self.output_types) if f"'{t}'" in message]
        texts, first_node = [], None
        for index in chosen or range(len(self.outputs)):
            output = self.outputs[index]
            text = f"graph output '{output.name}' declared {_type(output.type)}"
            producer = self.producer.get(output.name)
            if producer is not None:
                text += f", computed by ONNX node '{producer.name}' ({_op(producer)})"
                first_node = first_node or producer.name
            elif output.name in self.inputs:
                text += f", which is graph input '{output.name}'"
            texts.append(text)
        return "; ".join(texts), first_node

    def _graph(self, message: str) -> Tuple[str, Optional[str]]:
        texts, first_node = [], None
        if not any(o.domain in DEFAULT_DOMAINS for o in self.proto.opset_import):
            opsets = ", ".join(f"{o.domain} {o.version}" for o in self.proto.opset_import)
            others = [n for n in self.proto.graph.node if n.domain not in DEFAULT_DOMAINS]
            model = f"a model that imports no opset of ONNX's default domain (only {opsets})"
            if others:
                texts.extend(f"ONNX node '{n.name}' ({_op(n)})" for n in others[:3])
                texts[-1] += f", of {model}"
                first_node = others[0].name
            else:
                texts.append(model)
        # The graph's signature: values that are not tensors of numbers
        # (optional, sequence, map, string), whose types torch-mlir's
        # lowering of the function does not convert.
        for kind, values in (("input", self.proto.graph.input), ("output", self.outputs)):
            for value in values:
                if _tensor_of_numbers(value.type):
                    continue
                text = f"graph {kind} '{value.name}' of type {_type(value.type)}"
                if kind == "input":
                    node, how = next(iter(self.users.get(value.name, [])), None), "used"
                else:
                    node, how = self.producer.get(value.name), "computed"
                if node is not None:
                    text += f", {how} by ONNX node '{node.name}' ({_op(node)})"
                    first_node = first_node or node.name
                texts.append(text)
        return "; ".join(texts) or f"ONNX graph '{self.proto.graph.name}'", first_node

    def _value(self, name: str) -> str:
        if name in self.initializers:
            tensor = self.initializers[name]
            declared = onnx.helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
            text = f"initializer '{name}' ({_type(declared)})"
        else:
            text = f"graph input '{name}' ({_type(self.inputs[name].type)})"
        users = self.users.get(name, [])
        if users:
            text += f", used by ONNX node '{users[0].name}' ({_op(users[0])})"
        return text


def _tensor_of_numbers(type_proto) -> bool:
    return (
        type_proto.WhichOneof("value") == "tensor_type"
        and type_proto.tensor_type.elem_type != onnx.TensorProto.STRING
    )


def _op(node) -> str:
    """A node's op type, with its domain when not ONNX's default one."""
    if node.domain in DEFAULT_DOMAINS:
        return node.op_type
    return f"{node.domain}.{node.op_type}"


def _type(type_proto) -> str:
    """An ONNX type as a declaration reads: float[N,5], optional(seq(int64[3]))."""
    kind = type_proto.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        tensor = getattr(type_proto, kind)
        element = onnx.TensorProto.DataType.Name(tensor.elem_type).lower()
        if kind == "sparse_tensor_type":
            element = f"sparse {element}"
        if not tensor.HasField("shape"):
            return element
        sizes = [
            str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?")
            for d in tensor.shape.dim
        ]
        return f"{element}[{','.join(sizes)}]"
    if kind == "sequence_type":
        return f"seq({_type(type_proto.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"optional({_type(type_proto.optional_type.elem_type)})"
    if kind == "map_type":
        key = onnx.TensorProto.DataType.Name(type_proto.map_type.key_type).lower()
        return f"map({key}, {_type(type_proto.map_type.value_type)})"
    return kind or "no type"


# An error diagnostic as MLIRError prints it: `error: LOCATION: message`, the
# location a quoted name (with a child location in parentheses or a line and
# column after it), `unknown`, or another form up to `: `.
_ERROR_LINE = re.compile(
    r'^error: (?:"((?:[^"\\]|\\.)*)"(?:\([^\n]*?\))?(?::\d+:\d+)?|(unknown)|[^\n]*?): (.*)$',
    re.MULTILINE,
)
_CURRENT_OPERATION = re.compile(r"^ note: unknown: see current operation: (.*)$", re.MULTILINE)


def _errors(diagnostics: str):
    """The error diagnostics in `diagnostics`, each as (location name, None
    for an unknown location or "" for another form; its message; the op its
    note shows, without value names, for an unknown location)."""
    from ..torch_mlir.worker import op_key

    matches = list(_ERROR_LINE.finditer(diagnostics))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(diagnostics)
        name, unknown, message = match.groups()
        if unknown:
            note = _CURRENT_OPERATION.search(diagnostics, match.end(), end)
            yield None, message, op_key(note.group(1)) if note else None
        else:
            name = re.sub(r"\\(.)", r"\1", name) if name is not None else ""
            yield name, message, None
