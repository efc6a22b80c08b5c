"""SoftmaxCrossEntropyLoss of rows ([N, C] scores) with weights, averaged:
torch-mlir sums the weights as integers (each truncated: weights below 1
sum to 0, and the loss is inf); expanded into ONNX's own function.
"""

from typing import Optional

from ...torch_mlir import require
from ..values import attributes_of, text_of
from ..functions import onnx_function
from .rule import ALWAYS, Rule, Site

onnx = require("onnx", "onnx")
np = require("numpy", "onnx")  # onnx's dependency
helper = require("onnx.helper", "onnx")


def _weighted_mean_over_rows(site: Site) -> Optional[str]:
    node = site.node
    reduction = text_of(attributes_of(node).get("reduction", b"mean"))
    scores = site.types.get(node.input[0])
    rank = len(scores.tensor_type.shape.dim) if scores is not None else None
    if not (len(node.input) > 2 and node.input[2]):
        return "it has no weights"
    if reduction != "mean":
        return f"its reduction is {reduction}, not mean"
    if rank != 2:
        return "its scores are not rows of classes ([N, C])"
    return None


RULES = [
    Rule(
        "weighted-mean-loss-as-onnx-function",
        "SoftmaxCrossEntropyLoss",
        onnx_function,
        ALWAYS,
        _weighted_mean_over_rows,
    )
]
