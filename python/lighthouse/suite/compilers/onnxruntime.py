"""ONNX Runtime on the CPU, with its default graph optimizations: what ONNX
models are most often run with."""

import re
from pathlib import Path
from typing import List

from ..case import Case, Unsupported
from ..plugins import Compiler

# The node ORT has no kernel for, "Could not find an implementation for
# Swish(24) node" or "Failed to find kernel for Cast(25)", or does not know,
# "ai.onnx.preview:FlexAttention(-1) is not a registered function/op".
_FAILED_OP = re.compile(
    r"(?:implementation for |kernel for )(\w+)\(\d+\)"
    r"|[\w.]+:(\w+)\(-?\d+\) is not a registered"
)


class OnnxRuntime(Compiler):
    """An `InferenceSession` on the CPU execution provider; creating it
    (graph optimizations, kernel selection) is the compilation."""

    takes = ("onnx",)

    def setup(self, threads: int) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise Unsupported(
                "onnxruntime is not installed (pip install onnxruntime, or 'lighthouse[suite]')"
            ) from None
        self._options = onnxruntime.SessionOptions()
        # The ops run one after another (ORT's sequential executor, the
        # default), each on `threads` threads; an inter-op pool would sit idle.
        self._options.intra_op_num_threads = threads
        self._options.inter_op_num_threads = 1

    def compile(self, case: Case, form: str):
        import onnxruntime

        model = case.form("onnx")
        session = onnxruntime.InferenceSession(
            str(model) if isinstance(model, Path) else model,
            self._options,
            providers=["CPUExecutionProvider"],
        )
        # The graph's inputs in order, less those with an initializer (which
        # a caller does not give).
        names = [value.name for value in session.get_inputs()]

        def run(inputs):
            # ORT takes lists for sequences; an absent optional is left out.
            return session.run(
                None, {name: value for name, value in zip(names, inputs) if value is not None}
            )

        return run

    def failed_ops(self, error: BaseException) -> List[str]:
        # Named as torch-mlir's ONNX importer names them (`onnx.Swish`), so
        # that a report lines up the compilers failing on the same op.
        return list(
            dict.fromkeys(f"onnx.{kernel or op}" for kernel, op in _FAILED_OP.findall(str(error)))
        )
