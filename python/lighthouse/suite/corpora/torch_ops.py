"""PyTorch's OpInfo database: every operator's CPU sample inputs, each sample
wrapped in a small module whose arguments are the sample's tensors (its
other arguments are constants of the module), compared with eager PyTorch.

The samples are regenerated in each worker from the same seed, so a case is
named by its operator, dtype and sample index: `nn.functional.conv2d.float32.3`.
OpInfo lives in `torch.testing._internal`, which needs `expecttest`.
"""

import functools
import warnings
from typing import List

from ..case import Case, CaseInfo, InvalidCase, Unsupported
from ..plugins import Corpus, Option

__all__ = ["TorchOps"]

#: Against eager float32, compiled code may sum in another order and use
#: other approximations of transcendental functions: 1e-3 relative leaves
#: room for reductions over thousands of elements; 1e-4 absolute for
#: results that cancel to near zero.
RTOL, ATOL = 1e-3, 1e-4

#: Ops whose output is memory they allocate and never write: eager's values
#: are whatever the allocator handed out, so there is nothing to compare
#: with (`empty.float32.0` passed and mismatched from run to run).
UNINITIALIZED = frozenset(
    {"empty", "empty_like", "empty_permuted", "empty_strided", "new_empty", "new_empty_strided"}
)


def _op_db():
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except ImportError as error:
        raise Unsupported(
            f"PyTorch's OpInfo database does not import ({error}); it needs "
            "torch and expecttest (pip install 'lighthouse[suite]')"
        ) from None
    return op_db


def _full_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


@functools.lru_cache(maxsize=None)
def _ops_by_name() -> dict:
    return {_full_name(op): op for op in _op_db()}


@functools.lru_cache(maxsize=256)
def _samples(full_name: str, dtype_name: str, seed: int) -> list:
    import torch

    op = _ops_by_name()[full_name]
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        # Making some samples warns of deprecated or beta features they use.
        warnings.simplefilter("ignore")
        return list(op.sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False))


def _family(full_name: str) -> str:
    """`nn.functional`, `linalg`, `special`, `fft`, ... or `torch` for top-level ops."""
    parts = full_name.split(".")
    if parts[0] == "nn" and len(parts) > 2:
        return "nn.functional"
    return (
        parts[0]
        if parts[0] in ("linalg", "special", "fft", "masked", "signal", "sparse", "_refs")
        else "torch"
    )


def _mapped(value, leaf):
    """`value` (nested lists, tuples, named tuples and dicts) with `leaf`
    applied to everything else in it."""
    if isinstance(value, (list, tuple)):
        items = [_mapped(v, leaf) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: _mapped(v, leaf) for k, v in value.items()}
    return leaf(value)


class _Template:
    """A sample's (input, args, kwargs) with its tensors taken out: they become
    the module's arguments, everything else stays a constant."""

    def __init__(self, sample):
        import torch

        self.tensors: List = []

        def take(value):
            if not isinstance(value, torch.Tensor):
                return value
            self.tensors.append(value)
            return _Slot(len(self.tensors) - 1)

        self.structure = _mapped((sample.input, tuple(sample.args), dict(sample.kwargs)), take)

    def fill(self, tensors):
        return _mapped(
            self.structure,
            lambda value: tensors[value.index] if isinstance(value, _Slot) else value,
        )


class _Slot:
    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _module(op, template: _Template):
    import torch

    class OpSample(torch.nn.Module):
        """One OpInfo sample: the operator applied to the tensors it is given."""

        def forward(self, *tensors):
            sample_input, args, kwargs = template.fill(tensors)
            return op.op(sample_input, *args, **kwargs)

    return OpSample().eval()


class TorchOps(Corpus):
    description = (
        "PyTorch's OpInfo samples (torch.testing), each sample a small module, "
        "against eager PyTorch"
    )
    options = {
        "dtypes": Option(
            "float32",
            "comma-separated dtypes of the samples (each op takes those it declares for the CPU)",
        ),
        "samples": Option("3", "samples per op and dtype, or 'all'"),
        "seed": Option(0, "seed of the sample inputs", type=int),
    }

    def _limit(self):
        value = str(self.options["samples"])
        return None if value == "all" else int(value)

    def cases(self):
        import torch

        limit = self._limit()
        listed = []
        for full_name, op in _ops_by_name().items():
            for dtype_name in str(self.options["dtypes"]).split(","):
                dtype = getattr(torch, dtype_name)
                if dtype not in op.supported_dtypes("cpu"):
                    continue
                try:
                    count = len(_samples(full_name, dtype_name, self.options["seed"]))
                except Exception:
                    count = 1  # Listed, so that loading reports why it fails.
                for index in range(count if limit is None else min(count, limit)):
                    listed.append(
                        CaseInfo(
                            f"{full_name}.{dtype_name}.{index}",
                            op=full_name,
                            dtype=dtype_name,
                            family=_family(full_name),
                        )
                    )
        return listed

    def load(self, name: str) -> Case:
        full_name, dtype_name, index = name.rsplit(".", 2)
        if full_name in UNINITIALIZED:
            raise InvalidCase("the op's output is uninitialized memory: no reference to compare")
        try:
            sample = _samples(full_name, dtype_name, self.options["seed"])[int(index)]
        except Exception as error:
            raise InvalidCase(
                f"OpInfo could not make the sample: {type(error).__name__}: {error}"
            ) from None
        template = _Template(sample)
        inputs = []
        for tensor in template.tensors:
            tensor = tensor.detach().resolve_conj().resolve_neg()
            if tensor.layout != __import__("torch").strided:
                raise InvalidCase(f"the sample has a {tensor.layout} tensor")
            inputs.append(tensor.contiguous().numpy())
        module = _module(_ops_by_name()[full_name], template)
        return Case(
            name,
            inputs,
            torch=module,
            rtol=RTOL,
            atol=ATOL,
            op=full_name,
            dtype=dtype_name,
            family=_family(full_name),
        )
