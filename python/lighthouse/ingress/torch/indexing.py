"""Indexing by several tensors of dynamic size, as indexing by one.

torch-mlir lowers `aten.index.Tensor` with index tensors on several leading
dimensions (`x[rows, columns]`) only where it can tell the index tensors'
sizes apart from their types; with dynamic sizes it refuses the op. CLIP's
text tower pools each sequence at its end token, `hidden[arange(b),
ids.argmax(-1)]`, so it did not compile for a dynamic batch. One index
tensor it lowers at any size.

`multi_indices_as_one` replaces such an op by the index of the leading
dimensions flattened into one, `((i0 * s1) + i1) * s2 + i2 ...`, each index
taken modulo its dimension's size where negative, as indexing does. An index
outside its dimension would land on another element of the flattened
dimensions, so the flattened index of a position with such an index is the
flattened dimension's size itself: the compiled code's bounds check of the
gather then fails as the original indexing would.
"""

import operator

from ..torch_mlir import require

torch = require("torch", "torch")

__all__ = ["multi_indices_as_one"]

aten = torch.ops.aten


def multi_indices_as_one(graph: torch.fx.Graph) -> None:
    """Replaces each `aten.index.Tensor` of `graph` that indexes its input's
    leading dimensions by two or more tensors, one of dynamic size, by the
    index of those dimensions flattened (see the module's description)."""
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.index.Tensor:
            continue
        source, indices = node.args[0], node.args[1]
        value = getattr(source, "meta", {}).get("val")
        if not isinstance(value, torch.Tensor) or not isinstance(indices, (list, tuple)):
            continue
        if len(indices) < 2 or not all(isinstance(index, torch.fx.Node) for index in indices):
            continue
        shapes = [getattr(index.meta.get("val"), "shape", None) for index in indices]
        if any(shape is None for shape in shapes) or all(
            isinstance(size, int) for shape in shapes for size in shape
        ):
            continue
        if any(index.meta["val"].dtype not in (torch.int64, torch.int32) for index in indices):
            continue
        with graph.inserting_before(node):
            replacement = _indexed_as_one(graph, source, list(indices))
        replacement.meta = dict(node.meta)
        node.replace_all_uses_with(replacement)
        graph.erase_node(node)


def _indexed_as_one(graph: torch.fx.Graph, source, indices: list):
    def call(op, *args):
        node = graph.call_function(op, args)
        node.meta["val"] = op(*torch.fx.node.map_arg(args, lambda n: n.meta["val"]))
        return node

    def size(dimension: int):
        extent = source.meta["val"].shape[dimension]
        return extent if isinstance(extent, int) else call(aten.sym_size.int, source, dimension)

    flat, valid, count = None, None, 1
    for dimension, index in enumerate(indices):
        extent = size(dimension)
        # A negative index counts from the end; then it is in [0, extent).
        negative = call(aten.lt.Scalar, index, 0)
        wrapped = call(aten.where.self, negative, call(aten.add.Scalar, index, extent), index)
        inside = call(
            aten.logical_and.default,
            call(aten.ge.Scalar, wrapped, 0),
            call(aten.lt.Scalar, wrapped, extent),
        )
        valid = inside if valid is None else call(aten.logical_and.default, valid, inside)
        if flat is None:
            flat = wrapped
        else:
            flat = call(aten.add.Tensor, call(aten.mul.Scalar, flat, extent), wrapped)
        both_static = isinstance(count, int) and isinstance(extent, int)
        count = count * extent if both_static else call(operator.mul, count, extent)
    # Past the flattened dimension where an index is outside its own: the
    # gather's bounds check fails there. (`where` of a size as its scalar
    # would fix the size to the one exported at.)
    outside = call(aten.mul.Scalar, call(aten.logical_not.default, valid), count)
    flat = call(aten.add.Tensor, call(aten.mul.Tensor, flat, valid), outside)
    rows = call(aten.flatten.using_ints, source, 0, len(indices) - 1)
    return call(aten.index.Tensor, rows, [flat])
