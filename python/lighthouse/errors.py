"""The errors lighthouse raises, by the stage that raises them.

Every layer raises these (the compiler, the runtime's saved modules, the
ingress of models, the test bench), so they live below all of them.

- `CompileError`: a pipeline failed, left ops native code cannot hold, or
  the JIT or the linker could not make code of it.
- `IngressError` and its kinds: a model could not be brought into
  lighthouse (`ExportError`, `ImporterError`, `LoweringError`,
  `LoweringCrash`, `ExchangeError`).
- `not_installed`, `require`: a package of an optional extra is missing, an
  ImportError that names the extra to install.
"""

import importlib
from typing import Optional

__all__ = [
    "CompileError",
    "ExchangeError",
    "ExportError",
    "ImporterError",
    "IngressError",
    "LoweringCrash",
    "LoweringError",
    "not_installed",
    "require",
]


def not_installed(module: str, extra: str) -> ImportError:
    """The error of `module` missing, naming lighthouse's extra that installs it."""
    return ImportError(
        f"{module} is needed here but is not installed: pip install 'lighthouse[{extra}]'",
        name=module,
    )


def require(module: str, extra: str):
    """Imports `module`, or raises an ImportError naming lighthouse's extra."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise not_installed(module, extra) from error


class CompileError(RuntimeError):
    """A pipeline failed, or left operations that native code cannot hold."""


class IngressError(RuntimeError):
    """A model could not be brought into lighthouse."""


class ExportError(IngressError):
    """torch.export could not export the model: the message names the model
    and gives torch.export's own error, which is also the `__cause__`."""

    #: The stage that failed.
    stage = "export"


class ImporterError(IngressError):
    """torch-mlir's importer could not import the program or model: the
    message says where (the FX node, its module and source line) and gives
    the importer's own error, which is also the `__cause__`."""

    #: The stage that failed.
    stage = "import"

    def __init__(self, message: str, node: Optional[str] = None):
        super().__init__(message)
        #: The name of the node being imported (an FX node's, an ONNX
        #: node's), when known.
        self.node = node


class LoweringError(IngressError):
    """A torch-mlir pass pipeline failed; the message carries its diagnostics."""

    def __init__(
        self,
        message: str,
        diagnostics: str,
        ops: list,
        stage: Optional[str] = None,
        placed: Optional[dict] = None,
        nodes: list = (),
    ):
        super().__init__(message)
        self.diagnostics = diagnostics
        #: The operations the diagnostics name as not lowered, e.g. ["torch.aten.foo"].
        self.ops = ops
        #: The pipeline that failed, e.g. "torch-mlir's lowering ... to linalg on tensors".
        self.stage = stage
        #: For ops the diagnostics name that have no location, by their
        #: generic form without value names: the locations of their users.
        self.placed = placed or {}
        #: The model's nodes the error is at (ONNX node names), when known.
        self.nodes = list(nodes)

    def at(self, places: list, nodes: list) -> "LoweringError":
        """This error, its message saying where in the model it is (`places`,
        e.g. "ONNX node 'Conv_3' (Conv)"), at the model's `nodes`."""
        if not places or self.stage is None:
            return self
        return LoweringError(
            lowering_message(self.stage, self.diagnostics, self.ops, places),
            self.diagnostics,
            self.ops,
            self.stage,
            self.placed,
            nodes,
        )


def lowering_message(stage: str, diagnostics: str, ops: list, places: list = ()) -> str:
    at = f" at {'; '.join(places)}" if places else ""
    named = f" (cannot lower: {', '.join(ops)})" if ops else ""
    return f"{stage} failed{at}{named}:\n{diagnostics}"


class LoweringCrash(IngressError):
    """torch-mlir's process died, or was stopped at the time limit, while
    lowering; the caller's process goes on."""

    def __init__(
        self,
        message: str,
        stage: str,
        signal: Optional[str] = None,
        fatal: Optional[str] = None,
        time_limit: Optional[float] = None,
    ):
        super().__init__(message)
        #: What torch-mlir was doing, e.g. "torch-mlir's lowering ... to linalg on tensors".
        self.stage = stage
        #: The signal that ended the process ("SIGSEGV"), None for a time limit.
        self.signal = signal
        #: The line of its output that says why ("LLVM ERROR: out of memory"), if any.
        self.fatal = fatal
        #: The time limit in seconds when the process was stopped at it, else None.
        self.time_limit = time_limit


class ExchangeError(IngressError):
    """IR did not parse after crossing between torch-mlir's MLIR and lighthouse's."""

    def __init__(self, message: str, ops: list = ()):
        super().__init__(message)
        #: The operations lighthouse does not have, e.g. ["tm_tensor.sort"].
        self.ops = list(ops)
