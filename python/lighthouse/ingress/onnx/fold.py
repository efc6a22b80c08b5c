"""ONNX models rewritten at the ONNX level before import: ops inlined as the
functions ONNX defines them by, and values computed from constants alone
folded into constants.

torch-mlir lowers some ops only when an input is a constant: the axes of the
reductions, the shape of Reshape, the sizes of Resize. ONNX's functions often
compute such inputs at run time from the shapes of other values
(RMSNormalization reduces over `Range(axis, Size(Shape(X)), 1)`); once shape
inference knows those shapes, the whole chain is a constant, and folding it
gives the lowering the constant it needs.
"""

import math
from typing import Dict, Iterable, List, Optional, Set, Tuple, Union

from .values import (
    inferred_shapes,
    DEFAULT_DOMAINS,
    attributes_of,
    constant_values,
    default_opset,
    known_dims,
    source_value,
    static_shape,
    types_of,
    used_names,
    with_used_nodes,
)
from .functions import schema_function
from .rules import Site
from .rules import function_of as rule_function_of
from ...errors import IngressError
from ..torch_mlir import require

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
inliner = require("onnx.inliner", "onnx")
reference = require("onnx.reference", "onnx")

__all__ = ["MAX_FOLDED_ELEMENTS", "expand_functions", "fold_constants"]

#: The largest value folded, in elements. A folded value is stored in the
#: model and crosses to torch-mlir and back as a resource; the inputs folding
#: is for (axes, shapes, pads, sizes) are a few elements, and a bound of 1M
#: (4 MB of f32) keeps a fill or broadcast of a whole activation from being
#: written out as data where the lowering would compute it.
MAX_FOLDED_ELEMENTS = 1 << 20

#: Ops kept whole though every input is a constant. The random ones give
#: other values at each run; folding DequantizeLinear would store quantized
#: weights as float, 4x their int8 size.
NOT_FOLDED = frozenset(
    {
        "Bernoulli",
        "DequantizeLinear",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    }
)


#: The domain of the model-local functions `expand_functions` makes.
_EXPANDED_DOMAIN = "lighthouse.expanded"


def expand_functions(proto: "onnx.ModelProto", ops: Iterable[str]) -> "onnx.ModelProto":
    """Replaces the main graph's nodes of the default domain's `ops` by the
    functions ONNX defines them by at the model's opset, where it does, or
    else the function a rule expands it into (`rules`), then infers shapes again for the
    values they introduce.

    Each node's function, specialized to its attributes and input types
    where ONNX's definition depends on them, becomes a model-local function
    that ONNX's inliner inlines. The inliner does not expand the schemas'
    functions itself: it fails on an omitted optional input followed by
    others (Attention with past keys and no mask, 15 of ONNX's node tests).
    """
    if not any(n.domain in DEFAULT_DOMAINS and n.op_type in ops for n in proto.graph.node):
        return proto
    opset = default_opset(proto)
    functions = _functions_of(proto, ops, opset)
    newer = max(
        (
            o.version
            for function in functions.values()
            for o in function.opset_import
            if o.domain in DEFAULT_DOMAINS and opset is not None and o.version > opset
        ),
        default=None,
    )
    if newer is not None:
        # lighthouse's function is of a later opset. The inliner converts a
        # function to the model's opset, and ONNX's converter does not
        # convert down: the model goes up to the function's instead.
        try:
            proto = onnx.version_converter.convert_version(proto, newer)
        except Exception:  # noqa: BLE001 - onnx's C++ converter fails in its own ways
            return proto
        opset = newer
        functions = _functions_of(proto, ops, opset)
    if not functions:
        return proto
    expanded = onnx.ModelProto()
    expanded.CopyFrom(proto)
    for count, (index, function) in enumerate(functions.items()):
        node = expanded.graph.node[index]
        # Named after the node they expand, so that errors in them name it.
        for position, inner in enumerate(function.node):
            inner.name = f"{node.name}/{inner.name or f'{inner.op_type}_{position}'}"
        # lighthouse's functions read the inputs they do not take as
        # constants.
        del node.input[len(function.input) :]
        function.name = f"{node.op_type}_{count}"
        function.domain = _EXPANDED_DOMAIN
        expanded.functions.append(function)
        node.op_type, node.domain = function.name, function.domain
    # The inliner takes the types of the values a function is called with
    # from the graph's inputs and value_info, not from its initializers.
    graph = expanded.graph
    typed = {value.name for value in [*graph.input, *graph.value_info, *graph.output]}
    graph.value_info.extend(
        onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims)
        for tensor in graph.initializer
        if tensor.name not in typed
    )
    expanded.opset_import.append(onnx.helper.make_opsetid(_EXPANDED_DOMAIN, 1))
    try:
        expanded = inliner.inline_local_functions(expanded, convert_version=True)
    except RuntimeError as error:  # onnx's C++ checks, as RuntimeError
        raise IngressError(
            f"ONNX's inliner could not expand {', '.join(sorted(ops))} into the "
            f"functions ONNX defines them by: {error}"
        ) from None
    kept = [o for o in expanded.opset_import if o.domain != _EXPANDED_DOMAIN]
    del expanded.opset_import[:]
    expanded.opset_import.extend(kept)
    return inferred_shapes(expanded)


def _functions_of(proto, ops, opset) -> Dict[int, "onnx.FunctionProto"]:
    """The function of each main-graph node of the default domain's `ops`,
    by position: ONNX's at `opset`, or else lighthouse's, where there is
    one."""
    types = types_of(proto.graph)
    constants = constant_values(proto.graph)
    functions = {}
    for index, node in enumerate(proto.graph.node):
        if node.domain in DEFAULT_DOMAINS and node.op_type in ops:
            function = schema_function(node, opset, types) or rule_function_of(
                Site(node, types, constants, opset or 0)
            )
            if function is not None:
                functions[index] = function
    return functions


def fold_constants(
    proto: "onnx.ModelProto", max_elements: int = MAX_FOLDED_ELEMENTS
) -> "onnx.ModelProto":
    """Replaces each node of the main graph whose inputs are all constants
    (initializers that are not graph inputs, Constant nodes, Shape and Size
    of values whose shape is static) by Constant nodes of its results,
    computed by ONNX's reference evaluator, and each If of a constant
    condition by the nodes of the branch it takes. Repeats, with shape inference in
    between, until nothing more folds; the nodes only folded ones used go.
    Graph inputs and outputs keep their names and types; results of more
    than `max_elements` elements, and nodes whose results no node uses, are
    left as they are. Returns `proto` itself when nothing folds."""
    while True:
        proto, folded = _fold_once(proto, max_elements)
        if not folded:
            return proto
        # The importer takes the types of values from shape inference, which
        # knows more of them with folded inputs (ReduceMean's result with
        # folded axes) and can make more shapes static (a Reshape to a folded
        # shape), whose Shape and Size then fold in the next round.
        proto = inferred_shapes(proto)


#: An initializer, or a Constant node.
_Source = Union["onnx.TensorProto", "onnx.NodeProto"]


def _fold_once(proto: "onnx.ModelProto", max_elements: int) -> Tuple["onnx.ModelProto", int]:
    graph = proto.graph
    inputs = {value.name for value in graph.input}
    # An initializer that is also a graph input is a default the caller may
    # override, not a constant.
    constants: Dict[str, _Source] = {
        tensor.name: tensor for tensor in graph.initializer if tensor.name not in inputs
    }
    types = types_of(graph)
    used = used_names(graph.node)
    opsets = {opset.domain: opset.version for opset in proto.opset_import}

    nodes: List["onnx.NodeProto"] = []
    folded = 0
    defined = _defined_names(graph)
    # The sizes (None where dynamic) of the Shapes that do not fold.
    partial_shapes: Dict[str, Optional[List[Optional[int]]]] = {}
    for node in graph.node:
        results = None
        if node.domain in DEFAULT_DOMAINS and node.op_type == "If" and node.input[0] in constants:
            branch = _taken_branch(node, constants[node.input[0]], defined)
            if branch is not None:
                nodes.extend(branch)
                folded += 1
                continue
        if node.domain in DEFAULT_DOMAINS and any(name in used for name in node.output):
            if node.op_type == "Constant":
                constants[node.output[0]] = node
            elif node.op_type in ("Shape", "Size"):
                results = _shape_or_size(node, types)
                if results is None and node.op_type == "Shape":
                    partial_shapes[node.output[0]] = _shape_dims(node, types)
            elif node.op_type == "Gather" and node.input[0] in partial_shapes:
                results = _gathered_sizes(node, partial_shapes[node.input[0]], constants)
            elif node.op_type == "Slice" and node.input[0] in partial_shapes:
                results = _sliced_sizes(node, partial_shapes[node.input[0]], constants, opsets)
            if results is None and _foldable(node, constants):
                results = _evaluate(node, constants, opsets, types, max_elements)
        if results is None:
            nodes.append(node)
            continue
        folded += 1
        for name, tensor in results.items():
            constant = onnx.helper.make_node("Constant", [], [name], name=node.name, value=tensor)
            constants[name] = constant
            nodes.append(constant)
    if not folded:
        return proto, 0

    # Nodes only the folded ones used go (their Constant inputs, Shape of a
    # value whose Size folded).
    return with_used_nodes(proto, nodes), folded


def _defined_names(graph) -> Set[str]:
    """The values `graph` defines: its inputs, initializers and node results."""
    defined = {value.name for value in graph.input}
    defined |= {tensor.name for tensor in graph.initializer}
    defined |= {output for node in graph.node for output in node.output}
    return defined


def _taken_branch(node, condition: _Source, defined: Set[str]) -> Optional[List["onnx.NodeProto"]]:
    """The nodes that compute what If `node` gives for a constant
    `condition`: those of the branch it takes, and Identity nodes from the
    branch's results to the If's; None if a value the branch defines has
    the name of one of the graph's (`defined`), which ONNX allows a
    subgraph to shadow."""
    value = source_value(condition)
    if value is None or value.size != 1:
        return None
    name = "then_branch" if bool(value.reshape(())) else "else_branch"
    branch = next((a.g for a in node.attribute if a.name == name), None)
    if branch is None or _defined_names(branch) & defined:
        return None
    nodes = [
        onnx.helper.make_node("Constant", [], [t.name], name=f"{node.name}/{t.name}", value=t)
        for t in branch.initializer
    ]
    for index, inner in enumerate(branch.node):
        # Named after the If, as the nodes of its branches are (`If_2/...`),
        # so that errors in them name it.
        inlined = onnx.NodeProto()
        inlined.CopyFrom(inner)
        inlined.name = f"{node.name}/{inner.name or f'{inner.op_type}_{index}'}"
        nodes.append(inlined)
    for inner, outer in zip(branch.output, node.output):
        if outer:
            nodes.append(
                onnx.helper.make_node(
                    "Identity", [inner.name], [outer], name=f"{node.name}/{outer}"
                )
            )
    return nodes


def _shape_or_size(node, types) -> Optional[Dict[str, "onnx.TensorProto"]]:
    """Shape and Size of a value of static shape, which need not be constant."""
    value_type = types.get(node.input[0])
    shape = static_shape(value_type) if value_type is not None else None
    if shape is None:
        return None
    if node.op_type == "Size":
        value = np.array(math.prod(shape), dtype=np.int64)
    else:
        value = np.array(_shape_dims(node, types), np.int64)
    return {node.output[0]: onnx.numpy_helper.from_array(value, node.output[0])}


def _shape_dims(node, types) -> Optional[List[Optional[int]]]:
    """The sizes a Shape `node` gives, None for those not static; None if
    the rank is not known."""
    value_type = types.get(node.input[0])
    dims = known_dims(value_type) if value_type is not None else None
    if dims is None:
        return None
    attributes = attributes_of(node)
    # ONNX's start and end count from the back when negative and are
    # clamped to the rank, as Python's slices are.
    return dims[attributes.get("start", 0) : attributes.get("end")]


def _gathered_sizes(node, dims, constants) -> Optional[Dict[str, "onnx.TensorProto"]]:
    """A Gather of sizes of a Shape (`dims`) at constant indices, when the
    sizes it gathers are static though others are not: a Swin's window
    padding computed from its image's 56 x 56 at any batch."""
    indices = source_value(constants[node.input[1]]) if node.input[1] in constants else None
    if dims is None or indices is None or attributes_of(node).get("axis", 0) != 0:
        return None
    flat = indices.reshape(-1)
    if not all(-len(dims) <= int(index) < len(dims) for index in flat):
        return None  # Out of range: left for the model's own error.
    gathered = [dims[int(index)] for index in flat]
    if None in gathered:
        return None
    value = np.array(gathered, np.int64).reshape(indices.shape)
    return {node.output[0]: onnx.numpy_helper.from_array(value, node.output[0])}


def _sliced_sizes(node, dims, constants, opsets) -> Optional[Dict[str, "onnx.TensorProto"]]:
    """A Slice of sizes of a Shape (`dims`) by constant bounds, when the
    sizes it takes are static though others are not: TorchScript's export
    of `x.size(-1)`, a Slice of x's Shape from -1, that a Reshape to
    [-1, x.size(-1)] takes."""
    if dims is None or not all(name in constants for name in node.input[1:] if name):
        return None
    # ONNX's own Slice of the positions of the sizes says which it takes.
    positions = np.arange(len(dims), dtype=np.int64)
    positions = onnx.numpy_helper.from_array(positions, node.input[0])
    sources = {name: constants[name] for name in node.input[1:] if name}
    sources[node.input[0]] = positions
    sliced = _evaluate(node, sources, opsets, {}, len(dims))
    if sliced is None:
        return None
    taken = [dims[int(i)] for i in onnx.numpy_helper.to_array(sliced[node.output[0]])]
    if None in taken:
        return None
    value = np.array(taken, np.int64)
    return {node.output[0]: onnx.numpy_helper.from_array(value, node.output[0])}


def _foldable(node, constants) -> bool:
    inputs = [name for name in node.input if name]
    return (
        node.op_type not in NOT_FOLDED
        and bool(inputs)
        and all(name in constants for name in inputs)
        # If, Loop and Scan run graphs of their own.
        and not any(a.type in (a.GRAPH, a.GRAPHS) for a in node.attribute)
    )


def _evaluate(
    node, constants, opsets, types, max_elements
) -> Optional[Dict[str, "onnx.TensorProto"]]:
    outputs = [name for name in node.output if name]
    for name in outputs:
        shape = static_shape(types[name]) if name in types else None
        if shape is not None and math.prod(shape) > max_elements:
            return None
    sources = {name: constants[name] for name in node.input if name}
    graph = onnx.helper.make_graph(
        [source for source in sources.values() if isinstance(source, onnx.NodeProto)] + [node],
        "fold",
        [],
        [onnx.ValueInfoProto(name=name) for name in outputs],
        initializer=[source for source in sources.values() if isinstance(source, onnx.TensorProto)],
    )
    try:
        values = reference.ReferenceEvaluator(graph, opsets=opsets).run(None, {})
    except Exception:
        # An op the reference evaluator does not implement, or implements for
        # other types only: the lowering gets the node as it was.
        return None
    results = {}
    for name, value in zip(outputs, values):
        if not hasattr(value, "dtype") or value.size > max_elements:
            return None  # a sequence or optional, or too large
        tensor = onnx.numpy_helper.from_array(np.asarray(value), name)
        expected = types[name].tensor_type.elem_type if name in types else 0
        if expected and tensor.data_type != expected:
            return None
        results[name] = tensor
    return results
