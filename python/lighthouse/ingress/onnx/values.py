"""Types, shapes, constants and uses of the values of ONNX graphs, and the
replacement of their nodes, for the rewrites before import."""

import collections.abc
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Set

from ..torch_mlir import require

onnx = require("onnx", "onnx")
helper = require("onnx.helper", "onnx")
np = require("numpy", "onnx")  # onnx's dependency

__all__ = [
    "DEFAULT_DOMAINS",
    "along_axis",
    "attributes_of",
    "constant_node",
    "constant_node_value",
    "constant_values",
    "default_opset",
    "fresh_name",
    "known_dims",
    "lighthouse_function",
    "replace_nodes",
    "source_value",
    "static_shape",
    "static_shapes",
    "text_of",
    "types_of",
    "used_names",
    "with_used_nodes",
    "without_initializers",
]

#: The names of ONNX's default domain.
DEFAULT_DOMAINS = ("", "ai.onnx")


def types_of(graph: "onnx.GraphProto") -> Dict[str, "onnx.TypeProto"]:
    """The types of the graph's values that have one."""
    types = {
        tensor.name: onnx.helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
        for tensor in graph.initializer
    }
    for value in [*graph.input, *graph.value_info, *graph.output]:
        if value.type.WhichOneof("value"):
            types[value.name] = value.type
    return types


def used_names(nodes) -> Set[str]:
    """The values `nodes` use, in their subgraphs too."""
    used = set()
    pending = list(nodes)
    while pending:
        node = pending.pop()
        used.update(node.input)
        for attribute in node.attribute:
            for subgraph in [attribute.g, *attribute.graphs]:
                used.update(value.name for value in subgraph.output)
                pending.extend(subgraph.node)
    return used


def known_dims(value_type) -> Optional[List[Optional[int]]]:
    """The dimensions of a tensor type, None for those not known; None if
    its rank is not known."""
    tensor_type = value_type.tensor_type
    if not value_type.HasField("tensor_type") or not tensor_type.HasField("shape"):
        return None
    return [dim.dim_value if dim.HasField("dim_value") else None for dim in tensor_type.shape.dim]


def static_shape(value_type) -> Optional[List[int]]:
    """The dimensions of a tensor type, None unless all are known."""
    dims = known_dims(value_type)
    return None if dims is None or None in dims else dims


def constant_node_value(node) -> Optional["np.ndarray"]:
    """The value of a Constant node of a tensor or of numbers."""
    for attribute in node.attribute:
        if attribute.name == "value":
            return onnx.numpy_helper.to_array(attribute.t)
        if attribute.name in ("value_int", "value_ints", "value_float", "value_floats"):
            return np.array(onnx.helper.get_attribute_value(attribute))
    return None


def source_value(source) -> Optional["np.ndarray"]:
    """The value of an initializer or of a Constant node (None for a Constant
    of a sparse tensor or of strings)."""
    if isinstance(source, onnx.TensorProto):
        return onnx.numpy_helper.to_array(source)
    return constant_node_value(source)


def constant_values(graph) -> Mapping[str, "np.ndarray"]:
    """The values of the graph's initializers that are not inputs (which the
    caller may override), and of its Constant nodes, each read from the
    graph when first asked for: a model's weights are most of its
    initializers, and reading them all took 0.3 s of a 134 MB model's
    rewrites that asked for none."""
    return _Constants(graph)


class _Constants(collections.abc.Mapping):
    def __init__(self, graph):
        inputs = {value.name for value in graph.input}
        self._sources = {
            tensor.name: tensor for tensor in graph.initializer if tensor.name not in inputs
        }
        for node in graph.node:
            if node.op_type == "Constant" and node.domain in DEFAULT_DOMAINS:
                self._sources[node.output[0]] = node
        self._values: Dict[str, "np.ndarray"] = {}

    def __getitem__(self, name: str) -> "np.ndarray":
        if name not in self._values:
            value = source_value(self._sources[name])
            if value is None:
                raise KeyError(name)
            self._values[name] = value
        return self._values[name]

    def __contains__(self, name) -> bool:
        # An initializer is there without reading its value (folding asks of
        # every input of a node, weights among them); a Constant node only
        # if it holds a value lighthouse reads.
        source = self._sources.get(name)
        if source is None or isinstance(source, onnx.TensorProto):
            return source is not None
        return self.get(name) is not None

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._sources if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def replace_nodes(graph, replacement: Callable[..., Optional[List["onnx.NodeProto"]]]) -> int:
    """Replaces in place each node of `graph` for which `replacement(node)`
    gives nodes by those nodes; returns how many it replaced."""
    nodes: List["onnx.NodeProto"] = []
    count = 0
    for node in graph.node:
        replaced = replacement(node)
        if replaced is None:
            nodes.append(node)
        else:
            nodes.extend(replaced)
            count += 1
    if count:
        del graph.node[:]
        graph.node.extend(nodes)
    return count


def fresh_name(taken: Set[str], counter: Iterator[int], stem: str) -> str:
    """`stem` with the next number of `counter` that makes a name not in
    `taken`, which it joins."""
    while True:
        name = f"{stem}_{next(counter)}"
        if name not in taken:
            taken.add(name)
            return name


def with_used_nodes(proto: "onnx.ModelProto", nodes) -> "onnx.ModelProto":
    """A copy of `proto` whose main graph holds those of `nodes` that its
    outputs use, directly or through others (last first, so that chains go
    at once)."""
    used = {value.name for value in proto.graph.output}
    kept = []
    for node in reversed(nodes):
        if any(name in used for name in node.output):
            used |= used_names([node])
            kept.append(node)
    kept.reverse()
    result = onnx.ModelProto()
    result.CopyFrom(proto)
    del result.graph.node[:]
    result.graph.node.extend(kept)
    return result


def constant_node(name: str, value: "np.ndarray") -> "onnx.NodeProto":
    """A Constant node named `name` giving `value`."""
    return onnx.helper.make_node(
        "Constant", [], [name], name=name, value=onnx.numpy_helper.from_array(value, name)
    )


def along_axis(op_type: str, value: str, axis: int, output: str, opset: int) -> list:
    """The nodes of `op_type` (Unsqueeze or Squeeze) of `value` along `axis`,
    named `output`: the axes an attribute before opset 13, an input since."""
    if opset < 13:
        return [onnx.helper.make_node(op_type, [value], [output], name=output, axes=[axis])]
    axes = f"{output}/axes"
    return [
        constant_node(axes, np.array([axis], np.int64)),
        onnx.helper.make_node(op_type, [value, axes], [output], name=output),
    ]


def text_of(value) -> str:
    """A string attribute's value as text (onnx gives bytes)."""
    return value.decode() if isinstance(value, bytes) else value


def default_opset(proto: "onnx.ModelProto", missing=None):
    """The model's opset of ONNX's default domain, `missing` if it imports none."""
    return next((o.version for o in proto.opset_import if o.domain in DEFAULT_DOMAINS), missing)


def attributes_of(node) -> dict:
    """A node's attributes, by name."""
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def static_shapes(types, *names) -> Optional[List[List[int]]]:
    """The static shapes of the values `names`, None unless all have one."""
    shapes = [static_shape(types[name]) if name in types else None for name in names]
    return None if None in shapes else shapes


def lighthouse_function(node, inputs, outputs, nodes, opset: int) -> "onnx.FunctionProto":
    """The function of lighthouse's domain that `node` expands into: `nodes`
    of ONNX's default domain at `opset`, from `inputs` to `outputs`."""
    return helper.make_function(
        "lighthouse", node.op_type, inputs, outputs, nodes, [helper.make_opsetid("", opset)]
    )


#: Initializers of more elements are left out of the model shape inference
#: runs on (`without_initializers`): shapes and axes are smaller.
_INFERENCE_ELEMENTS = 1024


def inferred_shapes(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """`proto`, which the caller owns, with the shapes and types ONNX's
    inference gives its values (data propagated: shapes computed from small
    constants), as `onnx.shape_inference.infer_shapes` gives them. With
    initializers of more than `_INFERENCE_ELEMENTS` elements, inference runs
    on the model without them (`without_initializers`) and `proto`'s nodes
    (their subgraphs inferred too), value_info and outputs are replaced by
    the inferred ones, in place: inference serializes the model it is given,
    and a model over protobuf's 2 GiB (RegNet-Y-128GF, ViT-H/14) has no
    serialized form; for the others, it spares two copies of their
    weights."""
    large = any(int(np.prod(t.dims)) > _INFERENCE_ELEMENTS for t in proto.graph.initializer)
    if not large:
        return onnx.shape_inference.infer_shapes(proto, data_prop=True)
    inferred = onnx.shape_inference.infer_shapes(without_initializers(proto), data_prop=True)
    for field in ("node", "value_info", "output"):
        values = getattr(proto.graph, field)
        del values[:]
        values.extend(getattr(inferred.graph, field))
    return proto


def without_initializers(proto: "onnx.ModelProto") -> "onnx.ModelProto":
    """A copy of `proto` whose initializers of more than
    `_INFERENCE_ELEMENTS` elements are typed inputs."""
    model = onnx.ModelProto()
    model.ir_version = proto.ir_version
    model.opset_import.extend(proto.opset_import)
    model.functions.extend(proto.functions)
    graph = model.graph
    for field in ("node", "input", "output", "value_info", "sparse_initializer"):
        getattr(graph, field).extend(getattr(proto.graph, field))
    inputs = {value.name for value in proto.graph.input}
    for tensor in proto.graph.initializer:
        if int(np.prod(tensor.dims)) <= _INFERENCE_ELEMENTS:
            graph.initializer.append(tensor)
        elif tensor.name not in inputs:
            graph.input.append(
                helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims)
            )
    return model
