"""Whole models written by this project, at the sizes users run them: a
ResNet-18 at 224x224, BERT-base-wide encoder layers, a large MLP, 3-D and
transposed convolutions, MobileNet-style blocks, LSTM and GRU stacks and a
normalization-heavy block. Operator tests cover operators one at a time;
these show what a compiler does with a network's worth of them (fusion across
layers, large weights, compile time that grows with depth).

Weights and inputs are deterministic, models are float32 in eval mode, and
the reference is eager PyTorch. lighthouse's small test models (MLP,
SmallCNN, TransformerBlock, BasicBlock, SmallResNet) live here too, so that
this corpus runs them and test/models.py imports them from here.
"""

import math

import numpy as np

from ..case import Case, CaseInfo, InvalidCase
from ..plugins import Corpus

try:
    import torch
except ImportError:  # Listing the cases needs no torch; building them does.
    torch = None

__all__ = [
    "BasicBlock",
    "Conv3dBlock",
    "DeconvDecoder",
    "EncoderLayer",
    "InvertedResidual",
    "MLP",
    "MobileBlocks",
    "Models",
    "NormSoftmaxBlock",
    "Recurrent",
    "ResNet18",
    "SelfAttention",
    "SmallCNN",
    "SmallResNet",
    "TransformerBlock",
    "calibrated",
    "initialized",
    "seeded",
]

# The classes below are defined without torch too (on `object`), so that this
# module imports, and lists its cases, where torch is not installed.
_Module = object if torch is None else torch.nn.Module

#: Deep float32 models against eager float32. Eager float32 is within 3e-6
#: of float64 on every model here (bert_encoder's 2.8e-6 is the widest), on
#: outputs of order 1 (normalizations keep them there); a compiler's
#: summation orders and its exp, erf and tanh may stray farther from eager's
#: over some twenty layers than float64 does: 1e-3 leaves them 300 times that.
RTOL, ATOL = 1e-3, 1e-3


def seeded(module, seed=0):
    """Re-initializes `module`'s parameters deterministically, in eval mode."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.2)
        for name, buffer in module.named_buffers():
            if name.endswith("running_var"):
                buffer.copy_(torch.rand(buffer.shape, generator=generator) + 0.5)
            elif name.endswith("running_mean"):
                buffer.copy_(torch.randn(buffer.shape, generator=generator) * 0.1)
    return module.eval()


def initialized(module, seed=0):
    """Re-initializes `module`'s parameters deterministically for a deep model,
    in eval mode: weights normal with variance 1/fan-in, so that activations
    keep their scale from layer to layer (`seeded`'s standard deviation of 0.2
    would multiply it by 0.2 * sqrt(4608) = 14 per layer at ResNet-18's
    widest fan-in, 512 * 3 * 3); normalization scales near 1; biases and
    shifts near 0. The fan-in is taken as a weight's elements per first
    index, which for a transposed convolution (laid out input-first) is its
    fan-out: the decoder's outputs come out smaller, still of order 0.1-1.
    """
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            if parameter.dim() > 1:
                parameter.copy_(noise / math.sqrt(parameter[0].numel()))
            elif name.endswith("weight"):  # A one-dimensional weight scales a normalization.
                parameter.copy_(1 + 0.1 * noise)
            else:
                parameter.copy_(0.1 * noise)
    return module.eval()


def calibrated(module, batch):
    """`module` with its batch norms' running statistics measured on `batch`,
    as training leaves them: each then normalizes its input to about zero
    mean and unit variance, where made-up statistics would let activations
    drift over twenty layers."""
    norms = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return module.eval()
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # A cumulative average: after one batch, that batch's statistics.
    with torch.no_grad():
        module.train()(*batch)
    for norm in norms:
        norm.momentum = 0.1
    return module.eval()


class MLP(_Module):
    """Two linear layers with a ReLU."""

    def __init__(self, features=16, hidden=32, classes=4):
        super().__init__()
        self.hidden = torch.nn.Linear(features, hidden)
        self.out = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


class SmallCNN(_Module):
    """Convolutions with batch norm, a residual add, max and average pooling."""

    def __init__(self, channels=8, classes=10):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, channels, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(channels)
        self.pool = torch.nn.MaxPool2d(2)
        self.head = torch.nn.Linear(channels * 4 * 4, classes)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(y)) + y)
        y = torch.nn.functional.adaptive_avg_pool2d(self.pool(y), 4)
        return self.head(torch.flatten(y, 1))


class TransformerBlock(_Module):
    """Pre-norm self-attention and a GELU MLP, with residual adds."""

    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(dim)
        self.attention = torch.nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim)
        )

    def forward(self, x):
        y = self.norm1(x)
        attended, _ = self.attention(y, y, y, need_weights=False)
        x = x + attended
        return x + self.mlp(self.norm2(x))


class BasicBlock(_Module):
    """A ResNet basic block: two 3x3 convolutions with batch norm, and a
    1x1 strided projection of the input when the shape changes."""

    def __init__(self, inputs, outputs, stride=1):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(outputs)
        self.conv2 = torch.nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(outputs)
        self.shortcut = torch.nn.Identity()
        if stride != 1 or inputs != outputs:
            self.shortcut = torch.nn.Sequential(
                torch.nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                torch.nn.BatchNorm2d(outputs),
            )

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class SmallResNet(_Module):
    """A ResNet-18 layout at a small width: stem, max pooling, a block at
    each of two widths, global average pooling and a classifier."""

    def __init__(self, width=16, classes=10):
        super().__init__()
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, width, 3, 1, 1, bias=False),
            torch.nn.BatchNorm2d(width),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(3, 2, 1),
        )
        self.blocks = torch.nn.Sequential(
            BasicBlock(width, width), BasicBlock(width, 2 * width, stride=2)
        )
        self.head = torch.nn.Linear(2 * width, classes)

    def forward(self, x):
        y = self.blocks(self.stem(x))
        return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(y, 1), 1))


class ResNet18(_Module):
    """ResNet-18: a 7x7/2 convolution and a 3x3/2 max pooling, two basic
    blocks at each of 64, 128, 256 and 512 channels (the first of each
    widening stage strided by 2, with a 1x1 projection), global average
    pooling and a linear classifier."""

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, 64, 7, 2, 3, bias=False),
            torch.nn.BatchNorm2d(64),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(3, 2, 1),
        )
        blocks, inputs = [], 64
        for width in (64, 128, 256, 512):
            blocks += [
                BasicBlock(inputs, width, stride=1 if width == inputs else 2),
                BasicBlock(width, width),
            ]
            inputs = width
        self.blocks = torch.nn.Sequential(*blocks)
        self.head = torch.nn.Linear(512, classes)

    def forward(self, x):
        y = self.blocks(self.stem(x))
        return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(y, 1), 1))


class SelfAttention(_Module):
    """Multi-head self-attention written out (projections, scaled dot-product
    scores, softmax, weighted sum, output projection), so that an exporter
    sees every operation rather than a fused kernel."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.query = torch.nn.Linear(dim, dim)
        self.key = torch.nn.Linear(dim, dim)
        self.value = torch.nn.Linear(dim, dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        width = dim // self.heads

        def split(y):  # (batch, heads, length, width)
            return y.reshape(batch, length, self.heads, width).transpose(1, 2)

        query, key, value = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(width), dim=-1)
        attended = (scores @ value).transpose(1, 2).reshape(batch, length, dim)
        return self.out(attended)


class EncoderLayer(_Module):
    """A BERT encoder layer: self-attention and a GELU feed-forward network,
    each added to its input and then layer-normalized (post-norm)."""

    def __init__(self, dim, heads, feed_forward):
        super().__init__()
        self.attention = SelfAttention(dim, heads)
        self.norm1 = torch.nn.LayerNorm(dim)
        self.feed_forward = torch.nn.Sequential(
            torch.nn.Linear(dim, feed_forward), torch.nn.GELU(), torch.nn.Linear(feed_forward, dim)
        )
        self.norm2 = torch.nn.LayerNorm(dim)

    def forward(self, x):
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.feed_forward(x))


class Conv3dBlock(_Module):
    """A video clip's first layers: a 3x3x3 convolution from 3 to 32 channels
    at full resolution and one from 32 to 64 strided by 2, each with batch
    norm and ReLU, then global average pooling."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv3d(3, 32, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm3d(32)
        self.conv2 = torch.nn.Conv3d(32, 64, 3, stride=2, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm3d(64)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(y)))
        return torch.flatten(torch.nn.functional.adaptive_avg_pool3d(y, 1), 1)


class DeconvDecoder(_Module):
    """An image decoder: three 4x4 transposed convolutions of stride 2, with
    ReLUs between, from 256 channels at 8x8 to 32 channels at 64x64."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.ConvTranspose2d(256, 128, 4, 2, 1),
            torch.nn.ReLU(),
            torch.nn.ConvTranspose2d(128, 64, 4, 2, 1),
            torch.nn.ReLU(),
            torch.nn.ConvTranspose2d(64, 32, 4, 2, 1),
        )

    def forward(self, x):
        return self.layers(x)


class InvertedResidual(_Module):
    """MobileNetV2's block: a 1x1 expansion by 6, a 3x3 depthwise convolution,
    a 1x1 linear projection, batch norms and ReLU6s, and a residual add when
    the shape is kept."""

    def __init__(self, inputs, outputs, stride):
        super().__init__()
        hidden = 6 * inputs
        self.layers = torch.nn.Sequential(
            torch.nn.Conv2d(inputs, hidden, 1, bias=False),
            torch.nn.BatchNorm2d(hidden),
            torch.nn.ReLU6(),
            torch.nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            torch.nn.BatchNorm2d(hidden),
            torch.nn.ReLU6(),
            torch.nn.Conv2d(hidden, outputs, 1, bias=False),
            torch.nn.BatchNorm2d(outputs),
        )
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x):
        y = self.layers(x)
        return x + y if self.residual else y


class MobileBlocks(_Module):
    """A MobileNetV2-style network on a 112x112 image: a 3x3/2 stem to 32
    channels at 56x56, an inverted residual block there and one strided to
    64 channels at 28x28, a grouped 3x3 convolution (8 groups, as ResNeXt
    uses), global average pooling and a 1000-class classifier."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3, 2, 1, bias=False), torch.nn.BatchNorm2d(32), torch.nn.ReLU6()
        )
        self.blocks = torch.nn.Sequential(InvertedResidual(32, 32, 1), InvertedResidual(32, 64, 2))
        self.grouped = torch.nn.Sequential(
            torch.nn.Conv2d(64, 128, 3, 1, 1, groups=8, bias=False),
            torch.nn.BatchNorm2d(128),
            torch.nn.ReLU(),
        )
        self.head = torch.nn.Linear(128, 1000)

    def forward(self, x):
        y = self.grouped(self.blocks(self.stem(x)))
        return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(y, 1), 1))


class Recurrent(_Module):
    """A stacked `torch.nn.LSTM` or `torch.nn.GRU` (`kind`) over a batch-first
    sequence, from zero initial states; returns the last layer's output at
    every step."""

    def __init__(self, kind, inputs=128, hidden=256, layers=2):
        super().__init__()
        self.rnn = getattr(torch.nn, kind)(inputs, hidden, layers, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


class NormSoftmaxBlock(_Module):
    """Normalizations and a large softmax with little arithmetic between:
    LayerNorm, single-head attention whose scores softmax over 512x512, an
    RMS norm written out, and GroupNorm over the features as channels."""

    def __init__(self, dim=256, groups=8):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.query = torch.nn.Linear(dim, dim)
        self.key = torch.nn.Linear(dim, dim)
        self.value = torch.nn.Linear(dim, dim)
        self.rms_weight = torch.nn.Parameter(torch.ones(dim))
        self.group_norm = torch.nn.GroupNorm(groups, dim)

    def forward(self, x):
        y = self.norm(x)
        scores = self.query(y) @ self.key(y).transpose(-2, -1) / math.sqrt(x.shape[-1])
        x = x + torch.softmax(scores, dim=-1) @ self.value(y)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.rms_weight
        return self.group_norm(x.transpose(1, 2)).transpose(1, 2)


def _mlp(widths):
    """Linear layers from each width to the next, with ReLUs between."""
    layers = []
    for inputs, outputs in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(inputs, outputs), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def _encoder(layers, dim, heads, feed_forward):
    return torch.nn.Sequential(*(EncoderLayer(dim, heads, feed_forward) for _ in range(layers)))


#: name: (family, a function making the module, its input shapes). The
#: module is initialized by `initialized` and its batch norms calibrated.
_MODELS = {
    "resnet18": ("conv", ResNet18, [(1, 3, 224, 224)]),
    # BERT-base's width (768, 12 heads of 64, feed-forward 3072) at 4 of its
    # 12 layers: the layers are alike, 4 show the same fusion at a third of the cost.
    "bert_encoder": ("transformer", lambda: _encoder(4, 768, 12, 3072), [(1, 128, 768)]),
    # Heads 64 wide, as BERT's: 4 at d 256.
    "encoder_layers_256": ("transformer", lambda: _encoder(4, 256, 4, 1024), [(1, 128, 256)]),
    "mlp_b1": ("mlp", lambda: _mlp((1024, 4096, 4096, 1000)), [(1, 1024)]),
    "mlp_b32": ("mlp", lambda: _mlp((1024, 4096, 4096, 1000)), [(32, 1024)]),
    "conv3d_block": ("conv", Conv3dBlock, [(1, 3, 16, 64, 64)]),
    "deconv_decoder": ("conv", DeconvDecoder, [(1, 256, 8, 8)]),
    "mobile_blocks": ("conv", MobileBlocks, [(1, 3, 112, 112)]),
    "lstm": ("rnn", lambda: Recurrent("LSTM"), [(1, 64, 128)]),
    "gru": ("rnn", lambda: Recurrent("GRU"), [(1, 64, 128)]),
    "norm_softmax_block": ("norm", NormSoftmaxBlock, [(1, 512, 256)]),
}

#: lighthouse's test models at the sizes its tests use, initialized by
#: `seeded` as they are there.
_TEST_MODELS = {
    "small_mlp": ("mlp", MLP, [(2, 16)]),
    "small_cnn": ("conv", SmallCNN, [(1, 3, 16, 16)]),
    "small_transformer_block": ("transformer", TransformerBlock, [(2, 8, 32)]),
    "small_resnet": ("conv", SmallResNet, [(2, 3, 32, 32)]),
}


def _normal(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]


class Models(Corpus):
    description = (
        "whole models at the sizes users run them (ResNet-18 at 224x224, "
        "BERT-base-wide encoder layers, MLP, 3-D and transposed convolutions, "
        "MobileNet blocks, LSTM, GRU) and lighthouse's test models, against "
        "eager PyTorch"
    )

    def cases(self):
        return [
            CaseInfo(name, family=family, op=name)
            for name, (family, _, _) in {**_MODELS, **_TEST_MODELS}.items()
        ]

    def load(self, name: str) -> Case:
        if torch is None:
            raise InvalidCase("the models corpus needs torch (pip install 'lighthouse[torch]')")
        if name in _MODELS:
            family, make, shapes = _MODELS[name]
            # Statistics from one batch, inputs from another: eval-mode batch
            # norm then normalizes as in a trained network, not exactly.
            module = calibrated(
                initialized(make()), [torch.from_numpy(x) for x in _normal(shapes, seed=1)]
            )
        elif name in _TEST_MODELS:
            family, make, shapes = _TEST_MODELS[name]
            module = seeded(make())
        else:
            raise ValueError(f"the models corpus has no case {name!r}")
        return Case(
            name,
            _normal(shapes, seed=0),
            torch=module,
            rtol=RTOL,
            atol=ATOL,
            family=family,
            op=name,
        )
