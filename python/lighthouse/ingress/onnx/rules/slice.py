"""Slice with negative steps, which torch-mlir lowers to IR of mismatched
shapes: the axes of positive steps sliced, those of negative ones gathered
at the positions ONNX's clamping of the bounds gives.
"""

from typing import List, Optional

from ...torch_mlir import require
from ..values import constant_node, static_shape
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _reversed_slices(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """A Slice with a negative step as a Slice of the other axes and a Gather
    per reversed axis; its operands must be constants, its input's shape
    static."""
    node, types, constants, opset = site.node, site.types, site.constants, site.opset
    if opset < 10 or len(node.input) < 5 or node.input[0] not in types:
        return None
    shape = static_shape(types[node.input[0]])
    operands = [constants.get(name) for name in node.input[1:5]]
    if shape is None or any(value is None for value in operands):
        return None
    starts, ends, axes, steps = (value.reshape(-1).astype(np.int64) for value in operands)
    if not (steps < 0).any():
        return None
    rank = len(shape)
    forward, backward = [], []
    for start, end, axis, step in zip(starts, ends, axes % rank, steps):
        (forward if step > 0 else backward).append((int(start), int(end), int(axis), int(step)))
    nodes: List["onnx.NodeProto"] = []
    value = node.input[0]
    if forward:
        sliced = f"{node.name}/forward"
        operands = []
        for role, values in zip(("starts", "ends", "axes", "steps"), zip(*forward)):
            operands.append(f"{sliced}/{role}")
            nodes.append(constant_node(operands[-1], np.array(values, np.int64)))
        nodes.append(helper.make_node("Slice", [value, *operands], [sliced], name=sliced))
        value = sliced
    for index, (start, end, axis, step) in enumerate(backward):
        size = shape[axis]
        # ONNX's bounds of a negative step: start in [0, size - 1], end in
        # [-1, size - 1], after adding the size to negative ones.
        start = min(max(start + size if start < 0 else start, 0), size - 1)
        end = min(max(end + size if end < 0 else end, -1), size - 1)
        positions = f"{node.name}/positions{axis}"
        nodes.append(constant_node(positions, np.arange(start, end, step, dtype=np.int64)))
        last = index == len(backward) - 1
        output = node.output[0] if last else f"{node.name}/reversed{axis}"
        nodes.append(
            helper.make_node("Gather", [value, positions], [output], name=output, axis=axis)
        )
        value = output
    return nodes


RULES = [Rule("reversed-slice-as-gather", "Slice", _reversed_slices, ALWAYS)]
