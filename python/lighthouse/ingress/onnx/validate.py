"""ONNX models checked before lowering, as strictly as onnxruntime refuses
them: ONNX's shape and type inference in strict mode, with the type
constraints of each op's schema, then, of the ranks and shapes it infers,
the inputs whose shapes it does not check (`input_shapes`) and the axes of
every node (attributes, or constant inputs). A model that fails is refused
with a ValueError naming the node, instead of lowered wrong (a Relu whose
graph output is declared BOOL, cast to it) or not at all (torch-mlir's
conversion of a Softmax whose axis is far past its rank does not return).
Where ONNX's own message names no node (an input type outside the schema,
inputs of one type parameter of different types, a Cast to no type, a graph
output declared of another type), lighthouse's checks name it."""

import collections
from typing import Callable, Dict, Iterator, Optional, Tuple

from .input_shapes import INPUT_SHAPES
from .places import all_nodes, subgraphs
from .values import (
    DEFAULT_DOMAINS,
    constant_values,
    default_opset,
    known_dims,
    static_shape,
    types_of,
)
from ..torch_mlir import require

onnx = require("onnx", "onnx")

__all__ = ["refuse_what_inference_lets_through", "validated"]

#: What ONNX's inference raises when it refuses a model: its own errors,
#: and ValueError for some (a Cast to an element type it does not have).
INFERENCE_ERRORS = (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, ValueError)

#: The node attributes that are axes of a tensor.
AXIS_ATTRIBUTES = ("axis", "axes")

#: The range of the axes of the ops whose axes do not index their first
#: input's dimensions (`_dimensions`), by the rank of that input and the
#: axes: Flatten's is where it splits them, after the last too;
#: OneHot's and Unsqueeze's index those of their output, which has more.
AXIS_RANGES: Dict[str, Callable[[int, list], Tuple[int, int]]] = {
    "Flatten": lambda rank, axes: (-rank, rank),
    "OneHot": lambda rank, axes: (-rank - 1, rank),
    "Unsqueeze": lambda rank, axes: (-rank - len(axes), rank + len(axes) - 1),
}


def _dimensions(rank: int, axes: list) -> Tuple[int, int]:
    """The range of the axes that index the dimensions of a tensor of `rank`."""
    return -rank, rank - 1


def validated(proto: "onnx.ModelProto", source: str, data_prop: bool = True) -> "onnx.ModelProto":
    """`proto`, which passes ONNX's checker, with its shapes and types
    inferred by ONNX in strict mode (ONNX's full check of a model, with
    data propagation added).

    ONNX's inference of some ops misses the defaults of the attributes a
    node leaves out (MeanVarianceNormalization's function its `axes`,
    STFT's its `onesided`), and then refuses a valid model: a model that
    fails is tried again as a copy with the defaults set, then the model
    returned.

    Raises:
      ValueError: ONNX's inference fails (a type its op's schema does not
        allow, a declared type or shape other than the one computed), an
        input's shape is one its op does not take, or an axis is outside
        the rank of what it indexes; the message names the node where
        ONNX's or lighthouse's checks find it, and says what `source` is.
    """
    # `onnx.checker.check_model(full_check=True)` is the checker's checks,
    # which `load` runs, and this inference without data propagation: run
    # once, it is also the inference that gives the importer its shapes.
    try:
        inferred = _strictly_inferred(proto, data_prop)
    except INFERENCE_ERRORS as error:
        inferred = _inferred_with_defaults(proto, data_prop)
        if inferred is None:
            _refuse_naming_the_node(proto, source)
            raise ValueError(f"{source} fails ONNX's shape and type inference: {error}") from None
    refuse_what_inference_lets_through(inferred, source)
    return inferred


def refuse_what_inference_lets_through(proto: "onnx.ModelProto", source: str) -> None:
    """Raises a ValueError naming the first node of `proto`, whose shapes
    and types ONNX inferred, with an input of a shape its op does not take,
    or an axis out of range, of the ranks and shapes inferred."""
    types = _all_types(proto.graph)
    _refuse_input_shapes_not_taken(proto, types, source)
    _refuse_axes_out_of_range(proto, types, source)


def _strictly_inferred(proto: "onnx.ModelProto", data_prop: bool) -> "onnx.ModelProto":
    return onnx.shape_inference.infer_shapes(
        proto, check_type=True, strict_mode=True, data_prop=data_prop
    )


def _refuse_naming_the_node(proto: "onnx.ModelProto", source: str) -> None:
    """Raises the ValueError of lighthouse's checks that name the node, if
    one fails, for `proto` that ONNX's strict inference refuses. They run on
    ONNX's lenient inference, which goes on past the nodes it fails on."""
    try:
        lenient = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    except INFERENCE_ERRORS:
        return  # ONNX's message alone, then.
    refuse_what_inference_lets_through(lenient, source)
    _refuse_unknown_element_types(lenient, source)
    _refuse_types_outside_schemas(lenient, source)
    _refuse_outputs_declared_otherwise(lenient, source)


def _schema(node, opset: Optional[int]) -> Optional["onnx.defs.OpSchema"]:
    """The schema of `node`'s op at `opset`, None for another domain's op."""
    if node.domain not in DEFAULT_DOMAINS or opset is None:
        return None
    try:
        return onnx.defs.get_schema(node.op_type, max_inclusive_version=opset, domain="")
    except onnx.defs.SchemaError:
        return None


def _inferred_with_defaults(
    proto: "onnx.ModelProto", data_prop: bool
) -> Optional["onnx.ModelProto"]:
    """A copy of `proto` whose nodes have the attributes they leave out set
    to their defaults, strictly inferred; None if no node leaves one out, or
    ONNX's inference refuses the copy too."""
    opset = default_opset(proto)
    missing = []
    for index, node in enumerate(all_nodes(proto.graph)):
        schema = _schema(node, opset)
        if schema is None:
            continue
        given = {attribute.name for attribute in node.attribute}
        defaults = [
            attribute.default_value
            for name, attribute in schema.attributes.items()
            if name not in given and attribute.default_value.name
        ]
        if defaults:
            missing.append((index, defaults))
    if not missing:
        return None
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    nodes = all_nodes(copy.graph)
    for index, defaults in missing:
        nodes[index].attribute.extend(defaults)
    try:
        return _strictly_inferred(copy, data_prop)
    except INFERENCE_ERRORS:
        return None


def _all_types(graph) -> Dict[str, "onnx.TypeProto"]:
    """The types of the values of `graph` and of its nodes' subgraphs."""
    types = types_of(graph)
    for node in graph.node:
        for _, subgraph in subgraphs(node):
            types.update(_all_types(subgraph))
    return types


def _rank(types, name: str) -> Optional[int]:
    """The rank of the tensor `name`, None when not known."""
    value_type = types.get(name)
    if value_type is None or not value_type.tensor_type.HasField("shape"):
        return None
    return len(value_type.tensor_type.shape.dim)


def _ignores_axis(node, schema, types) -> bool:
    """Whether ONNX ignores `node`'s axis: the first binary ops' without
    `broadcast` set, QuantizeLinear's and DequantizeLinear's of a scale of
    one value (per tensor)."""
    attributes = {attribute.name: attribute for attribute in node.attribute}
    if "broadcast" in schema.attributes:
        return "broadcast" not in attributes or attributes["broadcast"].i != 1
    if node.op_type in ("QuantizeLinear", "DequantizeLinear") and len(node.input) > 1:
        shape = static_shape(types[node.input[1]]) if node.input[1] in types else None
        return shape is not None and all(size == 1 for size in shape)
    return False


def _axes_of(node, schema, constants) -> Iterator[Tuple[str, list]]:
    """The axes `node` takes, each list with the words that say where it
    takes it: of its axis attributes, and of its inputs of axes that are
    constants (ReduceSum's, Unsqueeze's from opset 13 on), flattened (their
    ranks are checked with the other inputs' shapes)."""
    for attribute in node.attribute:
        if attribute.name not in AXIS_ATTRIBUTES:
            continue
        if attribute.type == onnx.AttributeProto.INT:
            yield attribute.name, [attribute.i]
        elif attribute.type == onnx.AttributeProto.INTS:
            yield attribute.name, list(attribute.ints)
        # Else ONNX's checker refuses the attribute's type.
    for formal, name in zip(schema.inputs, node.input):
        if formal.name not in AXIS_ATTRIBUTES or name not in constants:
            continue
        value = constants[name]
        if value.dtype.kind == "i":  # Else ONNX's inference refuses its type.
            yield f"{formal.name} (input {name!r})", value.reshape(-1).tolist()


def _refuse_axes_out_of_range(proto: "onnx.ModelProto", types, source: str) -> None:
    """Raises a ValueError naming the first node with an axis attribute, or
    an input of axes that is a constant, outside the range of the dimensions
    it indexes, of ranks `proto`'s inference knows (`types`)."""
    opset = default_opset(proto)
    graphs = [proto.graph, *(g for node in all_nodes(proto.graph) for _, g in subgraphs(node))]
    constants = collections.ChainMap(*(constant_values(graph) for graph in graphs))
    for node in all_nodes(proto.graph):
        schema = _schema(node, opset)
        if schema is None or not node.input or _ignores_axis(node, schema, types):
            continue
        rank = _rank(types, node.input[0])
        for where, axes in _axes_of(node, schema, constants):
            if rank is None:
                continue
            low, high = AXIS_RANGES.get(node.op_type, _dimensions)(rank, axes)
            outside = [axis for axis in axes if not low <= axis <= high]
            if outside:
                raise ValueError(
                    f"{source}: ONNX node {node.name!r} ({node.op_type}): {where} "
                    f"{', '.join(map(str, outside))} out of range for its input "
                    f"{node.input[0]!r} of rank {rank} (from {low} to {high})"
                )


def _refuse_input_shapes_not_taken(proto: "onnx.ModelProto", types, source: str) -> None:
    """Raises a ValueError naming the first node with an input of a shape
    its op does not take (`INPUT_SHAPES`), of the ranks and sizes `proto`'s
    inference knows (`types`)."""
    opset = default_opset(proto)
    for node in all_nodes(proto.graph):
        takes = INPUT_SHAPES.get(node.op_type)
        schema = _schema(node, opset) if takes else None
        if schema is None:
            continue
        output = None
        if any(shape.of_output for shape in takes.values()):
            computed = _computed_outputs(proto, schema, node, types).get(node.output[0])
            output = known_dims(computed) if computed is not None else None
        for formal, name in zip(schema.inputs, node.input):
            shape = takes.get(formal.name)
            dims = known_dims(types[name]) if name in types else None
            if shape is None or dims is None or not shape.refuses(dims, output):
                continue
            raise ValueError(
                f"{source}: ONNX node {node.name!r} ({node.op_type}): input {name!r} "
                f"({formal.name}) is of shape {_dims_text(dims)}, where {node.op_type} takes "
                + shape.says.format(output=_dims_text(output or []))
            )


def _dims_text(dims) -> str:
    """Dimensions as a list reads, "?" for one not known: [?, 3]."""
    return "[" + ", ".join("?" if size is None else str(size) for size in dims) + "]"


def _type_text(value_type) -> Optional[str]:
    """A tensor type as ONNX's schemas spell it ("tensor(uint8)"), None for
    another type or a tensor of no element type ONNX knows."""
    element_type = _element_type(value_type)
    if not element_type or element_type not in onnx.TensorProto.DataType.values():
        return None
    return f"tensor({onnx.TensorProto.DataType.Name(element_type).lower()})"


#: The node attributes that are element types (Cast's `to`).
ELEMENT_TYPE_ATTRIBUTES = ("to", "dtype", "output_dtype")


def _refuse_unknown_element_types(proto: "onnx.ModelProto", source: str) -> None:
    """Raises a ValueError naming the first node with an attribute of an
    element type that is none ONNX has: ONNX's message names no node."""
    known = set(onnx.TensorProto.DataType.values())
    for node in all_nodes(proto.graph):
        for attribute in node.attribute:
            if (
                attribute.name in ELEMENT_TYPE_ATTRIBUTES
                and attribute.type == onnx.AttributeProto.INT
                and attribute.i not in known
            ):
                raise ValueError(
                    f"{source}: ONNX node {node.name!r} ({node.op_type}): {attribute.name} "
                    f"{attribute.i} is no element type of ONNX's"
                )


def _refuse_types_outside_schemas(proto: "onnx.ModelProto", source: str) -> None:
    """Raises a ValueError naming the first node with an input of a type
    its op's schema does not allow (a Softmax of uint8), or inputs of one
    type parameter of different types (a Less of float and bfloat16)."""
    opset = default_opset(proto)
    types = _all_types(proto.graph)
    for node in all_nodes(proto.graph):
        schema = _schema(node, opset)
        if schema is None or not schema.inputs:
            continue
        allowed = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
        bound = {}  # The input each type parameter is bound to, and its type.
        for index, name in enumerate(node.input):
            # A variadic last formal parameter takes the inputs past it too.
            formal = schema.inputs[min(index, len(schema.inputs) - 1)]
            text = _type_text(types[name]) if name in types else None
            if text is None:
                continue
            at = f"{source}: ONNX node {node.name!r} ({node.op_type}): input {name!r} is {text}"
            kinds = allowed.get(formal.type_str, [formal.type_str])
            if text not in kinds:
                raise ValueError(
                    f"{at}, which {node.op_type} of opset {schema.since_version} does not "
                    f"take as {formal.name} (it takes {', '.join(kinds)})"
                )
            if formal.type_str not in allowed or not formal.is_homogeneous:
                continue
            first, first_text = bound.setdefault(formal.type_str, (name, text))
            if text != first_text:
                raise ValueError(
                    f"{at} and input {first!r} {first_text}, which {node.op_type} takes of "
                    f"one type ({formal.type_str})"
                )


def _element_type(value_type) -> int:
    return value_type.tensor_type.elem_type if value_type.HasField("tensor_type") else 0


def _refuse_outputs_declared_otherwise(proto: "onnx.ModelProto", source: str) -> None:
    """Raises a ValueError naming the first graph output whose declared
    element type is not the one its node computes by ONNX's inference of
    that node alone (lighthouse would cast to it)."""
    opset = default_opset(proto)
    types = _all_types(proto.graph)
    producers = {output: node for node in proto.graph.node for output in node.output}
    for value in proto.graph.output:
        node = producers.get(value.name)
        schema = _schema(node, opset) if node is not None else None
        if _type_text(value.type) is None or schema is None:
            continue
        computed = _computed_outputs(proto, schema, node, types)
        if value.name not in computed:
            continue
        declared, computes = _type_text(value.type), _type_text(computed[value.name])
        if computes is not None and computes != declared:
            raise ValueError(
                f"{source}: graph output {value.name!r} is declared {declared}, but "
                f"ONNX node {node.name!r} ({node.op_type}) computes {computes}"
            )


def _computed_outputs(proto: "onnx.ModelProto", schema, node, types) -> Dict[str, "onnx.TypeProto"]:
    """The types of `node`'s outputs by ONNX's inference of that node alone,
    from the types of its inputs in `types` (a graph output's declared type
    may be another); none where it fails (the node's own failure, which
    ONNX's message names)."""
    inputs = {name: types[name] for name in node.input if name in types}
    try:
        return onnx.shape_inference.infer_node_outputs(
            schema, node, inputs, opset_imports=list(proto.opset_import)
        )
    except (*INFERENCE_ERRORS, KeyError):
        return {}
