"""Scatters and gathers torch-mlir does not convert.

- TensorScatter: the update written into the cache (ScatterElements) at
  each batch's write index plus the update's positions along the axis,
  wrapped around the cache in circular mode.
- Compress: a Gather of the positions NonZero finds in the condition (which
  drops the slices past the condition's length, as ONNX does), along the
  axis or of the flattened input.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, constant_node, lighthouse_function, static_shapes
from .rule import ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _tensor_scatter(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    shapes = static_shapes(types, node.input[0], node.input[1])
    if shapes is None:
        return None
    cache_shape, update_shape = shapes
    attributes = attributes_of(node)
    rank = len(cache_shape)
    axis = attributes.get("axis", -2) % rank
    circular = attributes.get("mode", b"linear") in (b"circular", "circular")
    # Positions along the axis, and the batch's write indices along the batch.
    along_axis = [-1 if a == axis else 1 for a in range(rank)]
    along_batch = [-1] + [1] * (rank - 1)
    steps = np.arange(update_shape[axis], dtype=np.int64).reshape(along_axis)
    nodes = [constant_node("steps", steps)]
    if len(node.input) > 2 and node.input[2]:
        nodes += [
            constant_node("batch_shape", np.array(along_batch, np.int64)),
            helper.make_node("Reshape", ["write_indices", "batch_shape"], ["starts"]),
            helper.make_node("Add", ["starts", "steps"], ["positions"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["steps"], ["positions"]))
    if circular:
        nodes += [
            constant_node("length", np.array(cache_shape[axis], np.int64)),
            helper.make_node("Mod", ["positions", "length"], ["wrapped"]),
        ]
    nodes += [
        constant_node("update_shape", np.array(update_shape, np.int64)),
        helper.make_node(
            "Expand", ["wrapped" if circular else "positions", "update_shape"], ["indices"]
        ),
        helper.make_node(
            "ScatterElements", ["past_cache", "indices", "update"], ["present_cache"], axis=axis
        ),
    ]
    inputs = ["past_cache", "update", "write_indices"][: len(node.input)]
    return lighthouse_function(node, inputs, ["present_cache"], nodes, 18)


def _compress(site: Site) -> Optional["onnx.FunctionProto"]:
    node = site.node
    axis = attributes_of(node).get("axis")
    nodes = [
        helper.make_node("NonZero", ["condition"], ["found"]),
        constant_node("flat", np.array([-1], np.int64)),
        helper.make_node("Reshape", ["found", "flat"], ["positions"]),
    ]
    if axis is None:
        nodes.append(helper.make_node("Reshape", ["input", "flat"], ["selected_from"]))
    else:
        nodes.append(helper.make_node("Identity", ["input"], ["selected_from"]))
    nodes.append(
        helper.make_node("Gather", ["selected_from", "positions"], ["output"], axis=axis or 0)
    )
    return lighthouse_function(node, ["input", "condition"], ["output"], nodes, 18)


RULES = [
    Rule("tensor-scatter-as-scatter-elements", "TensorScatter", _tensor_scatter, ON_LOWERING_ERROR),
    Rule("compress-as-gather", "Compress", _compress, ON_LOWERING_ERROR),
]
