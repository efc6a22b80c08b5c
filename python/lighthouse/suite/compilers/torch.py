"""PyTorch as a compiler: eager execution (the reference of torch corpora) and
inductor (`torch.compile`)."""

from typing import List, Optional

from ..case import Case, Unsupported, to_torch
from ..plugins import Compiler


class _Torch(Compiler):
    takes = ("torch",)

    def setup(self, threads: int) -> None:
        try:
            import torch
        except ImportError:
            raise Unsupported("torch is not installed (pip install 'lighthouse[torch]')") from None
        torch.set_num_threads(threads)

    def _function(self, case: Case):
        raise NotImplementedError

    def compile(self, case: Case, form: str):
        import torch

        function = self._function(case)

        def run(inputs):
            with torch.no_grad():
                return function(*to_torch(inputs))

        return run


class Eager(_Torch):
    """The module called as it is, in inference mode."""

    def _function(self, case: Case):
        return case.form("torch")


def compiled_by_dynamo(case: Case, **options):
    """`torch.compile(case.form("torch"), **options)`, compiled by a first call
    on copies of the case's inputs, so that a compiler's `compile` counts its
    compile time; from a fresh Dynamo, as the cases of a corpus share forward
    methods (a wrapper's), whose compiled graphs Dynamo would otherwise keep
    and guard, 8 at most, across cases (the 9th transformers model of a
    worker timed out)."""
    import torch

    torch._dynamo.reset()
    function = torch.compile(case.form("torch"), **options)
    with torch.no_grad():
        function(*to_torch([x.copy() if hasattr(x, "copy") else x for x in case.inputs]))
    return function


class Inductor(_Torch):
    """`torch.compile(module)` with inductor's defaults (`inductor`) or at its
    best settings for inference (`inductor:freezing`: the weights folded in as
    constants); compiled (on the first call) within `compile`, so that its
    compile time is counted as such."""

    @classmethod
    def variants(cls) -> List[Optional[str]]:
        return [None, "freezing"]

    def _function(self, case: Case):
        options = {"freezing": True} if self.variant == "freezing" else None
        return compiled_by_dynamo(case, options=options)
