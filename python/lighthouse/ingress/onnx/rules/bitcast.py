"""BitCast between integer types of one width (and from bool to 8 bits): a
Cast, which ONNX defines as two's complement wrapping, the same bits.
Between floats and integers it has none: `onnx.bitcast` lowers those.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, lighthouse_function
from .rule import ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _integer_bit_cast(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    x = node.input[0]
    target = attributes_of(node).get("to")
    if x not in types or target is None:
        return None
    source = helper.tensor_dtype_to_np_dtype(types[x].tensor_type.elem_type)
    result = helper.tensor_dtype_to_np_dtype(target)
    if result.kind not in "iu" or source.kind not in "iub" or source.itemsize != result.itemsize:
        return None
    nodes = [helper.make_node("Cast", ["input"], ["output"], to=target)]
    return lighthouse_function(node, ["input"], ["output"], nodes, 13)


RULES = [Rule("bitcast-of-integers-as-cast", "BitCast", _integer_bit_cast, ON_LOWERING_ERROR)]
