"""ConvInteger as ONNX defines it: the convolution of the inputs less their
zero points, in int32. torch-mlir converts ConvInteger with a zero point
for the whole filter only; a zero point per output channel (a vector
[M]) is the form per-channel quantization gives. The inputs less their
zero points are computed in float64, where every product and sum of 8-bit
integers is exact (|x - zx| * |w - zw| * taps < 2^53 for kernels of fewer
than 2^37 taps), and the result cast to int32; padding adds zeros after
the zero point is subtracted, as in ONNX's definition."""

from typing import Optional

from ...torch_mlir import require
from ..values import constant_node, lighthouse_function
from .rule import ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")

_INPUTS = ("x", "w", "x_zero_point", "w_zero_point")


def _filter_rank(site: Site) -> Optional[str]:
    w = site.types.get(site.node.input[1])
    if w is None or not w.tensor_type.HasField("shape"):
        return "its filter's rank is not known"
    return None


def _integer_convolution(site: Site) -> "onnx.FunctionProto":
    node = site.node
    rank = len(site.types[node.input[1]].tensor_type.shape.dim)
    given = list(_INPUTS[: len(node.input)])
    nodes = []

    def less_zero_point(value: str, zero_point: str, shape: Optional[list]) -> str:
        nodes.append(
            helper.make_node("Cast", [value], [f"{value}_f64"], to=onnx.TensorProto.DOUBLE)
        )
        position = _INPUTS.index(zero_point)
        if position >= len(node.input) or not node.input[position]:
            return f"{value}_f64"
        point = f"{zero_point}_f64"
        nodes.append(helper.make_node("Cast", [zero_point], [point], to=onnx.TensorProto.DOUBLE))
        if shape is not None:
            # One zero point per output channel, along the filter's first axis.
            nodes.append(constant_node(f"{zero_point}_shape", np.array(shape, np.int64)))
            nodes.append(
                helper.make_node("Reshape", [point, f"{zero_point}_shape"], [f"{point}_r"])
            )
            point = f"{point}_r"
        nodes.append(helper.make_node("Sub", [f"{value}_f64", point], [f"{value}_less"]))
        return f"{value}_less"

    x = less_zero_point("x", "x_zero_point", None)
    w = less_zero_point("w", "w_zero_point", [-1] + [1] * (rank - 1))
    convolution = helper.make_node("Conv", [x, w], ["y_f64"])
    convolution.attribute.extend(node.attribute)
    nodes += [convolution, helper.make_node("Cast", ["y_f64"], ["y"], to=onnx.TensorProto.INT32)]
    return lighthouse_function(node, given, ["y"], nodes, 11)


RULES = [
    Rule(
        "integer-convolution-in-float64",
        "ConvInteger",
        _integer_convolution,
        ON_LOWERING_ERROR,
        _filter_rank,
        since=10,
    )
]
