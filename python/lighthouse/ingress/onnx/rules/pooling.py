"""Poolings torch-mlir does not convert.

- LpPool: (sum of |x|^p over each window)^(1/p), the sum a grouped
  convolution of ones with the pooling's kernel, strides, pads (auto_pad
  included) and dilations. Not with `ceil_mode`.
- MaxUnpool: the values scattered (ScatterElements) into zeros of the
  output's size at the positions the indices give, which ONNX counts in
  the whole tensor flattened, of the pooling's input shape
  `(in - 1) * stride - pads + kernel` (an `output_shape` of another size
  has none).
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, constant_node, lighthouse_function, static_shape, static_shapes
from .rule import ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _lp_pool(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    x = node.input[0]
    shape = static_shape(types[x]) if x in types else None
    attributes = attributes_of(node)
    if shape is None or attributes.get("ceil_mode", 0) or "kernel_shape" not in attributes:
        return None
    dtype = helper.tensor_dtype_to_np_dtype(types[x].tensor_type.elem_type)
    p = attributes.get("p", 2)
    ones = np.ones([shape[1], 1, *attributes["kernel_shape"]], dtype)
    convolution = {
        name: value
        for name, value in attributes.items()
        if name in ("auto_pad", "pads", "strides", "dilations", "kernel_shape")
    }
    nodes = [
        constant_node("ones", ones),
        constant_node("p", np.array(p, dtype)),
        constant_node("root", np.array(1.0 / p, dtype)),
        helper.make_node("Abs", ["X"], ["magnitude"]),
        helper.make_node("Pow", ["magnitude", "p"], ["powered"]),
        helper.make_node("Conv", ["powered", "ones"], ["summed"], group=shape[1], **convolution),
        helper.make_node("Pow", ["summed", "root"], ["Y"]),
    ]
    return lighthouse_function(node, ["X"], ["Y"], nodes, 18)


def _max_unpool(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types, constants = site.node, site.types, site.constants
    shapes = static_shapes(types, node.input[0])
    attributes = attributes_of(node)
    if shapes is None or "kernel_shape" not in attributes:
        return None
    shape = shapes[0]
    spatial = len(shape) - 2
    strides = attributes.get("strides", [1] * spatial)
    pads = attributes.get("pads", [0] * 2 * spatial)
    out_shape = shape[:2] + [
        (size - 1) * stride - pads[k] - pads[spatial + k] + kernel
        for k, (size, stride, kernel) in enumerate(
            zip(shape[2:], strides, attributes["kernel_shape"])
        )
    ]
    if len(node.input) > 2 and node.input[2]:
        # Indices of a larger output count in a space ONNX's reference maps
        # differently: only the pooling's own input shape is taken.
        given = constants.get(node.input[2])
        if given is None or [int(d) for d in given] != out_shape:
            return None
    dtype = helper.tensor_dtype_to_np_dtype(types[node.input[0]].tensor_type.elem_type)
    nodes = [
        constant_node("flat", np.array([-1], np.int64)),
        constant_node("zeros", np.zeros(int(np.prod(out_shape)), dtype)),
        constant_node("out_shape", np.array(out_shape, np.int64)),
        helper.make_node("Reshape", ["X", "flat"], ["values"]),
        helper.make_node("Reshape", ["I", "flat"], ["positions"]),
        helper.make_node("ScatterElements", ["zeros", "positions", "values"], ["scattered"]),
        helper.make_node("Reshape", ["scattered", "out_shape"], ["output"]),
    ]
    return lighthouse_function(node, ["X", "I"], ["output"], nodes, 18)


RULES = [
    Rule("lp-pool-as-convolution", "LpPool", _lp_pool, ON_LOWERING_ERROR),
    Rule("max-unpool-as-scatter", "MaxUnpool", _max_unpool, ON_LOWERING_ERROR),
]
