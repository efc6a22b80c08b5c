"""A frozen program's constant work done at import (lighthouse.ingress.torch.folding):
what is computed from the model's state alone, and the per-channel affine
ops after a convolution (an inference batch norm) folded into its filters."""

import collections

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[torch])")

import lighthouse  # noqa: E402
from lighthouse.ingress import torch as torch_ingress  # noqa: E402
from lighthouse.ingress.torch.program import frozen  # noqa: E402


def _calibrated(model, *shape):
    """`model` in eval mode, its batch norms' statistics those of a batch of
    random images (not the initial 0 and 1, which would fold to nothing)."""
    torch.manual_seed(0)
    model.train()
    with torch.no_grad():
        model(torch.randn(*shape))
    return model.eval()


def _ops(model, x):
    """The ATen ops of `model`'s frozen program, counted."""
    graph = frozen(torch_ingress.export(model, (x,))).graph
    return collections.Counter(
        node.target.__name__ for node in graph.nodes if node.op == "call_function"
    )


def _compiled_matches_eager(model, x):
    compiled = lighthouse.compile(model, (x,))
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(np.asarray(compiled(x)), expected, rtol=1e-4, atol=1e-5)


class ConvNormRelu(torch.nn.Sequential):
    def __init__(self, bias: bool, groups: int = 1):
        super().__init__(
            torch.nn.Conv2d(8, 8, 3, padding=1, bias=bias, groups=groups),
            torch.nn.BatchNorm2d(8),
            torch.nn.ReLU6(),
        )


@pytest.mark.parametrize("groups", [1, 8], ids=["dense", "depthwise"])
def test_batch_norm_without_a_bias_becomes_scaled_filters_and_one_addition(groups):
    model = _calibrated(ConvNormRelu(bias=False, groups=groups), 2, 8, 10, 10)
    x = torch.randn(2, 8, 10, 10)
    ops = _ops(model, x)
    assert ops["convolution.default"] == 1
    assert ops["add.Tensor"] == 1
    for gone in ("sub.Tensor", "mul.Tensor", "sqrt.default", "reciprocal.default"):
        assert gone not in ops, ops
    _compiled_matches_eager(model, x)


def test_batch_norm_after_a_bias_is_the_bias():
    model = _calibrated(ConvNormRelu(bias=True), 1, 8, 10, 10)
    x = torch.randn(1, 8, 10, 10)
    ops = _ops(model, x)
    assert set(ops) == {"convolution.default", "hardtanh.default"}, ops
    _compiled_matches_eager(model, x)


class ScaledTwice(torch.nn.Module):
    """A convolution whose result is scaled per pixel (not per channel), and
    one whose result is used twice: neither folds."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Conv2d(4, 4, 1)
        self.second = torch.nn.Conv2d(4, 4, 1)
        self.register_buffer("per_pixel", torch.linspace(0.5, 1.5, 36).view(1, 1, 6, 6))
        self.register_buffer("per_channel", torch.linspace(0.5, 1.5, 4).view(4, 1, 1))

    def forward(self, x):
        y = self.first(x) * self.per_pixel
        z = self.second(y)
        return z * self.per_channel + z


def test_per_pixel_scales_and_shared_results_stay():
    model = ScaledTwice().eval()
    x = torch.randn(1, 4, 6, 6)
    ops = _ops(model, x)
    assert ops["mul.Tensor"] == 2 and ops["add.Tensor"] == 1, ops
    _compiled_matches_eager(model, x)


class ConstantArithmetic(torch.nn.Module):
    """Work on buffers alone: a reciprocal square root (folded), a broadcast
    to the activation's size (left: it would only make the constants larger)
    and random noise (left: drawn on every call)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("variance", torch.linspace(1.0, 4.0, 16))

    def forward(self, x):
        scale = torch.rsqrt(self.variance + 1e-5)
        wide = scale.expand(64, 16)
        return x * wide + torch.rand_like(self.variance) * 0


def test_constants_fold_where_they_do_not_grow_or_vary():
    ops = _ops(ConstantArithmetic().eval(), torch.randn(64, 16))
    assert "rsqrt.default" not in ops and "add.Tensor" in ops, ops
    assert ops["expand.default"] == 1 and ops["rand_like.default"] == 1, ops


class DividedByZero(torch.nn.Module):
    """A convolution divided by a per-channel scale with a 0 in it: its
    channel is inf or NaN where the convolution is nonzero or 0, which the
    scaled filters (inf and NaN in all of them) would not give."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 1, bias=False)
        torch.nn.init.constant_(self.conv.weight, 1.0)
        self.register_buffer("scale", torch.tensor([2.0, 0.0]).view(2, 1, 1))

    def forward(self, x):
        return self.conv(x) / self.scale


def test_a_scale_of_zero_is_not_folded():
    model = DividedByZero().eval()
    x = torch.tensor([[[[1.0, 0.0]], [[-1.0, 0.0]]]])
    assert _ops(model, x)["div.Tensor"] == 1
    compiled = lighthouse.compile(model, (x,))
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_array_equal(np.asarray(compiled(x)), expected)
