"""SpaceToDepth of CRD mode (which torch-mlir's conversion ignores): Reshape,
Transpose, Reshape.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, text_of, constant_node, lighthouse_function, static_shapes
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _space_to_depth(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    shapes = static_shapes(types, node.input[0])
    attributes = attributes_of(node)
    b = attributes.get("blocksize")
    if shapes is None or len(shapes[0]) != 4 or not b:
        return None
    n, c, h, w = shapes[0]
    # CRD: each channel's b x b block elements, channel first.
    nodes = [
        constant_node("blocks", np.array([n, c, h // b, b, w // b, b], np.int64)),
        constant_node("depth", np.array([n, c * b * b, h // b, w // b], np.int64)),
        helper.make_node("Reshape", ["input", "blocks"], ["blocked"]),
        helper.make_node("Transpose", ["blocked"], ["moved"], perm=[0, 1, 3, 5, 2, 4]),
        helper.make_node("Reshape", ["moved", "depth"], ["output"]),
    ]
    return lighthouse_function(node, ["input"], ["output"], nodes, 18)


def _crd_mode(site: Site) -> Optional[str]:
    mode = text_of(attributes_of(site.node).get("mode", b"DCR"))
    return None if mode == "CRD" else f"its mode is {mode}, which torch-mlir converts"


RULES = [Rule("space-to-depth-of-crd", "SpaceToDepth", _space_to_depth, ALWAYS, _crd_mode)]
