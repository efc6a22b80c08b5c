"""KernelBench's problems (https://github.com/ScalingIntelligence/KernelBench),
read from a checkout the user gives: level 1 single operators, level 2
fusions of a few, level 3 whole networks. A public benchmark of PyTorch
workloads that kernel writers and compilers report against, so results here
compare with theirs; nothing of it is copied into lighthouse.

Each problem is a Python file, `KernelBench/level<n>/<number>_<Name>.py`,
defining `class Model(nn.Module)`, `get_init_inputs()` (the arguments of
`Model`), `get_inputs()` (those of `forward`) and module-level size
constants (`batch_size = 16`) that both read. The file runs in a fresh
module namespace, its size constants are scaled (see `scaled`), and the
model is built and its inputs drawn after seeding torch, as KernelBench's
own evaluation does.

Only named module-level constants are scaled: sizes written as literals in
the code stay (level3/5_AlexNet's 224x224 images), and a constant the file
computes from two scaled ones is scaled once. A problem whose shapes then
disagree, or whose `forward` draws random numbers (level3/35_LSTM's initial
states), is reported invalid.
"""

import os
import re
import types

from ..case import Case, CaseInfo
from ..plugins import Corpus, Option

__all__ = ["KernelBench", "THRESHOLD", "family", "scaled"]

#: Module-level integers above this are sizes and are scaled (in the
#: problems read: batch sizes of 128 to 32768, features of 4096 to 393216,
#: images of 128 and 256); those at or below it are left alone: kernel sizes,
#: strides, paddings, dilations, group, head and layer counts, dims, and
#: the 3 to 64 channels of most convolution problems, which then keep
#: their character.
THRESHOLD = 64

#: KernelBench's own check of a kernel against the reference
#: (`torch.allclose` in its eval) uses these.
RTOL, ATOL = 1e-2, 1e-2

#: (family, pattern) on a problem's lower-case name. The pattern that
#: matches earliest in the name names the family (a fusion is named by its
#: first operation: `Conv2d_GroupNorm_Tanh` is a conv, `Gemm_Sigmoid` a
#: matmul); of two matching at the same place, the one listed first.
_FAMILIES = [
    ("pooling", r"(max_|avg_|average_)?pool"),
    (
        "network",
        r"resnet|vgg|densenet|mobilenet|efficientnet|squeezenet|googlenet|alexnet|"
        r"lenet|unet|regnet|convnext|shufflenet|inception|mamba",
    ),
    ("conv", r"conv"),
    ("matmul", r"matmul|gemm|bmm|matrix|einsum|linear|mlp"),
    ("norm", r"norm"),
    ("loss", r"loss"),
    ("scan", r"cum(sum|prod)"),
    ("reduction", r"(sum|mean|max|min|prod|product)_reduction|argmax|argmin|logsumexp"),
    ("rnn", r"lstm|gru|rnn"),
    ("attention", r"attention|transformer|gptblock|vit|swin"),
    ("activation", r"relu|sigmoid|tanh|softmax|swish|gelu|elu|softplus|softsign|mish|silu"),
]
_PROBLEM = re.compile(r"(\d+)_(.+)\.py")


def family(problem: str) -> str:
    """The family of a problem, guessed from its name without its number
    (`ReLU`: activation); `other` when no pattern matches."""
    name = problem.lower()
    found = [
        (match.start(), index, kind)
        for index, (kind, pattern) in enumerate(_FAMILIES)
        for match in [re.search(pattern, name)]
        if match
    ]
    return min(found)[2] if found else "other"


def scaled(value, scale: float):
    """`value` with every integer above `THRESHOLD` in it (it, or the items
    of a tuple or list) multiplied by `scale`, rounded, and at least 1.

    A size maps to the same size wherever it appears, so shapes that agree
    still agree (`bias_shape = (out_channels, 1, 1)`). A power of two as
    `scale` keeps sizes' factors of two: they stay divisible by the group
    and head counts left as they are (768 at 0.125 is 96, still 12 heads
    of 8 or 8 of 12).
    """
    if isinstance(value, int) and not isinstance(value, bool) and value > THRESHOLD:
        return max(1, round(value * scale))
    if type(value) in (tuple, list):
        return type(value)(scaled(item, scale) for item in value)
    return value


def _bound(model, arguments):
    """`model` with the non-tensor items of `arguments` fixed: the module
    returned takes the tensor items, in their order."""
    import torch

    positions = [i for i, argument in enumerate(arguments) if isinstance(argument, torch.Tensor)]
    constants = [None if i in positions else argument for i, argument in enumerate(arguments)]

    class Bound(torch.nn.Module):
        """A KernelBench model whose non-tensor inputs are constants."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *tensors):
            filled = list(constants)
            for position, tensor in zip(positions, tensors):
                filled[position] = tensor
            return self.model(*filled)

    return Bound().eval()


class KernelBench(Corpus):
    description = (
        "KernelBench's PyTorch problems (operators, fusions, networks) from a "
        "checkout, sizes scaled down, against eager PyTorch"
    )
    options = {
        "path": Option(
            None,
            "a KernelBench checkout (git clone "
            "https://github.com/ScalingIntelligence/KernelBench); required",
        ),
        "levels": Option(
            "1,2", "comma-separated levels (1: operators, 2: fusions, 3: networks; default: 1,2)"
        ),
        # KernelBench sizes problems for data-center GPUs: level1/19_ReLU is
        # 4096 x 393216 floats, 6.4 GB a tensor. At 0.125 it is 512 x 49152
        # (100 MB) and a 4096-square matmul 512-square: seconds or less on a CPU.
        "scale": Option(
            0.125,
            "factor of the problems' size constants above "
            f"{THRESHOLD} (default: 0.125; 1: KernelBench's sizes); "
            "powers of two keep sizes divisible by group and head counts",
            type=float,
        ),
        "seed": Option(
            42,
            "seed of torch before building each model and drawing its "
            "inputs (default: 42, as KernelBench's eval)",
            type=int,
        ),
    }

    def root(self) -> str:
        """The checkout's folder of levels (`<path>/KernelBench`, or `path`
        itself when it is that folder).

        Raises:
          ValueError: no path is given, or it is not a KernelBench checkout.
        """
        path = self.options["path"]
        if not path:
            raise ValueError(
                "the kernelbench corpus needs --kernelbench-path, a checkout of "
                "https://github.com/ScalingIntelligence/KernelBench"
            )
        path = os.path.expanduser(str(path))
        if not os.path.isdir(path):
            raise ValueError(f"--kernelbench-path {path}: no such folder")
        for root in (os.path.join(path, "KernelBench"), path):
            if os.path.isdir(os.path.join(root, "level1")):
                return root
        raise ValueError(
            f"--kernelbench-path {path} is not a KernelBench checkout: it has no "
            "KernelBench/level1 folder"
        )

    def _levels(self):
        text = str(self.options["levels"])
        try:
            levels = [int(level) for level in text.split(",") if level.strip()]
        except ValueError:
            raise ValueError(
                f"--kernelbench-levels {text!r}: expected numbers such as 1,2"
            ) from None
        root = self.root()
        for level in levels:
            if not os.path.isdir(os.path.join(root, f"level{level}")):
                raise ValueError(f"{root} has no level{level} folder")
        return root, levels

    def prepare(self, log) -> None:
        if not self.options["scale"] > 0:
            raise ValueError(
                f"--kernelbench-scale {self.options['scale']}: expected a positive factor"
            )
        root, levels = self._levels()
        log(
            f"kernelbench: {len(self.cases())} problems of level "
            f"{', '.join(map(str, levels))} in {root}, sizes above {THRESHOLD} "
            f"scaled by {self.options['scale']}"
        )

    def cases(self):
        root, levels = self._levels()
        listed = []
        for level in levels:
            problems = []
            for file in os.listdir(os.path.join(root, f"level{level}")):
                match = _PROBLEM.fullmatch(file)
                if match:
                    problems.append((int(match.group(1)), match.group(2)))
            for number, problem in sorted(problems):
                listed.append(
                    CaseInfo(
                        f"level{level}/{number}_{problem}",
                        level=str(level),
                        family=family(problem),
                        op=problem,
                    )
                )
        return listed

    def load(self, name: str) -> Case:
        import torch

        folder, _, stem = name.partition("/")
        path = os.path.join(self.root(), folder, f"{stem}.py")
        match = _PROBLEM.fullmatch(f"{stem}.py")
        if not folder.startswith("level") or not match or not os.path.isfile(path):
            raise ValueError(f"the kernelbench corpus has no problem {name!r}")
        with open(path) as f:
            source = f.read()
        problem = types.ModuleType(f"kernelbench_{folder}_{stem}")
        problem.__file__ = path
        exec(compile(source, path, "exec"), vars(problem))
        for key, value in list(vars(problem).items()):
            if not key.startswith("_"):
                setattr(problem, key, scaled(value, self.options["scale"]))

        seed = self.options["seed"]
        torch.manual_seed(seed)
        init_inputs = problem.get_init_inputs()
        torch.manual_seed(seed)
        model = problem.Model(*init_inputs).float().eval()
        torch.manual_seed(seed)
        arguments = [
            argument.detach().float()
            if isinstance(argument, torch.Tensor) and argument.is_floating_point()
            else argument
            for argument in problem.get_inputs()
        ]
        tensors = [argument for argument in arguments if isinstance(argument, torch.Tensor)]
        if len(tensors) < len(arguments):
            model = _bound(model, arguments)
        problem_name = match.group(2)
        return Case(
            name,
            [tensor.detach().contiguous().numpy() for tensor in tensors],
            torch=model,
            rtol=RTOL,
            atol=ATOL,
            level=folder[len("level") :],
            family=family(problem_name),
            op=problem_name,
        )
