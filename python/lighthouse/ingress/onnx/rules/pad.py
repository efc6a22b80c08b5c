"""Pad of wrap mode (whose conversion by torch-mlir does not end): a Gather
of the positions modulo the size along each padded axis.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, text_of, constant_node, lighthouse_function, static_shapes
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _wrapped_pad(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types, constants = site.node, site.types, site.constants
    shapes = static_shapes(types, node.input[0])
    pads = constants.get(node.input[1]) if len(node.input) > 1 else None
    if shapes is None or pads is None:
        return None
    shape = shapes[0]
    rank = len(shape)
    axes = list(range(rank))
    if len(node.input) > 3 and node.input[3]:
        given = constants.get(node.input[3])
        if given is None:
            return None
        axes = [int(a) % rank for a in given]
    pads = [int(p) for p in pads]
    nodes = []
    value = "data"
    for index, axis in enumerate(axes):
        before, after = pads[index], pads[len(axes) + index]
        if before == after == 0:
            continue
        positions = np.arange(-before, shape[axis] + after, dtype=np.int64) % shape[axis]
        nodes.append(constant_node(f"positions{axis}", positions))
        nodes.append(
            helper.make_node("Gather", [value, f"positions{axis}"], [f"padded{axis}"], axis=axis)
        )
        value = f"padded{axis}"
    nodes.append(helper.make_node("Identity", [value], ["output"]))
    return lighthouse_function(node, ["data"], ["output"], nodes, 18)


def _wrap_mode(site: Site) -> Optional[str]:
    mode = text_of(attributes_of(site.node).get("mode", b"constant"))
    return None if mode == "wrap" else f"its mode is {mode}, not wrap"


RULES = [Rule("wrapped-pad-as-gathers", "Pad", _wrapped_pad, ALWAYS, _wrap_mode, since=19)]
