"""ONNX-ML ops in the default domain's forms (lighthouse.ingress.onnx.rules.ml),
checked against onnxruntime."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_against_onnxruntime  # noqa: E402


@pytest.mark.parametrize("op_type", ["Binarizer", "ArrayFeatureExtractor"])
def test_onnx_ml_ops_of_a_model_of_that_domain_alone(op_type):
    """A model importing ai.onnx.ml only: its ops in the default domain's
    forms, whose opset it is given."""
    node = (
        helper.make_node(op_type, ["x"], ["y"], domain="ai.onnx.ml", threshold=0.25)
        if op_type == "Binarizer"
        else helper.make_node(op_type, ["x", "at"], ["y"], domain="ai.onnx.ml")
    )
    graph = helper.make_graph(
        [node],
        "ml",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])]
        + ([helper.make_tensor_value_info("at", TensorProto.INT64, [2])] if node.input[1:] else []),
        [
            helper.make_tensor_value_info(
                "y", TensorProto.FLOAT, [3, 4 if op_type == "Binarizer" else 2]
            )
        ],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 1)])
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    inputs = [x] if op_type == "Binarizer" else [x, np.array([3, 0], np.int64)]
    check_against_onnxruntime(proto, inputs)
