"""The functions ONNX defines ops by, at an opset: what ONNX's own
functions expand a node into (`fold.expand_functions`), and a rule's
rewrite for ops lighthouse expands into them (`onnx_function`)."""

from typing import Optional

from ..torch_mlir import require

onnx = require("onnx", "onnx")

__all__ = ["onnx_function", "schema_function"]


def schema_function(node, opset: int, types) -> Optional["onnx.FunctionProto"]:
    """The function ONNX defines `node`'s op by at `opset`, for that node,
    to which it adds the attributes it leaves to their defaults; None if
    ONNX defines the op by none."""
    try:
        schema = onnx.defs.get_schema(node.op_type, max_inclusive_version=opset, domain="")
    except onnx.defs.SchemaError:
        return None
    plain = max((v for v in schema.function_opset_versions if v <= opset), default=0)
    dependent = max(
        (v for v in schema.context_dependent_function_opset_versions if v <= opset), default=0
    )
    if not plain and not dependent:
        return None
    if dependent >= plain:
        # An omitted input, or one of unknown type, has an empty type.
        input_types = [types.get(name, onnx.TypeProto()).SerializeToString() for name in node.input]
        body = schema.get_context_dependent_function_with_opset_version(
            dependent, node.SerializeToString(), input_types
        )
    else:
        body = schema.get_function_with_opset_version(plain)
    if not body:
        return None
    function = onnx.FunctionProto.FromString(body)
    # The attributes the node leaves out take the schema's defaults, given at
    # the call: ONNX's inliner leaves a function's own defaults unbound.
    given = {attribute.name for attribute in node.attribute}
    for name in function.attribute:
        default = schema.attributes[name].default_value
        if name not in given and default.type:
            node.attribute.append(default)
    return function


def onnx_function(site) -> Optional["onnx.FunctionProto"]:
    """The function ONNX defines the node of `site` (a `rules.Site`) by at the
    model's opset."""
    return schema_function(site.node, site.opset, site.types)
