"""Single operators and short fused chains at the sizes real models run them:
the instrument for measuring a CPU code generator against eager PyTorch and
the other compilers, one operator family at a time.

Each case is a small `torch.nn.Module` in float32 and eval mode, with
weights from a seeded generator and inputs from numpy's `default_rng` with a
fixed seed; the reference is eager PyTorch. Shapes are those of well-known
networks (ResNet-50, MobileNetV2, UNet, ViT-B/16, BERT-base, GPT-2, LLaMA,
C3D...), and sized so that eager PyTorch takes about 0.2 to 20 ms a call on
one core: the bench times each case over many rounds, so a case stays cheap.

Names are `<op>.<where the shape comes from>-<shape>` (`matmul.1024x1024x1024`,
`conv2d.resnet-3x3-64x56x56`); tags are `family` (matmul, conv,
conv_transpose, pool, reduction, norm, attention, elementwise, fused) and
`op`. Each problem declares its output shapes (`output_shapes`), which the
tests check against the reference.

Values are kept of order 1 wherever a result sums many terms: weights are
normal with variance 1/fan-in (`initialized`), and the second operand of a
product of two inputs is scaled by 1/sqrt(K), so that a product's outputs
have unit variance like its inputs. Tolerances are per family (see
`CONTRACTION`, `REDUCTION`, `PROBABILITIES`, `ELEMENTWISE`).
"""

import math
from typing import Callable, Dict, List, NamedTuple, Tuple

import numpy as np

from ..case import Case, CaseInfo, InvalidCase
from ..plugins import Corpus
from .models import BasicBlock, InvertedResidual, SelfAttention, initialized

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # Listing the cases needs no torch; building them does.
    torch = F = None

__all__ = ["FAMILIES", "Operators", "output_shapes"]

# The classes below are defined without torch too (on `object`), so that this
# module imports, and lists its cases, where torch is not installed.
_Module = object if torch is None else torch.nn.Module

FAMILIES = (
    "matmul",
    "conv",
    "conv_transpose",
    "pool",
    "reduction",
    "norm",
    "attention",
    "elementwise",
    "fused",
)

# Tolerances, as (rtol, atol) of |actual - expected| <= atol + rtol * |expected|,
# against eager float32. Each is far above float32's own error and far below
# the error of a wrong result (an element off by a value of order 1), so that
# any sound float32 code passes and is timed, and a wrong one fails. Eager
# float32 measured against float64 on every case uses at most 1/400 of its
# tolerance for products, 1/200 for reductions and norms, 1/500 for
# probabilities and 1/10 for elementwise ops (exact GELU, whose erf cancels
# for large negative inputs).

#: Products summed over K terms (matmul, convolutions, attention, and the
#: fused chains built on them): another summation order (blocking, vector
#: lanes, FMA) moves a result by about sqrt(K) * eps * |partial sums| and by
#: at most K * eps * |partial sums|; with partial sums of order 1 (operands
#: scaled to fan-in) and K up to 4608 (512 channels x 3x3), that is 4e-6
#: typically and 3e-4 at worst. Outputs cancel to near zero anywhere, so the
#: absolute term carries it: 1e-3.
CONTRACTION = (1e-3, 1e-3)
#: Reductions and normalizations over N elements (up to 16M for a whole-
#: tensor sum): a sum in another order is within about sqrt(N) * eps
#: relatively (2.4e-4 at N = 16M, far less for rows of thousands); sums are of
#: positive inputs, so that they do not cancel. Normalized outputs are of
#: order 1, and those near zero are off by about eps times the inputs: 1e-5.
REDUCTION = (1e-3, 1e-5)
#: Softmax outputs are probabilities of order 1/N (3e-5 over a 32000-word
#: vocabulary), each off by a relative few ulp of exp plus the sum's sqrt(N) *
#: eps: relative 1e-3, and an absolute term below the smallest probability
#: that matters, or an output of zeros would pass.
PROBABILITIES = (1e-3, 1e-7)
#: One operation an element (and pooling windows of at most 49 terms): eager
#: is within an ulp or two of exact; compiled code may use vectorized
#: polynomial approximations of exp, log, tanh and erf good to tens of ulp
#: (about 1e-6 relative). 1e-4 relative lets every such approximation pass;
#: 1e-5 absolute covers results near zero (log near 1, gelu of large negative
#: inputs, an approximation's absolute error of tanh near 0).
ELEMENTWISE = (1e-4, 1e-5)

_FAMILY_TOLERANCE = {
    "matmul": CONTRACTION,
    "conv": CONTRACTION,
    "conv_transpose": CONTRACTION,
    "pool": ELEMENTWISE,
    "reduction": REDUCTION,
    "norm": REDUCTION,
    "attention": CONTRACTION,
    "elementwise": ELEMENTWISE,
    "fused": CONTRACTION,
}


# Inputs: drawn in order from one `np.random.default_rng(SEED)` per case.

SEED = 0


class _Normal:
    """Standard normal values times `scale`."""

    def __init__(self, *shape: int, scale: float = 1.0):
        self.shape = shape
        self.scale = scale

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        values = rng.standard_normal(self.shape, dtype=np.float32)
        return values if self.scale == 1.0 else (values * np.float32(self.scale))


class _Uniform:
    """Values uniform in [low, high): positive inputs for log, rsqrt, pow and
    sums that must not cancel."""

    def __init__(self, *shape: int, low: float = 0.0, high: float = 1.0):
        self.shape = shape
        self.low = low
        self.high = high

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        values = rng.random(self.shape, dtype=np.float32)
        return (values * np.float32(self.high - self.low) + np.float32(self.low)).astype(np.float32)


def _operand(*shape: int) -> _Normal:
    """The second operand of a product, (..., K, N) or (K,): normal over
    sqrt(K), so that the product has unit variance."""
    k = shape[-2] if len(shape) >= 2 else shape[0]
    return _Normal(*shape, scale=1 / math.sqrt(k))


# Modules. Weights are set by `_initialized` when a case is built. Constant
# tables (a causal mask, rotary angles) are persistent buffers: torch-mlir's
# FX importer, which lighthouse and IREE use, finds no state for others.


class Apply(_Module):
    """A function of the inputs, with no weights of its own."""

    def __init__(self, function: Callable):
        super().__init__()
        self.function = function

    def forward(self, *inputs):
        return self.function(*inputs)


class RMSNorm(_Module):
    """LLaMA's RMS norm written out: x * rsqrt(mean(x^2) + eps) * weight."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(_Module):
    """Attention written out on (batch, heads, length, width) queries, keys
    and values: softmax(q k^T / sqrt(width)) v, with the future masked when
    `causal_length` is set (to the sequence's length)."""

    def __init__(self, causal_length: int = 0):
        super().__init__()
        mask = None
        if causal_length:
            mask = torch.ones(causal_length, causal_length, dtype=torch.bool).triu(1)
        self.register_buffer("mask", mask)

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) * (q.shape[-1] ** -0.5)
        if self.mask is not None:
            scores = scores.masked_fill(self.mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


class GroupedQueryAttention(Attention):
    """LLaMA-2's grouped-query attention: each key and value head serves a
    group of query heads (repeated to match them), causal."""

    def forward(self, q, k, v):
        groups = q.shape[1] // k.shape[1]
        return super().forward(
            q, k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        )


class MultiheadAttention(_Module):
    """`torch.nn.MultiheadAttention` as self-attention over a batch-first sequence."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class ConvBnAct(_Module):
    """A convolution without bias, eval-mode batch norm and an activation
    (ReLU, or ReLU6 as MobileNet uses)."""

    def __init__(self, inputs, outputs, kernel, stride=1, padding=0, groups=1, relu6=False):
        super().__init__()
        self.conv = torch.nn.Conv2d(
            inputs, outputs, kernel, stride, padding, groups=groups, bias=False
        )
        self.norm = torch.nn.BatchNorm2d(outputs)
        self.act = torch.nn.ReLU6() if relu6 else torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class ConvAddRelu(_Module):
    """A residual block's end: a 3x3 convolution and batch norm, the block's
    input added back, then ReLU."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.norm = torch.nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)) + x)


class LinearAddNorm(_Module):
    """BERT's output sublayer: a dense projection of the hidden state, the
    residual added, layer norm."""

    def __init__(self, inner: int, dim: int):
        super().__init__()
        self.dense = torch.nn.Linear(inner, dim)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, hidden, residual):
        return self.norm(self.dense(hidden) + residual)


class AddNorm(_Module):
    """A residual add followed by layer norm."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x, residual):
        return self.norm(x + residual)


class SwiGLU(_Module):
    """LLaMA's feed-forward network: down(silu(gate(x)) * up(x)), no biases."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.gate = torch.nn.Linear(dim, hidden, bias=False)
        self.up = torch.nn.Linear(dim, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class RotaryEmbedding(_Module):
    """Rotary position embedding of (batch, heads, length, width) queries, as
    LLaMA applies it: x * cos + rotate_half(x) * sin, the i-th pair of
    features at position p turned by p / 10000^(2i / width)."""

    def __init__(self, length: int, width: int):
        super().__init__()
        frequencies = 10000.0 ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
        angles = torch.outer(torch.arange(length, dtype=torch.float64), frequencies)
        angles = torch.cat([angles, angles], dim=-1)
        self.register_buffer("cos", angles.cos().float())
        self.register_buffer("sin", angles.sin().float())

    def forward(self, x):
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * self.cos + rotated * self.sin


def _initialized(module, seed: int = 0):
    """`initialized`'s weights (variance 1/fan-in, normalization scales near 1,
    biases near 0), and batch norms' running statistics as training leaves
    them on activations of order 1: means near 0, variances 0.5 to 1.5."""
    module = initialized(module, seed)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, buffer in module.named_buffers():
            if name.endswith("running_mean"):
                buffer.copy_(0.1 * torch.randn(buffer.shape, generator=generator))
            elif name.endswith("running_var"):
                buffer.copy_(0.5 + torch.rand(buffer.shape, generator=generator))
    return module.eval()


# The problems.


class _Problem(NamedTuple):
    family: str
    op: str
    make: Callable  # () -> torch.nn.Module
    inputs: Tuple
    outputs: Tuple[Tuple[int, ...], ...]
    tolerance: Tuple[float, float]


_PROBLEMS: Dict[str, _Problem] = {}


def _add(name, family, op, make, inputs, outputs, tolerance=None):
    assert name not in _PROBLEMS and family in FAMILIES, name
    _PROBLEMS[name] = _Problem(
        family,
        op,
        make,
        tuple(inputs),
        tuple(tuple(shape) for shape in outputs),
        tolerance or _FAMILY_TOLERANCE[family],
    )


def _matmul(name, op, a, b, out):
    _add(name, "matmul", op, lambda: Apply(torch.matmul), [_Normal(*a), _operand(*b)], [out])


def _linear(name, inputs, outputs, batch_shape):
    _add(
        name,
        "matmul",
        "linear",
        lambda: torch.nn.Linear(inputs, outputs),
        [_Normal(*batch_shape, inputs)],
        [(*batch_shape, outputs)],
    )


# matmul: square, irregular, batched, matrix-vector, transposed B, linear layers.
_matmul("matmul.512x512x512", "matmul", (512, 512), (512, 512), (512, 512))
_matmul("matmul.1024x1024x1024", "matmul", (1024, 1024), (1024, 1024), (1024, 1024))
_matmul("matmul.1000x1000x1000", "matmul", (1000, 1000), (1000, 1000), (1000, 1000))
# ViT-B/16's MLP on 197 tokens; CLIP's text encoder MLP on 77 tokens.
_matmul("matmul.vit-197x768x3072", "matmul", (197, 768), (768, 3072), (197, 3072))
_matmul("matmul.clip-77x768x3072", "matmul", (77, 768), (768, 3072), (77, 3072))
# ResNet-50's 1x1 convolution at 56x56 as a product: M = 3136, K = 64.
_matmul("matmul.resnet-3136x64x256", "matmul", (3136, 64), (64, 256), (3136, 256))
_matmul("matmul.odd-509x1021x257", "matmul", (509, 1021), (1021, 257), (509, 257))
# x @ W.T, W as (N, K): BERT at sequence 384, ViT-B's fused QKV.
_add(
    "matmul_nt.bert-384x768x768",
    "matmul",
    "matmul_nt",
    lambda: Apply(lambda a, b: a @ b.T),
    [_Normal(384, 768), _Normal(768, 768, scale=768**-0.5)],
    [(384, 768)],
)
_add(
    "matmul_nt.vit-197x768x2304",
    "matmul",
    "matmul_nt",
    lambda: Apply(lambda a, b: a @ b.T),
    [_Normal(197, 768), _Normal(2304, 768, scale=768**-0.5)],
    [(197, 2304)],
)
# Batched: BERT-base's attention scores and weighted values (12 heads of 64
# at sequence 128, batch 4), 16 products of 256, GPT-2 medium's scores at sequence 512.
_matmul("bmm.bert-4x12x128x64x128", "bmm", (4, 12, 128, 64), (4, 12, 64, 128), (4, 12, 128, 128))
_matmul("bmm.bert-4x12x128x128x64", "bmm", (4, 12, 128, 128), (4, 12, 128, 64), (4, 12, 128, 64))
_matmul("bmm.16x256x256x256", "bmm", (16, 256, 256), (16, 256, 256), (16, 256, 256))
_matmul("bmm.gpt2-1x16x512x64x512", "bmm", (1, 16, 512, 64), (1, 16, 64, 512), (1, 16, 512, 512))
# A 4-D tensor times a matrix (broadcast over batch and heads): LLaMA's 32
# heads of 128 at sequence 256 through a per-head projection.
_matmul(
    "matmul_broadcast.llama-1x32x256x128x128",
    "matmul_broadcast",
    (1, 32, 256, 128),
    (128, 128),
    (1, 32, 256, 128),
)
# Matrix-vector and vector-matrix: one token through a 4096-wide layer.
_add(
    "mv.4096x4096",
    "matmul",
    "mv",
    lambda: Apply(torch.mv),
    [_Normal(4096, 4096), _Normal(4096, scale=4096**-0.5)],
    [(4096,)],
)
_add(
    "vm.4096x4096",
    "matmul",
    "vm",
    lambda: Apply(torch.matmul),
    [_Normal(4096), _operand(4096, 4096)],
    [(4096,)],
)
# Linear layers (x @ W.T + b) at batch 1, 8 and 32, and on sequences.
_linear("linear.b1-4096x4096", 4096, 4096, (1,))
_linear("linear.b8-1024x4096", 1024, 4096, (8,))
_linear("linear.b32-1024x4096", 1024, 4096, (32,))
_linear("linear.b32-4096x1000", 4096, 1000, (32,))
_linear("linear.bert-128x768x768", 768, 768, (1, 128))
_linear("linear.gpt2-qkv-256x768x2304", 768, 2304, (1, 256))
_linear("linear.llama-512x1024x1024", 1024, 1024, (1, 512))


def _conv(name, op, layer, input_shape, output_shape, family="conv"):
    _add(name, family, op, layer, [_Normal(*input_shape)], [output_shape])


def _conv2d(name, inputs, outputs, kernel, size, out_size, stride=1, padding=0, **kwargs):
    _conv(
        name,
        "conv2d",
        lambda: torch.nn.Conv2d(inputs, outputs, kernel, stride, padding, **kwargs),
        (1, inputs, size, size),
        (1, outputs, out_size, out_size),
    )


# conv1d: a 3-tap convolution of 256 channels, wav2vec 2.0's first layer on a
# second of 16 kHz audio, a dilated temporal convolution, Conformer's 31-tap
# depthwise convolution.
_conv(
    "conv1d.k3-256x1024",
    "conv1d",
    lambda: torch.nn.Conv1d(256, 256, 3, padding=1),
    (1, 256, 1024),
    (1, 256, 1024),
)
_conv(
    "conv1d.wav2vec-k10s5-1x16000",
    "conv1d",
    lambda: torch.nn.Conv1d(1, 512, 10, stride=5),
    (1, 1, 16000),
    (1, 512, 3199),
)
_conv(
    "conv1d.dilated-k3d4-128x2048",
    "conv1d",
    lambda: torch.nn.Conv1d(128, 128, 3, padding=4, dilation=4),
    (1, 128, 2048),
    (1, 128, 2048),
)
_conv(
    "conv1d.conformer-dw-k31-256x512",
    "conv1d",
    lambda: torch.nn.Conv1d(256, 256, 31, padding=15, groups=256),
    (1, 256, 512),
    (1, 256, 512),
)
# conv2d: ResNet's stem and 3x3 convolutions at each stage, ResNet-50's 1x1
# bottleneck convolutions, MobileNetV2/EfficientNet's pointwise and depthwise
# convolutions, ResNeXt's grouped one, DeepLab's dilated one, UNet's, ViT's
# patch embedding.
_conv2d("conv2d.resnet-7x7s2-3x224x224", 3, 64, 7, 224, 112, stride=2, padding=3)
_conv2d("conv2d.resnet-3x3-64x56x56", 64, 64, 3, 56, 56, padding=1)
_conv2d("conv2d.resnet-3x3-128x28x28", 128, 128, 3, 28, 28, padding=1)
_conv2d("conv2d.resnet-3x3-256x14x14", 256, 256, 3, 14, 14, padding=1)
_conv2d("conv2d.resnet-3x3-512x7x7", 512, 512, 3, 7, 7, padding=1)
_conv2d("conv2d.resnet-3x3s2-64x56x56-to128", 64, 128, 3, 56, 28, stride=2, padding=1)
_conv2d("conv2d.resnet50-1x1-256x56x56-to64", 256, 64, 1, 56, 56)
_conv2d("conv2d.resnet50-1x1-64x56x56-to256", 64, 256, 1, 56, 56)
_conv2d("conv2d.resnet50-1x1s2-512x28x28-to1024", 512, 1024, 1, 28, 14, stride=2)
_conv2d("conv2d.mobilenet-1x1-24x56x56-to144", 24, 144, 1, 56, 56)
_conv2d("conv2d.mobilenet-dw-3x3-144x56x56", 144, 144, 3, 56, 56, padding=1, groups=144)
_conv2d("conv2d.mobilenet-dw-3x3s2-96x112x112", 96, 96, 3, 112, 56, stride=2, padding=1, groups=96)
_conv2d("conv2d.efficientnet-dw-5x5-240x28x28", 240, 240, 5, 28, 28, padding=2, groups=240)
_conv2d("conv2d.resnext-g32-3x3-128x56x56", 128, 128, 3, 56, 56, padding=1, groups=32)
_conv2d("conv2d.deeplab-3x3d2-256x28x28", 256, 256, 3, 28, 28, padding=2, dilation=2)
_conv2d("conv2d.unet-3x3-3x256x256-to64", 3, 64, 3, 256, 256, padding=1)
_conv2d("conv2d.unet-3x3-128x64x64", 128, 128, 3, 64, 64, padding=1)
_conv2d("conv2d.vit-patch16-3x224x224-to768", 3, 768, 16, 224, 14, stride=16)
# conv3d: C3D's 3x3x3 convolution, an R3D stem strided in space, a strided
# 3x3x3 one and a pointwise one.
_conv(
    "conv3d.c3d-3x3x3-64x8x14x14",
    "conv3d",
    lambda: torch.nn.Conv3d(64, 64, 3, padding=1),
    (1, 64, 8, 14, 14),
    (1, 64, 8, 14, 14),
)
_conv(
    "conv3d.r3d-stem-3x3x3s122-3x16x112x112",
    "conv3d",
    lambda: torch.nn.Conv3d(3, 64, 3, stride=(1, 2, 2), padding=1),
    (1, 3, 16, 112, 112),
    (1, 64, 16, 56, 56),
)
_conv(
    "conv3d.3x3x3s2-64x8x28x28-to128",
    "conv3d",
    lambda: torch.nn.Conv3d(64, 128, 3, stride=2, padding=1),
    (1, 64, 8, 28, 28),
    (1, 128, 4, 14, 14),
)
_conv(
    "conv3d.1x1x1-256x8x14x14-to64",
    "conv3d",
    lambda: torch.nn.Conv3d(256, 64, 1),
    (1, 256, 8, 14, 14),
    (1, 64, 8, 14, 14),
)

# conv_transpose: HiFi-GAN's 8x upsampling, DCGAN's generator layers, UNet's
# 2x2 up-convolution, an output-padded 3x3 one, FCN-8s's 8x upsampling of 21
# class maps, 3-D UNet's up-convolutions.
_conv(
    "conv_transpose1d.hifigan-16s8-512x64-to256",
    "conv_transpose1d",
    lambda: torch.nn.ConvTranspose1d(512, 256, 16, stride=8, padding=4),
    (1, 512, 64),
    (1, 256, 512),
    family="conv_transpose",
)
_conv(
    "conv_transpose2d.dcgan-4x4s2-256x8x8-to128",
    "conv_transpose2d",
    lambda: torch.nn.ConvTranspose2d(256, 128, 4, 2, 1),
    (1, 256, 8, 8),
    (1, 128, 16, 16),
    family="conv_transpose",
)
_conv(
    "conv_transpose2d.dcgan-4x4s2-128x32x32-to64",
    "conv_transpose2d",
    lambda: torch.nn.ConvTranspose2d(128, 64, 4, 2, 1),
    (1, 128, 32, 32),
    (1, 64, 64, 64),
    family="conv_transpose",
)
_conv(
    "conv_transpose2d.unet-2x2s2-128x64x64-to64",
    "conv_transpose2d",
    lambda: torch.nn.ConvTranspose2d(128, 64, 2, 2),
    (1, 128, 64, 64),
    (1, 64, 128, 128),
    family="conv_transpose",
)
_conv(
    "conv_transpose2d.3x3s2-64x56x56-to32",
    "conv_transpose2d",
    lambda: torch.nn.ConvTranspose2d(64, 32, 3, 2, padding=1, output_padding=1),
    (1, 64, 56, 56),
    (1, 32, 112, 112),
    family="conv_transpose",
)
_conv(
    "conv_transpose2d.fcn-16x16s8-21x28x28",
    "conv_transpose2d",
    lambda: torch.nn.ConvTranspose2d(21, 21, 16, 8, 4, bias=False),
    (1, 21, 28, 28),
    (1, 21, 224, 224),
    family="conv_transpose",
)
_conv(
    "conv_transpose3d.unet3d-2x2x2s2-64x8x16x16-to32",
    "conv_transpose3d",
    lambda: torch.nn.ConvTranspose3d(64, 32, 2, 2),
    (1, 64, 8, 16, 16),
    (1, 32, 16, 32, 32),
    family="conv_transpose",
)
_conv(
    "conv_transpose3d.4x4x4s2-32x8x16x16-to16",
    "conv_transpose3d",
    lambda: torch.nn.ConvTranspose3d(32, 16, 4, 2, 1),
    (1, 32, 8, 16, 16),
    (1, 16, 16, 32, 32),
    family="conv_transpose",
)


def _pool(name, op, layer, input_shape, output_shape):
    _add(name, "pool", op, layer, [_Normal(*input_shape)], [output_shape])


# pool: ResNet's and VGG's max pooling, DenseNet's transition and Inception's
# branch average pooling, ResNet-50's global pooling at batch 16, VGG's
# adaptive pooling to 7x7, C3D's 3-D max pooling, a 1-D one over time.
_pool(
    "max_pool2d.resnet-3x3s2-64x112x112",
    "max_pool2d",
    lambda: torch.nn.MaxPool2d(3, 2, 1),
    (1, 64, 112, 112),
    (1, 64, 56, 56),
)
_pool(
    "max_pool2d.vgg-2x2s2-128x112x112",
    "max_pool2d",
    lambda: torch.nn.MaxPool2d(2, 2),
    (1, 128, 112, 112),
    (1, 128, 56, 56),
)
_pool(
    "avg_pool2d.densenet-2x2s2-128x56x56",
    "avg_pool2d",
    lambda: torch.nn.AvgPool2d(2, 2),
    (1, 128, 56, 56),
    (1, 128, 28, 28),
)
_pool(
    "avg_pool2d.inception-3x3s1-256x28x28",
    "avg_pool2d",
    lambda: torch.nn.AvgPool2d(3, 1, 1, count_include_pad=False),
    (1, 256, 28, 28),
    (1, 256, 28, 28),
)
_pool(
    "adaptive_avg_pool2d.resnet50-b16-2048x7x7",
    "adaptive_avg_pool2d",
    lambda: torch.nn.AdaptiveAvgPool2d(1),
    (16, 2048, 7, 7),
    (16, 2048, 1, 1),
)
_pool(
    "adaptive_avg_pool2d.vgg-b8-512x14x14-to7",
    "adaptive_avg_pool2d",
    lambda: torch.nn.AdaptiveAvgPool2d(7),
    (8, 512, 14, 14),
    (8, 512, 7, 7),
)
_pool(
    "max_pool3d.c3d-2x2x2-64x8x56x56",
    "max_pool3d",
    lambda: torch.nn.MaxPool3d(2, 2),
    (1, 64, 8, 56, 56),
    (1, 64, 4, 28, 28),
)
_pool(
    "max_pool1d.3s2-256x4096",
    "max_pool1d",
    lambda: torch.nn.MaxPool1d(3, 2),
    (1, 256, 4096),
    (1, 256, 2047),
)


def _reduction(name, op, function, inputs, outputs, tolerance=None, family="reduction"):
    _add(name, family, op, lambda: Apply(function), inputs, outputs, tolerance)


# reduction: softmax and log-softmax over attention scores, a vocabulary and
# class maps (the last dimension and others), sums along rows, columns and
# the whole tensor, means over space, max, argmax, variance, logsumexp, norms.
_reduction(
    "softmax.attention-12x512x512",
    "softmax",
    lambda x: torch.softmax(x, dim=-1),
    [_Normal(1, 12, 512, 512)],
    [(1, 12, 512, 512)],
    PROBABILITIES,
)
_reduction(
    "softmax.llama-vocab-128x32000",
    "softmax",
    lambda x: torch.softmax(x, dim=-1),
    [_Normal(128, 32000)],
    [(128, 32000)],
    PROBABILITIES,
)
_reduction(
    "softmax.dim1-ade20k-150x128x128",
    "softmax",
    lambda x: torch.softmax(x, dim=1),
    [_Normal(1, 150, 128, 128)],
    [(1, 150, 128, 128)],
    PROBABILITIES,
)
_reduction(
    "log_softmax.llama-vocab-128x32000",
    "log_softmax",
    lambda x: torch.log_softmax(x, dim=-1),
    [_Normal(128, 32000)],
    [(128, 32000)],
)
_reduction(
    "log_softmax.dim1-voc-4x21x128x128",
    "log_softmax",
    lambda x: torch.log_softmax(x, dim=1),
    [_Normal(4, 21, 128, 128)],
    [(4, 21, 128, 128)],
)
_reduction("sum.rows-4096x1024", "sum", lambda x: x.sum(-1), [_Uniform(4096, 1024)], [(4096,)])
_reduction("sum.cols-1024x4096", "sum", lambda x: x.sum(0), [_Uniform(1024, 4096)], [(4096,)])
_reduction("sum.all-4096x4096", "sum", lambda x: x.sum(), [_Uniform(4096, 4096)], [()])
_reduction(
    "mean.spatial-4x256x56x56",
    "mean",
    lambda x: x.mean((2, 3)),
    [_Uniform(4, 256, 56, 56)],
    [(4, 256)],
)
_reduction("amax.rows-512x4096", "amax", lambda x: x.amax(-1), [_Normal(512, 4096)], [(512,)])
_reduction(
    "max.dim-2048x1000",
    "max",
    lambda x: tuple(torch.max(x, dim=1)),
    [_Normal(2048, 1000)],
    [(2048,), (2048,)],
)
_reduction(
    "argmax.llama-vocab-128x32000",
    "argmax",
    lambda x: x.argmax(-1),
    [_Normal(128, 32000)],
    [(128,)],
)
_reduction("var.rows-1024x1024", "var", lambda x: x.var(-1), [_Normal(1024, 1024)], [(1024,)])
_reduction(
    "var.batch-stats-8x128x28x28",
    "var",
    lambda x: x.var((0, 2, 3)),
    [_Normal(8, 128, 28, 28)],
    [(128,)],
)
_reduction(
    "logsumexp.llama-vocab-128x32000",
    "logsumexp",
    lambda x: torch.logsumexp(x, dim=-1),
    [_Normal(128, 32000)],
    [(128,)],
)
_reduction(
    "vector_norm.rows-4096x1024",
    "vector_norm",
    lambda x: torch.linalg.vector_norm(x, dim=-1),
    [_Normal(4096, 1024)],
    [(4096,)],
)


def _norm(name, op, layer, input_shape):
    _add(name, "norm", op, layer, [_Normal(*input_shape)], [input_shape])


# norm: layer norm at BERT's, GPT-2 medium's and ViT's widths, eval-mode batch
# norm after ResNet's convolutions, over features and over video, group norm
# as UNets and diffusion models use it, instance norm, RMS norm, L2 rows.
_norm("layer_norm.bert-8x128x768", "layer_norm", lambda: torch.nn.LayerNorm(768), (8, 128, 768))
_norm("layer_norm.gpt2-4x512x1024", "layer_norm", lambda: torch.nn.LayerNorm(1024), (4, 512, 1024))
_norm("layer_norm.vit-16x197x768", "layer_norm", lambda: torch.nn.LayerNorm(768), (16, 197, 768))
_norm(
    "batch_norm2d.resnet-64x112x112",
    "batch_norm",
    lambda: torch.nn.BatchNorm2d(64),
    (1, 64, 112, 112),
)
_norm(
    "batch_norm2d.resnet-256x56x56",
    "batch_norm",
    lambda: torch.nn.BatchNorm2d(256),
    (1, 256, 56, 56),
)
_norm("batch_norm1d.mlp-256x4096", "batch_norm", lambda: torch.nn.BatchNorm1d(4096), (256, 4096))
_norm(
    "batch_norm3d.video-64x8x56x56",
    "batch_norm",
    lambda: torch.nn.BatchNorm3d(64),
    (1, 64, 8, 56, 56),
)
_norm(
    "group_norm.unet-32g-256x64x64",
    "group_norm",
    lambda: torch.nn.GroupNorm(32, 256),
    (1, 256, 64, 64),
)
_norm(
    "group_norm.diffusion-32g-512x32x32",
    "group_norm",
    lambda: torch.nn.GroupNorm(32, 512),
    (2, 512, 32, 32),
)
_norm(
    "instance_norm.style-64x128x128",
    "instance_norm",
    lambda: torch.nn.InstanceNorm2d(64, affine=True),
    (1, 64, 128, 128),
)
_norm("rms_norm.llama-512x4096", "rms_norm", lambda: RMSNorm(4096), (1, 512, 4096))
_norm("rms_norm.4x256x1024", "rms_norm", lambda: RMSNorm(1024), (4, 256, 1024))
_norm(
    "normalize.l2-4096x512",
    "normalize",
    lambda: Apply(lambda x: F.normalize(x, dim=-1)),
    (4096, 512),
)


def _qkv(batch, heads, length, width, kv_heads=None, kv_length=None):
    kv = (batch, kv_heads or heads, kv_length or length, width)
    return [_Normal(batch, heads, length, width), _Normal(*kv), _Normal(*kv)]


def _sdpa(causal):
    return lambda: Apply(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal))


# attention: PyTorch's fused scaled dot-product attention at BERT's, ViT's,
# GPT-2's and LLaMA's shapes, causal and not, and cross-attention; the same
# written out; LLaMA-2's grouped-query attention; whole multi-head attention
# layers with their projections.
_add(
    "sdpa.bert-12x128x64",
    "attention",
    "scaled_dot_product_attention",
    _sdpa(False),
    _qkv(1, 12, 128, 64),
    [(1, 12, 128, 64)],
)
_add(
    "sdpa.vit-2x12x197x64",
    "attention",
    "scaled_dot_product_attention",
    _sdpa(False),
    _qkv(2, 12, 197, 64),
    [(2, 12, 197, 64)],
)
_add(
    "sdpa.gpt2-causal-12x512x64",
    "attention",
    "scaled_dot_product_attention",
    _sdpa(True),
    _qkv(1, 12, 512, 64),
    [(1, 12, 512, 64)],
)
_add(
    "sdpa.llama-causal-32x256x128",
    "attention",
    "scaled_dot_product_attention",
    _sdpa(True),
    _qkv(1, 32, 256, 128),
    [(1, 32, 256, 128)],
)
_add(
    "sdpa.cross-8x128x512x64",
    "attention",
    "scaled_dot_product_attention",
    _sdpa(False),
    _qkv(1, 8, 128, 64, kv_length=512),
    [(1, 8, 128, 64)],
)
_add(
    "attention.bert-12x128x64",
    "attention",
    "attention",
    Attention,
    _qkv(1, 12, 128, 64),
    [(1, 12, 128, 64)],
)
_add(
    "attention.gpt2-causal-12x256x64",
    "attention",
    "attention_causal",
    lambda: Attention(causal_length=256),
    _qkv(1, 12, 256, 64),
    [(1, 12, 256, 64)],
)
_add(
    "gqa.llama-16q4kv-256x64",
    "attention",
    "grouped_query_attention",
    lambda: GroupedQueryAttention(causal_length=256),
    _qkv(1, 16, 256, 64, kv_heads=4),
    [(1, 16, 256, 64)],
)
_add(
    "multi_head_attention.bert-128x768",
    "attention",
    "multi_head_attention",
    lambda: SelfAttention(768, 12),
    [_Normal(1, 128, 768)],
    [(1, 128, 768)],
)
# In eval mode it runs PyTorch's fused kernel, which torch.onnx.export does
# not take: no ONNX form (unsupported for ONNX-only compilers).
_add(
    "nn_multihead_attention.8x256x512",
    "attention",
    "nn.MultiheadAttention",
    lambda: MultiheadAttention(512, 8),
    [_Normal(1, 256, 512)],
    [(1, 256, 512)],
)


def _elementwise(name, op, make, inputs):
    _add(name, "elementwise", op, make, inputs, [inputs[0].shape])


# elementwise: activations at BERT's, GPT-2's and LLaMA's feed-forward widths
# and on ResNet/MobileNet feature maps, broadcast arithmetic, clamp, pow.
_BERT_FFN = (8, 128, 3072)
_elementwise("tanh.bert-8x128x3072", "tanh", lambda: torch.nn.Tanh(), [_Normal(*_BERT_FFN)])
_elementwise("exp.bert-8x128x3072", "exp", lambda: Apply(torch.exp), [_Normal(*_BERT_FFN)])
_elementwise(
    "log.bert-8x128x3072",
    "log",
    lambda: Apply(torch.log),
    [_Uniform(*_BERT_FFN, low=0.01, high=10.0)],
)
_elementwise("erf.bert-8x128x3072", "erf", lambda: Apply(torch.erf), [_Normal(*_BERT_FFN)])
_elementwise(
    "rsqrt.bert-8x128x3072",
    "rsqrt",
    lambda: Apply(torch.rsqrt),
    [_Uniform(*_BERT_FFN, low=0.01, high=10.0)],
)
_elementwise(
    "sigmoid.se-8x256x28x28", "sigmoid", lambda: torch.nn.Sigmoid(), [_Normal(8, 256, 28, 28)]
)
_elementwise("gelu.bert-8x128x3072", "gelu", lambda: torch.nn.GELU(), [_Normal(*_BERT_FFN)])
_elementwise(
    "gelu_tanh.gpt2-4x256x3072",
    "gelu_tanh",
    lambda: torch.nn.GELU(approximate="tanh"),
    [_Normal(4, 256, 3072)],
)
_elementwise("silu.llama-4x256x2816", "silu", lambda: torch.nn.SiLU(), [_Normal(4, 256, 2816)])
_elementwise(
    "relu.resnet-8x64x112x112", "relu", lambda: torch.nn.ReLU(), [_Normal(8, 64, 112, 112)]
)
_elementwise(
    "leaky_relu.yolo-4x64x104x104",
    "leaky_relu",
    lambda: torch.nn.LeakyReLU(0.1),
    [_Normal(4, 64, 104, 104)],
)
_elementwise(
    "hardswish.mobilenetv3-8x240x28x28",
    "hardswish",
    lambda: torch.nn.Hardswish(),
    [_Normal(8, 240, 28, 28)],
)
_elementwise(
    "clamp.relu6-8x144x56x56",
    "clamp",
    lambda: Apply(lambda x: torch.clamp(x, 0.0, 6.0)),
    [_Normal(8, 144, 56, 56, scale=4.0)],
)
_elementwise(
    "add.residual-8x256x56x56",
    "add",
    lambda: Apply(torch.add),
    [_Normal(8, 256, 56, 56), _Normal(8, 256, 56, 56)],
)
_elementwise(
    "add.bias-broadcast-8x128x3072",
    "add",
    lambda: Apply(torch.add),
    [_Normal(*_BERT_FFN), _Normal(3072)],
)
_elementwise(
    "mul.channel-broadcast-8x256x28x28",
    "mul",
    lambda: Apply(torch.mul),
    [_Normal(8, 256, 28, 28), _Normal(8, 256, 1, 1)],
)
_elementwise(
    "div.row-broadcast-4096x1024",
    "div",
    lambda: Apply(torch.div),
    [_Normal(4096, 1024), _Uniform(4096, 1, low=0.5, high=2.0)],
)
_elementwise(
    "pow.square-8x128x3072", "pow", lambda: Apply(lambda x: torch.pow(x, 2)), [_Normal(*_BERT_FFN)]
)
_elementwise(
    "pow.tensor-8x128x3072",
    "pow",
    lambda: Apply(torch.pow),
    [_Uniform(*_BERT_FFN, low=0.5, high=2.0), _Normal(*_BERT_FFN)],
)

# fused: the chains networks are made of. Convolution, batch norm and ReLU
# (ResNet) or ReLU6 (MobileNet's depthwise), ResNet's stem with its max
# pooling, a residual end and a whole basic block, MobileNetV2's inverted
# residual; BERT's linear+GELU, output sublayer, residual layer norm and MLP;
# GPT-2's pre-norm QKV projection; attention scores through softmax;
# LLaMA's SwiGLU and rotary embedding.
_add(
    "conv_bn_relu.resnet-3x3-64x56x56",
    "fused",
    "conv_bn_relu",
    lambda: ConvBnAct(64, 64, 3, padding=1),
    [_Normal(1, 64, 56, 56)],
    [(1, 64, 56, 56)],
)
_add(
    "conv_bn_relu6.mobilenet-dw-3x3-144x56x56",
    "fused",
    "conv_bn_relu6",
    lambda: ConvBnAct(144, 144, 3, padding=1, groups=144, relu6=True),
    [_Normal(1, 144, 56, 56)],
    [(1, 144, 56, 56)],
)
_add(
    "resnet_stem.7x7s2-3x224x224",
    "fused",
    "conv_bn_relu_maxpool",
    lambda: torch.nn.Sequential(ConvBnAct(3, 64, 7, 2, 3), torch.nn.MaxPool2d(3, 2, 1)),
    [_Normal(1, 3, 224, 224)],
    [(1, 64, 56, 56)],
)
_add(
    "conv_add_relu.resnet-3x3-64x56x56",
    "fused",
    "conv_bn_add_relu",
    lambda: ConvAddRelu(64),
    [_Normal(1, 64, 56, 56)],
    [(1, 64, 56, 56)],
)
_add(
    "basic_block.resnet-64x56x56",
    "fused",
    "basic_block",
    lambda: BasicBlock(64, 64),
    [_Normal(1, 64, 56, 56)],
    [(1, 64, 56, 56)],
)
_add(
    "inverted_residual.mobilenetv2-24x56x56",
    "fused",
    "inverted_residual",
    lambda: InvertedResidual(24, 24, 1),
    [_Normal(1, 24, 56, 56)],
    [(1, 24, 56, 56)],
)
_add(
    "linear_gelu.bert-128x768x3072",
    "fused",
    "linear_gelu",
    lambda: torch.nn.Sequential(torch.nn.Linear(768, 3072), torch.nn.GELU()),
    [_Normal(1, 128, 768)],
    [(1, 128, 3072)],
)
_add(
    "linear_add_layer_norm.bert-128x3072x768",
    "fused",
    "linear_add_layer_norm",
    lambda: LinearAddNorm(3072, 768),
    [_Normal(1, 128, 3072), _Normal(1, 128, 768)],
    [(1, 128, 768)],
)
_add(
    "add_layer_norm.bert-8x128x768",
    "fused",
    "add_layer_norm",
    lambda: AddNorm(768),
    [_Normal(8, 128, 768), _Normal(8, 128, 768)],
    [(8, 128, 768)],
    REDUCTION,
)
_add(
    "mlp.bert-128x768x3072",
    "fused",
    "mlp",
    lambda: torch.nn.Sequential(
        torch.nn.Linear(768, 3072), torch.nn.GELU(), torch.nn.Linear(3072, 768)
    ),
    [_Normal(1, 128, 768)],
    [(1, 128, 768)],
)
_add(
    "layer_norm_linear.gpt2-256x768x2304",
    "fused",
    "layer_norm_linear",
    lambda: torch.nn.Sequential(torch.nn.LayerNorm(768), torch.nn.Linear(768, 2304)),
    [_Normal(1, 256, 768)],
    [(1, 256, 2304)],
)
_add(
    "matmul_softmax.bert-12x256x64",
    "fused",
    "matmul_softmax",
    lambda: Apply(lambda q, k: torch.softmax(q @ k.transpose(-2, -1) * 0.125, dim=-1)),
    [_Normal(1, 12, 256, 64), _Normal(1, 12, 256, 64)],
    [(1, 12, 256, 256)],
    PROBABILITIES,
)
_add(
    "swiglu.llama-128x768x2048",
    "fused",
    "swiglu",
    lambda: SwiGLU(768, 2048),
    [_Normal(1, 128, 768)],
    [(1, 128, 768)],
)
_add(
    "rotary_embedding.llama-32x256x128",
    "fused",
    "rotary_embedding",
    lambda: RotaryEmbedding(256, 128),
    [_Normal(1, 32, 256, 128)],
    [(1, 32, 256, 128)],
    ELEMENTWISE,
)


def output_shapes(name: str) -> List[Tuple[int, ...]]:
    """The shapes of case `name`'s outputs, as the problem declares them."""
    return [tuple(shape) for shape in _problem(name).outputs]


def _problem(name: str) -> _Problem:
    if name not in _PROBLEMS:
        raise ValueError(f"the operators corpus has no case {name!r}")
    return _PROBLEMS[name]


class Operators(Corpus):
    description = (
        "single operators and fused chains at the sizes real models run them "
        "(matmul, conv, conv_transpose, pool, reduction, norm, attention, "
        "elementwise, fused), each taking 0.2-20 ms in eager PyTorch on one "
        "core, against eager PyTorch"
    )

    def cases(self) -> List[CaseInfo]:
        return [
            CaseInfo(name, family=problem.family, op=problem.op)
            for name, problem in _PROBLEMS.items()
        ]

    def load(self, name: str) -> Case:
        problem = _problem(name)
        if torch is None:
            raise InvalidCase("the operators corpus needs torch (pip install 'lighthouse[torch]')")
        rng = np.random.default_rng(SEED)
        inputs = [spec.draw(rng) for spec in problem.inputs]
        rtol, atol = problem.tolerance
        return Case(
            name,
            inputs,
            torch=_initialized(problem.make()),
            rtol=rtol,
            atol=atol,
            family=problem.family,
            op=problem.op,
        )
