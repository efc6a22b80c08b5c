"""Matrix products torch-mlir converts wrong or not at all.

- MatMul of a vector and a stack of matrices (rank 3 or more), which
  torch-mlir's `aten.matmul` lowering refuses: the vector made a one-row (or
  one-column) matrix, and that dimension squeezed out of the product.
- QLinearMatMul: as ONNX specifies it, the integer product of the inputs
  less their zero points (MatMulInteger), scaled by the product of their
  scales and quantized to the output's scale and zero point; always for
  stacks of matrices, whose batched int8 product torch-mlir gets wrong.
"""

from typing import List, Optional

from ...torch_mlir import require
from ..values import along_axis, lighthouse_function
from .rule import ALWAYS, ON_LOWERING_ERROR, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _matmul_of_matrices(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """A MatMul of a vector and a stack of matrices as one of matrices."""
    node, types, opset = site.node, site.types, site.opset
    ranks = [
        len(types[name].tensor_type.shape.dim)
        if name in types and types[name].tensor_type.HasField("shape")
        else None
        for name in node.input
    ]
    if None in ranks or sorted(ranks)[0] != 1 or sorted(ranks)[1] < 3:
        return None
    vector_is_left = ranks[0] == 1
    # [K] as [1, K] on the left, [K, 1] on the right.
    widen, narrow = (0, -2) if vector_is_left else (1, -1)

    vector = node.input[0] if vector_is_left else node.input[1]
    matrix = f"{node.name}/vector_as_matrix"
    nodes = along_axis("Unsqueeze", vector, widen, matrix, opset)
    product = f"{node.name}/product"
    operands = [matrix, node.input[1]] if vector_is_left else [node.input[0], matrix]
    nodes.append(helper.make_node("MatMul", operands, [product], name=product))
    nodes += along_axis("Squeeze", product, narrow, node.output[0], opset)
    return nodes


def _quantized_matmul(site: Site) -> Optional["onnx.FunctionProto"]:
    node, types = site.node, site.types
    if len(node.input) != 8 or node.input[1] not in types or node.input[6] not in types:
        return None
    scale_type = types[node.input[1]].tensor_type.elem_type
    output_scale_type = types[node.input[6]].tensor_type.elem_type
    inputs = ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero"]
    nodes = [
        helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"], ["product"]),
        helper.make_node("Cast", ["product"], ["real_product"], to=scale_type),
        helper.make_node("Mul", ["a_scale", "b_scale"], ["scale"]),
        helper.make_node("Mul", ["real_product", "scale"], ["scaled"]),
        helper.make_node("Cast", ["scaled"], ["unquantized"], to=output_scale_type),
        helper.make_node("QuantizeLinear", ["unquantized", "y_scale", "y_zero"], ["y"]),
    ]
    return lighthouse_function(node, inputs, ["y"], nodes, 21)


def _stacked(site: Site) -> Optional[str]:
    a = site.types.get(site.node.input[0])
    if a is None:
        return "its first input's type is not known"
    rank = len(a.tensor_type.shape.dim)
    return None if rank > 2 else f"its first input is of rank {rank}, not a stack of matrices"


RULES = [
    Rule("matmul-of-vector-and-stack", "MatMul", _matmul_of_matrices, ALWAYS),
    Rule("quantized-matmul-of-stacks", "QLinearMatMul", _quantized_matmul, ALWAYS, _stacked),
    Rule("quantized-matmul", "QLinearMatMul", _quantized_matmul, ON_LOWERING_ERROR),
]
