"""Runs torch-mlir's passes on IR held in a lighthouse context.

torch-mlir's passes exist only inside torch-mlir's package, on torch-mlir's
own MLIR, which is of another release than lighthouse's. IR crosses between
the two bindings in the process as text in the generic op form (the form that
changes least between releases), with locations and resources; whatever does
not parse on the other side becomes an `ExchangeError` that names it.
"""

import functools
import importlib
import importlib.metadata
import re

from .. import ir
from .._version import MLIR_VERSION, TORCH_MLIR_VERSION


class IngressError(RuntimeError):
    """A model could not be brought into lighthouse."""


class LoweringError(IngressError):
    """A torch-mlir pass pipeline failed; the message carries its diagnostics."""

    def __init__(self, message: str, diagnostics: str, ops: list):
        super().__init__(message)
        self.diagnostics = diagnostics
        #: The operations the diagnostics name as not lowered, e.g. ["torch.aten.foo"].
        self.ops = ops


class ExchangeError(IngressError):
    """IR did not parse after crossing between torch-mlir's MLIR and lighthouse's."""

    def __init__(self, message: str, ops: list = ()):
        super().__init__(message)
        #: The operations lighthouse does not have, e.g. ["tm_tensor.sort"].
        self.ops = list(ops)


def require(module: str, extra: str):
    """Imports `module`, or raises an ImportError naming lighthouse's extra."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{module} is needed here but is not installed: pip install 'lighthouse[{extra}]'",
            name=module,
        ) from error


@functools.lru_cache(maxsize=None)
def _torch_mlir_bindings():
    ir_module = require("torch_mlir.ir", "torch")
    passmanager = require("torch_mlir.passmanager", "torch")
    torch_dialect = require("torch_mlir.dialects.torch", "torch")
    return ir_module, passmanager, torch_dialect


def _torch_mlir_version() -> str:
    try:
        return importlib.metadata.version("torch-mlir")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=None)
def _torch_mlir_context():
    """A torch-mlir context that knows torch-mlir's ops (kept for lookups)."""
    tm_ir, _, torch_dialect = _torch_mlir_bindings()
    context = tm_ir.Context()
    torch_dialect.register_dialect(context)
    return context


def import_context(context=None) -> ir.Context:
    """The context to import into: `context`, else the current one, else a new
    one; made to accept torch IR."""
    extras = require("lighthouse.extras", "torch")
    if context is None:
        # MLIR 22's bindings give None without a current context; earlier
        # releases raised ValueError.
        try:
            context = ir.Context.current
        except ValueError:
            pass
    return extras.prepare_context(context if context is not None else ir.Context())


def name_torch_operators(module: ir.Module) -> ir.Module:
    """Replaces `torch.operator {name = "torch.x"}` by the op `torch.x` in place.

    torch-mlir's importers emit `torch.operator` for every op the context does
    not register, which in a lighthouse context is every torch op. Ops that
    torch-mlir defines get their own name back; the others stay generic.
    """
    operators = []

    def collect(op):
        if op.name == "torch.operator" and len(op.regions) == 0:
            operators.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    for op in operators:
        name = ir.StringAttr(op.attributes["name"]).value
        if not _torch_mlir_context().is_registered_operation(name):
            continue
        attributes = {key: op.attributes[key] for key in op.attributes if key != "name"}
        with ir.InsertionPoint(op), op.location:
            named = ir.Operation.create(
                name,
                results=[r.type for r in op.results],
                operands=list(op.operands),
                attributes=attributes,
            )
        for old, new in zip(op.results, named.results):
            old.replace_all_uses_with(new)
        op.erase()
    return module


_NOT_LEGALIZED = re.compile(r"failed to legalize operation '([\w.]+)'[^\n]*")
_OPERATOR_NAME = re.compile(r'name = "([\w.]+)"')


def _illegal_ops(diagnostics: str) -> list:
    """The ops a conversion's diagnostics say it could not legalize."""
    names = []
    for match in _NOT_LEGALIZED.finditer(diagnostics):
        name = match.group(1)
        if name == "torch.operator":  # The operator's own name says more.
            operator = _OPERATOR_NAME.search(match.group(0))
            name = operator.group(1) if operator else name
        if name not in names:
            names.append(name)
    return names


def _exchange_text(module) -> str:
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)


def _unknown_ops(tm_ir, tm_module, context: ir.Context) -> list:
    """Names of the operations in torch-mlir's `tm_module` that `context` does
    not know, in order of appearance."""
    names = []

    def collect(op):
        if op.name not in names and not context.is_registered_operation(op.name):
            names.append(op.name)
        return tm_ir.WalkResult.ADVANCE

    tm_module.operation.walk(collect, tm_ir.WalkOrder.PRE_ORDER)
    return names


def _describe_parse_failure(text: str, diagnostics: str) -> str:
    """Names the op the parser rejected, or quotes the line it stopped at."""
    op = re.search(r"operation '([\w.]+)'", diagnostics) or re.search(
        r'see current operation: [^\n]*?"([\w.]+)"\(', diagnostics
    )
    if op:
        return f"\n  op '{op.group(1)}' did not cross"
    # Syntax errors (an attribute or type spelled differently) carry the
    # position in the exchanged text.
    position = re.search(r'"-":(\d+):(\d+)', diagnostics)
    lines = text.splitlines()
    if not position or not 0 < int(position.group(1)) <= len(lines):
        return ""
    source = lines[int(position.group(1)) - 1].strip()
    if len(source) > 400:
        source = source[:400] + "..."
    return f"\n  at column {position.group(2)} of: {source}"


def run_pipelines(module: ir.Module, stages: list) -> ir.Module:
    """Runs torch-mlir pass pipelines on `module`; returns a new lighthouse module.

    The result is parsed, and so verified, in `module`'s context.

    Args:
      module: IR in a lighthouse context.
      stages: (description, pipeline string) pairs, run in order in torch-mlir.

    Raises:
      LoweringError: a pipeline failed (its diagnostics name the op).
      ExchangeError: the IR did not parse on one of the two sides.
    """
    tm_ir, tm_passmanager, torch_dialect = _torch_mlir_bindings()
    versions = (
        f"lighthouse's MLIR {MLIR_VERSION}, torch-mlir {_torch_mlir_version()} "
        f"(lighthouse is tested with torch-mlir {TORCH_MLIR_VERSION})"
    )
    text = _exchange_text(module)
    with tm_ir.Context() as tm_context:
        torch_dialect.register_dialect(tm_context)
        try:
            tm_module = tm_ir.Module.parse(text)
        except tm_ir.MLIRError as error:
            raise ExchangeError(
                f"torch-mlir could not parse IR from lighthouse ({versions}):\n{error}"
                f"{_describe_parse_failure(text, str(error))}"
            ) from None
        for description, pipeline in stages:
            try:
                tm_passmanager.PassManager.parse(pipeline).run(tm_module.operation)
            except tm_ir.MLIRError as error:
                diagnostics = str(error)
                ops = _illegal_ops(diagnostics)
                named = f" (cannot lower: {', '.join(ops)})" if ops else ""
                raise LoweringError(
                    f"{description} failed{named}:\n{diagnostics}", diagnostics, ops
                ) from None
        text = _exchange_text(tm_module)
    try:
        return ir.Module.parse(text, context=module.context)
    except ir.MLIRError as error:
        # torch-mlir lowers a few ops (cumsum, sort, scatter...) to its own
        # TMTensor dialect, which lighthouse does not have.
        foreign = _unknown_ops(tm_ir, tm_module, module.context)
        if foreign:
            raise ExchangeError(
                f"torch-mlir lowered the model to operations lighthouse does not have: "
                f"{', '.join(foreign)} ({versions})",
                foreign,
            ) from None
        raise ExchangeError(
            f"lighthouse could not parse IR lowered by torch-mlir ({versions}):\n{error}"
            f"{_describe_parse_failure(text, str(error))}"
        ) from None
