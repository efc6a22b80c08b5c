"""ONNX-ML ops (torch-mlir converts none) in the default domain's: Binarizer
as Greater and Cast, ArrayFeatureExtractor as Gather along the last axis.
"""

from typing import List, Optional

from ...torch_mlir import require
from ..values import constant_node
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _binarizer(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """ONNX-ML's Binarizer: 1 where X exceeds the threshold, else 0."""
    node, types = site.node, site.types
    x = node.input[0]
    if x not in types:
        return None
    element = types[x].tensor_type.elem_type
    threshold = helper.get_attribute_value(
        next((a for a in node.attribute if a.name == "threshold"), helper.make_attribute("t", 0.0))
    )
    name = f"{node.name}/threshold"
    above = f"{node.name}/above"
    return [
        constant_node(name, np.array(threshold, helper.tensor_dtype_to_np_dtype(element))),
        helper.make_node("Greater", [x, name], [above], name=above),
        helper.make_node("Cast", [above], list(node.output), name=node.name, to=element),
    ]


def _array_feature_extractor(site: Site) -> Optional[List["onnx.NodeProto"]]:
    """ONNX-ML's ArrayFeatureExtractor: the elements at the indices along the
    last axis."""
    node, types = site.node, site.types
    x = node.input[0]
    if x not in types or len(types[x].tensor_type.shape.dim) < 2:
        return None  # Of a vector, ONNX-ML gives a row.
    return [
        helper.make_node("Gather", list(node.input), list(node.output), name=node.name, axis=-1)
    ]


RULES = [
    Rule("binarizer-as-greater", "Binarizer", _binarizer, ALWAYS, domain="ai.onnx.ml"),
    Rule(
        "array-feature-extractor-as-gather",
        "ArrayFeatureExtractor",
        _array_feature_extractor,
        ALWAYS,
        domain="ai.onnx.ml",
    ),
]
