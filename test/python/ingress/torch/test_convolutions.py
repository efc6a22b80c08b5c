"""Grouped 3-D convolutions, which torch-mlir does not lower, compile as sums
of 2-D ones over the filter's depth (lighthouse.ingress.torch.convolutions)."""

import numpy as np
import pytest
import torch

import lighthouse

TOLERANCE = dict(rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "channels, groups, kernel, stride, padding, dilation, bias",
    [
        # MViT's pooled attention: depthwise, stride 2 across the image.
        (8, 8, (3, 3, 3), (1, 2, 2), (1, 1, 1), 1, True),
        # Groups of several channels, strided and dilated in depth, no bias.
        (8, 2, (3, 1, 3), (2, 1, 1), (2, 0, 1), (2, 1, 1), False),
        # Unpadded, a filter as deep as the input.
        (6, 3, (4, 2, 2), 1, 0, 1, True),
    ],
)
@pytest.mark.parametrize("pipeline", ["default", "loops"])
def test_grouped_3d_convolutions_match_eager(
    channels, groups, kernel, stride, padding, dilation, bias, pipeline
):
    torch.manual_seed(0)
    model = torch.nn.Conv3d(
        channels,
        2 * channels,
        kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
        bias=bias,
    ).eval()
    x = torch.randn(2, channels, 4, 9, 10)
    compiled = lighthouse.compile(model, (x,), pipeline=pipeline)
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(compiled(x.numpy()), expected, **TOLERANCE)


def test_a_grouped_3d_convolution_of_one_stride_for_every_dimension():
    torch.manual_seed(0)
    weight = torch.randn(4, 2, 3, 3, 3)

    class Convolution(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.conv3d(x, weight, stride=[2], padding=[1], groups=2)

    x = torch.randn(1, 4, 5, 7, 7)
    compiled = lighthouse.compile(Convolution(), (x,))
    np.testing.assert_allclose(compiled(x.numpy()), Convolution()(x).numpy(), **TOLERANCE)


def test_a_grouped_3d_convolution_for_any_batch():
    torch.manual_seed(0)
    model = torch.nn.Conv3d(4, 4, 3, padding=1, groups=4).eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    compiled = lighthouse.compile(
        model, (torch.randn(2, 4, 3, 6, 6),), dynamic_shapes=({0: batch},)
    )
    for size in (1, 5):
        x = torch.randn(size, 4, 3, 6, 6)
        with torch.no_grad():
            expected = model(x).numpy()
        np.testing.assert_allclose(compiled(x.numpy()), expected, **TOLERANCE)
