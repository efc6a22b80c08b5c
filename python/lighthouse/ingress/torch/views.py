"""Views of tensors with several dynamic sizes, as flattens and unflattens.

torch-mlir lowers `aten.view` by pairing the input's sizes with the
result's; where two or more sizes are dynamic and the result's size is not
literally one of the input's (`b*n` from `[b, n, d]`), it assumes dynamic
sizes pair up in order and casts the rest to what makes the pairing
consistent: `[b, n, 64] -> [b*n, 64]` became a collapse of `[b, 1, 64]`, a
cast the compiled code does not check, so the first call with `n > 1`
read and wrote past its buffers. Every transformers model compiled for a
dynamic batch and sequence length takes such views (`hidden.view(b*n, d)`).

The exported program knows what torch-mlir guesses: each size is a
symbolic expression. `views_as_flattens` groups a view's input and result
sizes into runs of equal products (`[b, n] | [64]` against `[b*n] | [64]`)
and replaces the view by `aten.flatten.using_ints` of each run of input
sizes and `aten.unflatten.int` into each run of result sizes, which
torch-mlir lowers to collapses and expansions of exactly those dimensions.
`BACKEND_LEGAL_OPS` keeps its decompositions from turning them back into
views.
"""

from typing import List, Optional, Sequence, Tuple

from ..torch_mlir import require

torch = require("torch", "torch")
symbolic_shapes = require("torch.fx.experimental.symbolic_shapes", "torch")

__all__ = ["BACKEND_LEGAL_OPS", "views_as_flattens"]

#: The ops `views_as_flattens` writes, kept whole by torch-mlir's
#: decompositions (its `backend-legal-ops`).
BACKEND_LEGAL_OPS = ("aten.flatten.using_ints", "aten.unflatten.int")

_VIEWS = (
    torch.ops.aten.view.default,
    torch.ops.aten._unsafe_view.default,
    torch.ops.aten.reshape.default,
)

# A run of input dimensions [start, stop) and the run of result dimensions
# with the same number of elements.
_Run = Tuple[Tuple[int, int], Tuple[int, int]]


def views_as_flattens(graph: torch.fx.Graph) -> None:
    """Replaces each view in `graph` whose input or result has two or more
    dynamic sizes by flattens and unflattens of runs of its dimensions, where
    the runs are known equal in size for every size the program takes.
    A view whose runs cannot be proven equal is left as it is."""
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target not in _VIEWS:
            continue
        source, sizes = node.args[0], node.args[1]
        value, result = getattr(source, "meta", {}).get("val"), node.meta.get("val")
        if not isinstance(value, torch.Tensor) or not isinstance(result, torch.Tensor):
            continue
        shape, reshaped = list(value.shape), list(result.shape)
        if max(_dynamic(shape), _dynamic(reshaped)) < 2 or not shape or not reshaped:
            continue
        runs = _runs(shape, reshaped)
        sizes = _explicit(sizes, reshaped)
        if runs is None or sizes is None or _inferred_in_unflatten(runs, sizes):
            continue
        with graph.inserting_before(node):
            replacement = _flattened_and_unflattened(graph, source, runs, sizes)
        if replacement is not source:
            replacement.meta = dict(node.meta)
        node.replace_all_uses_with(replacement)
        graph.erase_node(node)


def _dynamic(shape: Sequence) -> int:
    return sum(1 for size in shape if not isinstance(size, int))


def _known_equal(left, right) -> bool:
    return symbolic_shapes.statically_known_true(left == right)


def _product(sizes: Sequence):
    product = 1
    for size in sizes:
        product = product * size
    return product


def _runs(shape: List, reshaped: List) -> Optional[List[_Run]]:
    """The runs of `shape` and `reshaped` of equal products, in order, or
    None where a run's products cannot be proven equal. Which side a run
    grows is decided on the sizes the program was exported at (hints); the
    equality of each run holds for all sizes."""
    hint = symbolic_shapes.optimization_hint
    runs: List[_Run] = []
    start, start_reshaped = 0, 0
    while start < len(shape) and start_reshaped < len(reshaped):
        stop, stop_reshaped = start + 1, start_reshaped + 1
        while True:
            left, right = (
                _product(shape[start:stop]),
                _product(reshaped[start_reshaped:stop_reshaped]),
            )
            if hint(left) == hint(right):
                break
            if hint(left) < hint(right) and stop < len(shape):
                stop += 1
            elif hint(right) < hint(left) and stop_reshaped < len(reshaped):
                stop_reshaped += 1
            else:
                return None
        if not _known_equal(left, right):
            return None
        runs.append(((start, stop), (start_reshaped, stop_reshaped)))
        start, start_reshaped = stop, stop_reshaped
    # Sizes of 1 left at either end join the last run.
    if not all(_known_equal(size, 1) for size in shape[start:] + reshaped[start_reshaped:]):
        return None
    (first, _), (first_reshaped, _) = runs[-1]
    runs[-1] = ((first, len(shape)), (first_reshaped, len(reshaped)))
    return runs


def _explicit(sizes, reshaped: List) -> Optional[list]:
    """The view's size arguments with a -1 replaced by the size it stands
    for where that size is a constant (a dynamic one stays -1), or None for
    arguments that are not a size per result dimension."""
    if not isinstance(sizes, (list, tuple)) or len(sizes) != len(reshaped):
        return None
    return [
        extent if isinstance(size, int) and size == -1 and isinstance(extent, int) else size
        for size, extent in zip(sizes, reshaped)
    ]


def _inferred_in_unflatten(runs: List[_Run], sizes: list) -> bool:
    """Whether a dynamic size the view infers (-1) would be one of an
    unflatten's sizes; a run of one result dimension takes no sizes (OPT's
    `input_ids.view(-1, n)` of `[b, n]`)."""
    return any(
        stop - start > 1 and any(isinstance(size, int) and size == -1 for size in sizes[start:stop])
        for _, (start, stop) in runs
    )


def _flattened_and_unflattened(graph: torch.fx.Graph, source, runs: List[_Run], sizes: list):
    """`source` with each run of input dimensions flattened to one, then that
    dimension unflattened into the run's result sizes (`sizes`)."""
    current = source

    def apply(op, *args):
        # The importer types each node by its value: computed on the fake one.
        node = graph.call_function(op, (current, *args))
        node.meta["val"] = op(*torch.fx.node.map_arg(node.args, lambda n: n.meta["val"]))
        return node

    # From the last run back, so the earlier runs' dimensions keep their place.
    for (start, stop), _ in reversed(runs):
        if stop - start != 1:
            current = apply(torch.ops.aten.flatten.using_ints, start, stop - 1)
    for index, (_, (start, stop)) in reversed(list(enumerate(runs))):
        if stop - start != 1:
            current = apply(torch.ops.aten.unflatten.int, index, list(sizes[start:stop]))
    return current
