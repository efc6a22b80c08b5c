"""Exported programs in the form torch-mlir's FX importer takes, and the
importer's failures as lighthouse's errors.

torch.export lifts a model's state into inputs of its graph: parameters and
persistent buffers (values in `program.state_dict`), non-persistent buffers
and tensor constants (values in `program.constants`). torch-mlir's
`import_frozen_program` replaces those inputs by their values, but looks up
every buffer in the state dict, so a model with a non-persistent buffer
(transformers' `position_ids`, LLaMA's rotary `inv_freq`) fails with "Could
not find state mapping for buffer"; and it puts the values themselves into
the nodes' arguments, which its import of list arguments refuses (a buffer
among `aten.index`'s indices: swin_t's relative position index).
`frozen` does the replacement for any kind of state, placing a value that
sits in a list as a `get_attr` node of its own, which the importer reads.
"""

from typing import Optional

from ... import ir
from ...errors import ImporterError
from ..torch_mlir import importer_failure, require
from .folding import fold_constants, fold_into_convolutions
from .indexing import multi_indices_as_one
from .views import views_as_flattens

torch = require("torch", "torch")
graph_signature = require("torch.export.graph_signature", "torch")
shape_prop = require("torch.fx.passes.shape_prop", "torch")
symbolic_shapes = require("torch.fx.experimental.symbolic_shapes", "torch")
fx_importer = require("lighthouse.extras.fx_importer", "torch")
InputKind, OutputKind = graph_signature.InputKind, graph_signature.OutputKind

__all__ = ["describe_node", "frozen", "import_frozen"]

# The kinds of graph inputs that carry the model's state, not the caller's.
_STATE = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def _state_value(program, spec) -> torch.Tensor:
    """The value of the state input `spec` of `program`."""
    for table in (program.state_dict, program.constants):
        if spec.target in table:
            return table[spec.target]
    kind = spec.kind.name.lower().replace("_", " ")
    raise ImporterError(
        f"the exported program has no value for its {kind} {spec.target!r} "
        "(neither in its state dict nor in its constants)"
    )


def frozen(program) -> torch.fx.GraphModule:
    """The graph of the `ExportedProgram` `program` with the model's state in
    place of the inputs that carry it, as a new graph module (the program is
    left as it is): a value is an argument of the nodes that use it, or a
    `get_attr` node of its own where a node takes it in a list.

    Raises:
      ImporterError: the program updates its buffers in place (a module in
        training mode, a cache held in a buffer), which a frozen program
        cannot, or takes state of a kind that is not a tensor.
    """
    signature = program.graph_signature
    mutated = [
        spec.target for spec in signature.output_specs if spec.kind == OutputKind.BUFFER_MUTATION
    ]
    if mutated:
        raise ImporterError(
            f"the model writes its buffer(s) {', '.join(mutated)} in place; lighthouse "
            "compiles a model's state as constants (is the model in training mode? "
            "call .eval())"
        )
    values = {}
    for spec in signature.input_specs:
        if spec.kind in _STATE:
            values[spec.arg.name] = _state_value(program, spec)
        elif spec.kind != InputKind.USER_INPUT:
            raise ImporterError(
                f"the exported program takes {spec.target or spec.arg.name!r} of kind "
                f"{spec.kind.name}, which lighthouse cannot import"
            )
    graph = torch.fx.Graph()
    copies = {}
    for node in program.graph.nodes:
        if node.op == "placeholder" and node.name in values:
            copies[node] = values[node.name]
        else:
            copies[node] = graph.node_copy(node, lambda n: copies[n])
    fold_constants(graph)
    fold_into_convolutions(graph)
    # Submodules the graph reads (the branches of higher-order ops) come along.
    module = torch.fx.GraphModule(program.graph_module, graph)
    for node in list(graph.nodes):
        node.args = tuple(_listed_as_nodes(module, node, arg) for arg in node.args)
        node.kwargs = {key: _listed_as_nodes(module, node, arg) for key, arg in node.kwargs.items()}
    _row_major_as_strided_as_views(graph)
    _symbolic_extrema_as_prims(graph)
    return module


def _symbolic_extrema_as_prims(graph: torch.fx.Graph) -> None:
    """Replaces `torch.sym_max` and `torch.sym_min` of two sizes, which
    torch-mlir's importer does not take, by `prim::max.int` and
    `prim::min.int`, which it imports and lowers. Mistral's sliding-window
    mask over a cache of any length takes `max(0, past - window)`."""
    extrema = {torch.sym_max: torch.ops.prim.max.int, torch.sym_min: torch.ops.prim.min.int}
    for node in graph.nodes:
        if node.op == "call_function" and node.target in extrema and len(node.args) == 2:
            if all(isinstance(_value(a), (int, torch.SymInt)) for a in node.args):
                node.target = extrema[node.target]


def _value(argument):
    """An FX argument's value: its node's traced value, or itself."""
    return argument.meta.get("val") if isinstance(argument, torch.fx.Node) else argument


def _row_major_as_strided_as_views(graph: torch.fx.Graph) -> None:
    """Replaces each `aten.as_strided` that reads all of its input's elements
    in their row-major order (no offset, the row-major stride at every
    dimension that is not of size 1, and an input laid out so itself) by a
    view of the input at its size.

    PyTorch's decomposition of a pooling to 1x1 pixels (every torchvision
    classifier's head, swin's pooler) ends in such an `as_strided` (a mean
    restrided as channels-last). torch-mlir's importer takes `as_strided`
    only at static sizes, as a gather of every element: a dynamic batch
    failed to import ("`size` must be a static int list"), and a static one
    copied what a view leaves in place.
    """
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not torch.ops.aten.as_strided.default:
            continue
        source, size = node.args[0], node.args[1]
        offset = node.args[3] if len(node.args) > 3 else node.kwargs.get("storage_offset")
        value, result = getattr(source, "meta", {}).get("val"), node.meta.get("val")
        if offset or not isinstance(value, torch.Tensor) or not isinstance(result, torch.Tensor):
            continue
        if not (
            _row_major(result) and _row_major(value) and _known(value.numel() == result.numel())
        ):
            continue
        with graph.inserting_before(node):
            view = graph.call_function(torch.ops.aten.view.default, (source, size))
        view.meta = dict(node.meta)
        node.replace_all_uses_with(view)
        graph.erase_node(node)


def _known(condition) -> bool:
    """Whether `condition` (of sizes, maybe symbolic) holds for every size."""
    return symbolic_shapes.statically_known_true(condition)


def _row_major(tensor) -> bool:
    """Whether `tensor`'s elements lie in row-major order from its storage's
    start: the row-major stride at every dimension not of size 1."""
    if not _known(tensor.storage_offset() == 0):
        return False
    sizes, strides = list(tensor.shape), list(tensor.stride())
    for index, extent in enumerate(sizes):
        inner = 1
        for later in sizes[index + 1 :]:
            inner = inner * later
        if not _known(extent == 1) and not _known(strides[index] == inner):
            return False
    return True


def _listed_as_nodes(module: torch.fx.GraphModule, user, argument):
    """`argument` of the node `user`, each tensor in it that is a list's item
    (or a result of the graph's output node) replaced by a `get_attr` node of
    its own, placed before `user`."""
    if not isinstance(argument, (list, tuple)):
        return argument

    def placed(value):
        if not isinstance(value, torch.Tensor):
            return value
        name = f"_lighthouse_state_{len(module.graph.nodes)}"
        module.register_buffer(name, value.detach())
        with module.graph.inserting_before(user):
            node = module.graph.get_attr(name)
        # The importer types a function's results by their nodes' metadata.
        node.meta["tensor_meta"] = shape_prop._extract_tensor_metadata(value)
        return node

    return type(argument)(placed(item) for item in argument)


def describe_node(node) -> str:
    """Where in the model an FX node is: its name and op, the innermost module
    it was traced in, and the line of the model's source it comes from."""
    if isinstance(node.target, torch._ops.OpOverload):
        target = f"{node.target.namespace}.{node.target.__name__}"
    else:
        target = getattr(node.target, "__name__", None) or str(node.target)
    text = f"node {node.name!r} ({target})"
    stack = node.meta.get("nn_module_stack") or {}
    if stack:
        path, kind = list(stack.values())[-1]
        kind = kind if isinstance(kind, str) else f"{kind.__module__}.{kind.__qualname__}"
        path = _module_path(path)
        text += f" in module {path!r} ({kind})" if path else f" in the model's forward ({kind})"
    source = _source_line(node.meta.get("stack_trace"))
    if source:
        text += f", from {source}"
    return text


def _module_path(path: str) -> str:
    """A module path as torch.export records it (`L['self'].layer[1].attn`, or
    already `layer.1.attn`) as `named_modules` names it."""
    for prefix in ("L['self'].", "L['self']"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return path.replace("[", ".").replace("]", "").replace("'", "")


def _source_line(stack_trace: Optional[str]) -> Optional[str]:
    """The innermost frame of a node's recorded stack, as "file:line: code"."""
    if not stack_trace:
        return None
    lines = [line.strip() for line in stack_trace.strip().splitlines()]
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith('File "'):
            where = lines[index][len('File "') :]
            file, _, rest = where.partition('", line ')
            number = rest.split(",")[0]
            code = lines[index + 1] if index + 1 < len(lines) else ""
            return f"{file}:{number}: {code}".rstrip(": ")
    return None


def _state_tensors(module: torch.fx.GraphModule):
    """The tensors `module`'s graph takes as constants: its nodes' tensor
    arguments (also inside lists) and the values its `get_attr` nodes read."""
    for node in module.graph.nodes:
        if node.op == "get_attr":
            value = getattr(module, node.target, None)
            if isinstance(value, torch.Tensor):
                yield value
            continue
        for argument in (*node.args, *node.kwargs.values()):
            for item in argument if isinstance(argument, (list, tuple)) else (argument,):
                if isinstance(item, torch.Tensor):
                    yield item


def _state_from_storage(module: torch.fx.GraphModule, context) -> "fx_importer.RefTracker":
    """A tracker of torch-mlir's importer that maps each tensor of `module`'s
    state to a dense_resource attribute over the tensor's own bytes.

    Left to itself, the importer makes a tensor's attribute through
    `tensor.tolist()`, a Python float per element: 7.3 of ResNet-18's 8.2 s
    of import. It looks up the tracker first, and takes an attribute found
    there as it is. Tensors of one element stay with the importer (it makes
    them splats), as do booleans (it imports them as a uint8 copy).
    """
    tracker = fx_importer.RefTracker()
    with context, ir.Location.unknown():
        for tensor in _state_tensors(module):
            mapping = tracker.track(tensor)
            if (
                not mapping.is_empty
                or tensor.numel() <= 1
                or tensor.dtype == torch.bool
                or tensor.dtype not in fx_importer.TORCH_DTYPE_TO_NPY_TYPE
            ):
                continue
            data = tensor.detach().contiguous().reshape(-1).view(torch.uint8).numpy()
            shape = "_".join(str(size) for size in tensor.shape)
            mapping.value = ir.DenseResourceElementsAttr.get_from_buffer(
                data,
                f"torch_tensor_{shape}_{tensor.dtype}",
                fx_importer.create_mlir_tensor_type(tensor),
            )
    return tracker


def import_frozen(program, context, func_name: str = "main", hooks=None) -> ir.Module:
    """Imports `program` frozen (`frozen`), its views of several dynamic sizes
    as flattens and unflattens (`views_as_flattens`), its indexing by several
    tensors of dynamic size as by one (`multi_indices_as_one`), with torch-mlir's
    importer (given `hooks`) as @`func_name` of a new module in `context`,
    the model's state read from the tensors' storage (`_state_from_storage`).

    Raises:
      ImporterError: the importer failed; the message names the node and the
        module it was in, and gives the importer's own error, which is also
        the error's `__cause__`.
    """
    module = frozen(program)
    views_as_flattens(module.graph)
    multi_indices_as_one(module.graph)
    importer = fx_importer.FxImporter(
        context=context, hooks=hooks, py_attr_tracker=_state_from_storage(module, context)
    )
    try:
        importer.import_graph_module(module, func_name=func_name)
    except Exception as error:  # noqa: BLE001 - any importer failure is named as such
        raise importer_failure(error, "FX", torch.fx.Node, describe_node) from error
    return importer.module
