"""ConvInteger as the convolution of its inputs less their zero points
(lighthouse.ingress.onnx.rules.integer_convolution), against ONNX's
reference evaluator."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import lighthouse  # noqa: E402


def conv_integer(x_shape, w_shape, zero_points, **attributes):
    """A model of one ConvInteger of uint8 inputs; `zero_points` names those
    it takes ("x", "w"), the filter's zero point one per output channel."""
    inputs = ["x", "w"]
    declared = [
        helper.make_tensor_value_info("x", TensorProto.UINT8, x_shape),
        helper.make_tensor_value_info("w", TensorProto.UINT8, w_shape),
    ]
    if zero_points:
        inputs.append("x_zero_point" if "x" in zero_points else "")
        if "x" in zero_points:
            declared.append(helper.make_tensor_value_info("x_zero_point", TensorProto.UINT8, []))
    if "w" in zero_points:
        inputs.append("w_zero_point")
        declared.append(
            helper.make_tensor_value_info("w_zero_point", TensorProto.UINT8, [w_shape[0]])
        )
    node = helper.make_node("ConvInteger", inputs, ["y"], name="conv", **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        declared,
        [
            helper.make_tensor_value_info(
                "y", TensorProto.INT32, [f"y{axis}" for axis in range(len(x_shape))]
            )
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def feeds(model, seed=0):
    rng = np.random.default_rng(seed)
    values = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        values[value.name] = rng.integers(0, 256, shape).astype(np.uint8)
    return values


@pytest.mark.parametrize(
    "x_shape, w_shape, zero_points, attributes",
    [
        # The node test torch-mlir's conversion refuses: padding, and a
        # zero point per output channel.
        ([1, 1, 3, 3], [2, 1, 2, 2], ("x", "w"), {"pads": [1, 1, 1, 1]}),
        ([2, 4, 7, 6], [6, 2, 3, 3], ("x", "w"), {"group": 2, "strides": [2, 1]}),
        ([1, 3, 9, 8], [4, 3, 3, 2], ("w",), {"dilations": [2, 1], "auto_pad": "SAME_UPPER"}),
    ],
)
def test_conv_integer_matches_onnxs_reference(x_shape, w_shape, zero_points, attributes):
    model = conv_integer(x_shape, w_shape, zero_points, **attributes)
    values = feeds(model)
    (expected,) = ReferenceEvaluator(model).run(None, values)
    compiled = lighthouse.compile_onnx(model)
    result = compiled(*(values[v.name] for v in model.graph.input))
    assert result.dtype == np.int32
    np.testing.assert_array_equal(result, expected)
