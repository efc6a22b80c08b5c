"""Reshapes torch-mlir lowers wrong.

- A Reshape to two dimensions, the product of the input's first k sizes
  and the product of the others, some of them dynamic (a Gemm's or a
  MatMul's [b, n, 768] -> [-1, 768]): torch-mlir's lowering of
  `aten.view` takes a dynamic size it cannot place to be kept, and
  collapses [b, n, 768] as [b, 1, 768] through a cast that canonicalization
  moves up into the ops computing it (GPT-2's and OPT's embeddings' Add),
  whose runtime checks fail at any n but 1 (without them, the Add writes n
  rows into a buffer of one). The same reshape as ONNX's Flatten at axis k
  lowers to a collapse of those dimensions.
"""

from typing import List, Optional

from ...torch_mlir import require
from ..values import attributes_of, known_dims
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _reshape_as_flatten(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """A Reshape to [product of the first k sizes, product of the others],
    some of them dynamic, as a Flatten at axis k; its shape must be a
    constant, its input's rank known."""
    node, types, constants = site.node, site.types, site.constants
    if len(node.input) < 2 or node.input[0] not in types:
        return None
    dims = known_dims(types[node.input[0]])
    target = constants.get(node.input[1])
    if dims is None or len(dims) < 3 or None not in dims or target is None:
        return None  # Static sizes (and rank 2, kept as it is) lower right.
    target = [int(size) for size in target.reshape(-1)]
    if len(target) != 2:
        return None
    if not attributes_of(node).get("allowzero", 0):
        # A 0 keeps the input's size there.
        target = [dims[axis] if size == 0 else size for axis, size in enumerate(target)]
    axis = _flatten_axis(dims, target)
    if axis is None:
        return None
    return [
        helper.make_node("Flatten", [node.input[0]], [node.output[0]], name=node.name, axis=axis)
    ]


def _flatten_axis(dims: List[Optional[int]], target: List[Optional[int]]) -> Optional[int]:
    """The axis k at which the sizes `dims` (None: dynamic) flatten to
    `target`, two sizes: given ones (None: a dynamic size kept by a 0) or
    -1, inferred; None if there is none. A given size must be the product
    of the static sizes on its side of k."""
    first, second = target
    if first == -1 and second is not None and second > 0:
        for axis in range(len(dims) - 1, 0, -1):
            if _static_product(dims[axis:]) == second:
                return axis
    elif second == -1 and first is not None and first > 0:
        for axis in range(1, len(dims)):
            if _static_product(dims[:axis]) == first:
                return axis
    elif first is None and second is not None:
        if second == -1 or second == _static_product(dims[1:]):
            return 1  # The dynamic first size kept, the others flattened.
    return None


def _static_product(dims: List[Optional[int]]) -> Optional[int]:
    """The product of `dims`, None if one is dynamic."""
    return None if None in dims else int(np.prod(dims))


RULES = [Rule("reshape-as-flatten", "Reshape", _reshape_as_flatten, ALWAYS, since=9)]
