"""CumProd: a Scan along the axis whose state is the running product, from
ones; reversed and exclusive as the node says. The axis must be a constant
(folded, or compiled for by value) and the input's shape static.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, constant_node, static_shape
from .rule import ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")
numpy_helper = require("onnx.numpy_helper", "onnx")


def _constant_axis_and_static_shape(site: Site) -> Optional[str]:
    x, axis = site.node.input[0], site.node.input[1]
    if axis not in site.constants or site.constants[axis].size != 1:
        return "its axis is not one constant (folded, or compiled for by value)"
    if not (static_shape(site.types[x]) if x in site.types else None):
        return "its input's shape is not static"
    return None


def _cumulative_product(site: Site) -> "onnx.FunctionProto":
    node, types, constants = site.node, site.types, site.constants
    x, axis = node.input[0], node.input[1]
    shape = static_shape(types[x])
    rank = len(shape)
    axis = int(constants[axis].reshape(())) % rank
    attributes = attributes_of(node)
    exclusive, reverse = attributes.get("exclusive", 0), attributes.get("reverse", 0)
    element = types[x].tensor_type.elem_type
    row_shape = shape[:axis] + shape[axis + 1 :]

    def value(name):
        return helper.make_tensor_value_info(name, element, row_shape)

    body = helper.make_graph(
        [
            helper.make_node("Mul", ["product_in", "row"], ["product_out"]),
            helper.make_node(
                "Identity", ["product_in" if exclusive else "product_out"], ["product_row"]
            ),
        ],
        "running_product",
        [value("product_in"), value("row")],
        [value("product_out"), value("product_row")],
    )
    one = numpy_helper.from_array(np.ones(1, helper.tensor_dtype_to_np_dtype(element)), "value")
    nodes = [
        constant_node("row_shape", np.array(row_shape, np.int64)),
        helper.make_node("ConstantOfShape", ["row_shape"], ["ones"], value=one),
        helper.make_node(
            "Scan",
            ["ones", "X"],
            ["product", "Y"],
            body=body,
            num_scan_inputs=1,
            scan_input_axes=[axis],
            scan_input_directions=[reverse],
            scan_output_axes=[axis],
            scan_output_directions=[reverse],
        ),
    ]
    return helper.make_function(
        "lighthouse", node.op_type, ["X"], ["Y"], nodes, [helper.make_opsetid("", 18)]
    )


RULES = [
    Rule(
        "cumulative-product-as-scan",
        "CumProd",
        _cumulative_product,
        ON_LOWERING_ERROR,
        _constant_axis_and_static_shape,
    )
]
