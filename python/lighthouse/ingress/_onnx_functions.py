"""Functions lighthouse defines ONNX ops by, for ops that ONNX defines by
none and torch-mlir does not convert.

They are expanded as ONNX's own functions are (`_onnx_fold.expand_functions`,
after a lowering error at the op), from the node, the types of the model's
values and its constants: each is specialized to them, and takes the
node's first inputs only, the others read as constants.

- CumProd: a Scan along the axis whose state is the running product, from
  ones; reversed and exclusive as the node says. The axis must be a
  constant (folded, or compiled for by value) and the input's shape static.
- Resize: interpolation along each resized axis by a constant matrix or
  Gather (`_onnx_interpolation`).
"""

from typing import Callable, Dict, Optional

from ._onnx_interpolation import resize_function
from ._onnx_values import static_shape
from ._torch_mlir import require

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")
numpy_helper = require("onnx.numpy_helper", "onnx")

__all__ = ["DEFINED", "function_of"]


def _cumulative_product(node, types, constants) -> Optional["onnx.FunctionProto"]:
    x, axis = node.input[0], node.input[1]
    shape = static_shape(types[x]) if x in types else None
    if not shape or axis not in constants or constants[axis].size != 1:
        return None
    rank = len(shape)
    axis = int(constants[axis].reshape(())) % rank
    attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
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
        helper.make_node(
            "Constant",
            [],
            ["row_shape"],
            value=numpy_helper.from_array(np.array(row_shape, np.int64), "row_shape"),
        ),
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


#: The ops lighthouse defines, and how (from the node, the types of the
#: model's values and its constants).
DEFINED: Dict[str, Callable] = {"CumProd": _cumulative_product, "Resize": resize_function}


def function_of(node, types, constants) -> Optional["onnx.FunctionProto"]:
    """lighthouse's function for `node`, None if it defines none for it."""
    define = DEFINED.get(node.op_type)
    return define(node, types, constants) if define is not None else None
