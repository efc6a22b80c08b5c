"""ConvTranspose, Col2Im, grouped 3-D Conv and DeformConv
(lighthouse.ingress.onnx.rules.convolution), checked against onnxruntime."""

import pytest

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[onnx])")

from onnx import TensorProto, helper  # noqa: E402
from onnx_graphs import check_one_node  # noqa: E402


LIGHTHOUSE_FUNCTIONS = {
    "convtranspose-groups-same-upper": (
        helper.make_node(
            "ConvTranspose", ["x", "w", "b"], ["y"], group=2, strides=[2, 2], auto_pad="SAME_UPPER"
        ),
        [
            # ONNX's reference evaluator takes one output channel per group only.
            ("x", TensorProto.FLOAT, [1, 2, 3, 3]),
            ("w", TensorProto.FLOAT, [2, 1, 3, 3]),
            ("b", TensorProto.FLOAT, [2]),
        ],
        [("y", TensorProto.FLOAT, [1, 2, 6, 6])],
        18,
        {},
    ),
    "col2im-strided-dilated-padded": (
        helper.make_node(
            "Col2Im",
            ["columns", "image", "block"],
            ["y"],
            strides=[2, 1],
            dilations=[1, 2],
            pads=[1, 0, 0, 1],
        ),
        # 2 channels of 2x2 blocks over a 3x3 grid of positions.
        [("columns", TensorProto.FLOAT, [1, 8, 9])],
        [("y", TensorProto.FLOAT, [1, 2, 5, 4])],
        18,
        {"image": [5, 4], "block": [2, 2]},
    ),
    # MViT's pooled attention: depthwise over three dimensions.
    "conv3d-depthwise-strided-padded": (
        helper.make_node(
            "Conv", ["x", "w", "b"], ["y"], group=4, strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1]
        ),
        [
            ("x", TensorProto.FLOAT, [2, 4, 4, 9, 10]),
            ("w", TensorProto.FLOAT, [4, 1, 3, 3, 3]),
            ("b", TensorProto.FLOAT, [4]),
        ],
        [("y", TensorProto.FLOAT, [2, 4, 4, 5, 5])],
        18,
        {},
    ),
    # Groups of two channels, strided and dilated in depth, pads that differ
    # at the two ends, no bias.
    "conv3d-groups-depth-strided-dilated": (
        helper.make_node(
            "Conv",
            ["x", "w"],
            ["y"],
            group=2,
            strides=[2, 1, 1],
            dilations=[2, 1, 1],
            pads=[2, 0, 1, 1, 1, 0],
        ),
        [("x", TensorProto.FLOAT, [1, 4, 7, 5, 6]), ("w", TensorProto.FLOAT, [6, 2, 3, 2, 2])],
        [("y", TensorProto.FLOAT, [1, 6, 3, 5, 6])],
        18,
        {},
    ),
    "deformconv-strided-padded-masked-two-offset-groups": (
        helper.make_node(
            "DeformConv",
            ["x", "w", "offset", "b", "mask"],
            ["y"],
            strides=[2, 1],
            dilations=[1, 2],
            pads=[1, 0, 0, 1],
            offset_group=2,
        ),
        [
            ("x", TensorProto.FLOAT, [2, 4, 5, 6]),
            ("w", TensorProto.FLOAT, [3, 4, 2, 2]),
            # 2 offset groups x 4 taps x (dy, dx) over a 3x5 output.
            ("offset", TensorProto.FLOAT, [2, 16, 3, 5]),
            ("b", TensorProto.FLOAT, [3]),
            ("mask", TensorProto.FLOAT, [2, 8, 3, 5]),
        ],
        [("y", TensorProto.FLOAT, [2, 3, 3, 5])],
        22,
        {},
    ),
}


@pytest.mark.parametrize("name", LIGHTHOUSE_FUNCTIONS)
def test_ops_lighthouse_defines_match_onnxruntime(name):
    """Each op in a form torch-mlir does not convert, or converts wrong.
    (ONNX's reference adds the first group's bias to every group of a
    grouped ConvTranspose.)"""
    check_one_node(*LIGHTHOUSE_FUNCTIONS[name])
