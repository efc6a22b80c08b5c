"""What a compilation records as it goes: the seconds of each stage, the
process's peak memory after it, and the IR after it."""

import os
import resource
import time
from typing import Dict

from .. import ir

__all__ = ["Stages"]


class Stages:
    """What a compilation records as it goes: the seconds each stage took, the
    process's peak resident memory in bytes once it ended (the high-water
    mark so far: a stage that raised it is the one whose peak exceeds the
    stage's before it), and the IR after it when `dump_ir` asks for it."""

    def __init__(self, dump_ir):
        self.timings: Dict[str, float] = {}
        self.peak_rss: Dict[str, int] = {}
        self.ir: Dict[str, str] = {}
        self._dump_ir = dump_ir

    def timed(self, stage: str, function):
        """Calls `function`, timed as `stage` (added up when a stage runs
        again: ONNX import and lowering, when ONNX functions are expanded);
        returns its result."""
        start = time.perf_counter()
        result = function()
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - start
        # Linux reports kilobytes.
        self.peak_rss[stage] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return result

    def add(self, stage: str, seconds: float) -> None:
        """Records `seconds` of a step timed elsewhere (the JIT's own)."""
        self.timings[stage] = self.timings.get(stage, 0.0) + seconds

    def record(self, stage: str, module: ir.Module) -> None:
        """Keeps (and writes) the IR of `module` after `stage`, if asked to."""
        if not self._dump_ir:
            return
        text = module.operation.get_asm(large_elements_limit=16)
        self.ir[stage] = text
        if isinstance(self._dump_ir, (str, os.PathLike)):
            os.makedirs(self._dump_ir, exist_ok=True)
            with open(os.path.join(self._dump_ir, f"{len(self.ir)}-{stage}.mlir"), "w") as f:
                f.write(text)
