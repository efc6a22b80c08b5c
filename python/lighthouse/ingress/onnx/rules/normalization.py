"""LpNormalization: X over its p-norm along the axis, a norm of zero taken as
one (ONNX gives 0 for a vector of zeros, torch-mlir's conversion NaN).
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, constant_node, lighthouse_function
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _lp_normalization(site: Site) -> Optional["onnx.FunctionProto"]:
    node = site.node
    attributes = attributes_of(node)
    p, axis = attributes.get("p", 2), attributes.get("axis", -1)
    if p not in (1, 2):
        return None
    nodes = [
        constant_node("axes", np.array([axis], np.int64)),
        helper.make_node(
            "ReduceL2" if p == 2 else "ReduceL1", ["input", "axes"], ["norm"], keepdims=1
        ),
        constant_node("zero", np.zeros((), np.float32)),
        constant_node("one", np.ones((), np.float32)),
        helper.make_node("CastLike", ["zero", "norm"], ["typed_zero"]),
        helper.make_node("CastLike", ["one", "norm"], ["typed_one"]),
        helper.make_node("Equal", ["norm", "typed_zero"], ["zero_norm"]),
        helper.make_node("Where", ["zero_norm", "typed_one", "norm"], ["divisor"]),
        helper.make_node("Div", ["input", "divisor"], ["output"]),
    ]
    return lighthouse_function(node, ["input"], ["output"], nodes, 18)


RULES = [Rule("lp-normalization-zero-safe", "LpNormalization", _lp_normalization, ALWAYS)]
