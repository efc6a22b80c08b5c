"""Models compiled at their call, for the values of some of their inputs.

An ONNX model whose Reduce, Slice, Pad, Resize or CumSum takes its axes,
bounds or scales from a graph input cannot be lowered without their values
(`lighthouse.ingress.onnx.specialize`). `compile_onnx` then returns a
`SpecializedModule`: each call compiles the model with those inputs bound to
the values it is given, or reuses the code compiled for them before.
"""

import collections
import sys
import threading
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .compiled import CompiledModule

__all__ = ["SpecializedModule"]

_Declared = Tuple[str, Optional[np.dtype], Optional[Tuple[Optional[int], ...]]]


class SpecializedModule:
    """A model compiled for each set of values of its `specialized_inputs`.

    Call it like the model: with every graph input, in order. A failure to
    compile for some values (the lowering's `LoweringError`, say) is raised
    by the call, and by every later call with those values.

    Attributes:
      specialized_inputs: the names of the inputs compiled for by value.
      reason: why the model could not be compiled without their values.
      timings: seconds spent in each compilation stage, added up over the
        specializations compiled so far (as `CompiledModule.timings`).
      peak_rss: the process's peak resident memory at the end of each
        compilation stage, the highest over the specializations.
      ir: the IR after each stage of the last specialization compiled, when
        compiled with `dump_ir`.
    """

    #: How many specializations are kept. Each holds its compiled code; the
    #: values these inputs take in one program (the axes of one reduction)
    #: are few, and one compiled per call in a loop should not grow without
    #: bound.
    max_specializations = 16

    def __init__(
        self,
        inputs: Sequence[_Declared],
        specialized: Sequence[str],
        compile_for: Callable[[Dict[str, np.ndarray]], CompiledModule],
        reason: str,
    ):
        """`inputs` are (name, dtype, shape) of the model's inputs;
        `compile_for(values)` compiles the model with the inputs named in
        `values` bound to them, and takes the others."""
        self._inputs = list(inputs)
        self._specialized = [
            (index, name, dtype, shape)
            for index, (name, dtype, shape) in enumerate(self._inputs)
            if name in specialized
        ]
        self._positions = {index for index, *_ in self._specialized}
        self._compile_for = compile_for
        self._compiled: "collections.OrderedDict[tuple, object]" = collections.OrderedDict()
        self._lock = threading.Lock()
        self.specialized_inputs = tuple(name for _, name, _, _ in self._specialized)
        self.reason = reason
        self.timings: Dict[str, float] = {}
        self.peak_rss: Dict[str, int] = {}
        self.ir: Dict[str, str] = {}

    @property
    def arguments(self) -> Tuple[Tuple[Optional[np.dtype], Optional[tuple]], ...]:
        """(dtype, shape) of each argument, as the model declares them."""
        return tuple((dtype, shape) for _, dtype, shape in self._inputs)

    def signature(self) -> str:
        def describe(name, dtype, shape):
            dims = "?" if shape is None else "x".join("?" if d is None else str(d) for d in shape)
            bound = " (compiled for its value)" if name in self.specialized_inputs else ""
            return f"{name}: {dims} {dtype}{bound}"

        return f"({', '.join(describe(*declared) for declared in self._inputs)})"

    def __repr__(self):
        return f"<lighthouse.SpecializedModule {self.signature()}>"

    def save(self, path) -> None:
        raise TypeError(
            "this model is compiled at each call for the values of its inputs "
            f"{', '.join(self.specialized_inputs)} ({self.reason}); save the code compiled "
            "for some values: .specialization(*args).save(path)"
        )

    def _values(self, args) -> Dict[str, np.ndarray]:
        if len(args) != len(self._inputs):
            raise TypeError(
                f"{self.signature()} takes {len(self._inputs)} arguments, got {len(args)}"
            )
        torch = sys.modules.get("torch")
        values = {}
        for index, name, dtype, shape in self._specialized:
            value = args[index]
            if torch is not None and isinstance(value, torch.Tensor):
                value = value.detach().cpu().resolve_neg().numpy()
            if isinstance(value, (bool, int, float, np.generic)):
                value = np.asarray(value, dtype=dtype)
            if not isinstance(value, np.ndarray):
                raise TypeError(
                    f"argument {index} ({name}): expected a numpy array or a torch tensor "
                    f"of {dtype}, got {type(value).__name__}"
                )
            if value.dtype != dtype:
                raise TypeError(
                    f"argument {index} ({name}): expected {dtype} elements, got {value.dtype}"
                )
            if value.shape != shape:
                raise ValueError(
                    f"argument {index} ({name}): expected shape {shape}, got {value.shape}"
                )
            values[name] = value
        return values

    def specialization(self, *args) -> CompiledModule:
        """The code compiled for the values `args` (every input of the model,
        in order) give the specialized inputs; it takes the other inputs."""
        values = self._values(args)
        key = tuple((name, value.tobytes()) for name, value in values.items())
        with self._lock:
            compiled = self._compiled.get(key)
            if compiled is None:
                try:
                    compiled = self._compile_for(values)
                except Exception as error:  # kept: the same values fail again
                    compiled = error
                else:
                    for stage, seconds in compiled.timings.items():
                        self.timings[stage] = self.timings.get(stage, 0.0) + seconds
                    for stage, peak in compiled.peak_rss.items():
                        self.peak_rss[stage] = max(self.peak_rss.get(stage, 0), peak)
                    self.ir = compiled.ir
                self._compiled[key] = compiled
                if len(self._compiled) > self.max_specializations:
                    self._compiled.popitem(last=False)
            else:
                self._compiled.move_to_end(key)
        if isinstance(compiled, Exception):
            raise compiled
        return compiled

    def __call__(self, *args):
        compiled = self.specialization(*args)
        return compiled(*(a for i, a in enumerate(args) if i not in self._positions))
