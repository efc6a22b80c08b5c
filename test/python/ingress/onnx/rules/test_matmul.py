"""MatMul of a vector and a stack of matrices, and QLinearMatMul of stacks
(lighthouse.ingress.onnx.rules.matmul)."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_compiled, check_one_node, model  # noqa: E402


@pytest.mark.parametrize(
    "a_shape, b_shape, y_shape",
    [([3], [2, 4, 3, 5], [2, 4, 5]), ([2, 4, 3, 5], [5], [2, 4, 3])],
    ids=["vector-times-stack", "stack-times-vector"],
)
@pytest.mark.parametrize("opset", [11, 18])
def test_a_matmul_of_a_vector_and_a_stack_of_matrices(a_shape, b_shape, y_shape, opset):
    proto = model(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        [("a", TensorProto.FLOAT, a_shape), ("b", TensorProto.FLOAT, b_shape)],
        [("y", TensorProto.FLOAT, y_shape)],
        opset=opset,
    )
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in (a_shape, b_shape))
    check_compiled(proto, a, b)


LIGHTHOUSE_FUNCTIONS = {
    "qlinearmatmul-stacked-int8": (
        helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"]),
        [
            ("a", TensorProto.INT8, [2, 2, 4]),
            ("b", TensorProto.INT8, [2, 4, 3]),
        ],
        [("y", TensorProto.INT8, [2, 2, 3])],
        21,
        {"sa": 0.05, "za": 1, "sb": 0.2, "zb": -2, "sy": 0.01, "zy": 3},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """QLinearMatMul of stacks of matrices, whose batched int8 product
    torch-mlir gets wrong."""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])
