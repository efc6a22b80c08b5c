"""Runs torch-mlir's passes on IR held in a lighthouse context.

torch-mlir's passes exist only inside torch-mlir's package, on torch-mlir's
own MLIR, which is of another release than lighthouse's. They run in a
process of their own (`worker.py`, run by `process.py`), where a crash or a hang of theirs
ends that process only and becomes a `LoweringCrash`. IR crosses as text in
the generic op form (the form that changes least between releases), with
locations and resources; whatever does not parse on the other side becomes
an `ExchangeError` that names it.
"""

import contextlib
import functools
import importlib
import importlib.metadata
import os
import re
import traceback
from typing import Optional

from ... import ir
from ..._version import MLIR_VERSION, TORCH_MLIR_VERSION
from ...errors import (
    ExchangeError,
    ImporterError,
    IngressError,
    LoweringCrash,
    LoweringError,
    lowering_message,
    not_installed,
    require,
)
from . import process as _lowering_process
from . import worker as _lowering_worker
from .weights import restore_weights, weights_aside

#: Seconds torch-mlir's lowering of a model may take before its process is
#: stopped, unless a time limit is given: the largest test models lower in
#: 0.03 s, four 1024x1024 linear layers in 0.4 s; a hang never ends.
TIME_LIMIT_VARIABLE = "LIGHTHOUSE_LOWERING_TIME_LIMIT"
DEFAULT_TIME_LIMIT = 300.0
#: Set to 1 to run torch-mlir's passes in the caller's process: for debuggers
#: and sanitizers; a crash there ends the caller, a hang is not stopped.
IN_PROCESS_VARIABLE = "LIGHTHOUSE_LOWERING_IN_PROCESS"


@contextlib.contextmanager
def failures_as(error_class, what: str):
    """Raises any exception of the block as `error_class` ("`what`: Type:
    message"), the exception as its cause: third-party code (torch.export,
    torch-mlir's importers) fails with errors of its own, often bare
    AssertionErrors, which lighthouse names by the stage that raised them."""
    try:
        yield
    except IngressError:
        raise
    except Exception as error:  # noqa: BLE001 - a third party's failure, named as ours
        raise error_class(f"{what}: {type(error).__name__}: {error}") from error


def importer_failure(error: Exception, importer: str, node_kind: type, describe) -> ImporterError:
    """`error`, raised by torch-mlir's `importer` ("FX", "ONNX"), as an
    `ImporterError` at the node it was importing: the innermost frame of its
    traceback with a local `node` of type `node_kind`, described by
    `describe(node)`."""
    node = None
    for frame, _ in traceback.walk_tb(error.__traceback__):
        value = frame.f_locals.get("node")
        if isinstance(value, node_kind):
            node = value
    at = f" at {describe(node)}" if node is not None else ""
    return ImporterError(
        f"torch-mlir's {importer} importer failed{at}: {type(error).__name__}: {error}",
        node=node.name if node is not None else None,
    )


def _torch_mlir_version() -> str:
    try:
        return importlib.metadata.version("torch-mlir")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=None)
def _torch_mlir_context():
    """A torch-mlir context that knows torch-mlir's ops (kept for lookups)."""
    tm_ir = require("torch_mlir.ir", "torch")
    torch_dialect = require("torch_mlir.dialects.torch", "torch")
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


# An operation of the generic op form: `%0 = "tm_tensor.scan"(...`.
_GENERIC_OP = re.compile(r'^\s*(?:%[^=\n]*=\s*)?"([\w.]+)"\(', re.MULTILINE)


def _unknown_ops(text: str, context: ir.Context) -> list:
    """Names of the operations in IR `text` (generic op form) that `context`
    does not know, in order of appearance."""
    names = dict.fromkeys(_GENERIC_OP.findall(text))
    return [name for name in names if not context.is_registered_operation(name)]


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


def _resolve_time_limit(time_limit: Optional[float]) -> float:
    if time_limit is None:
        setting = os.environ.get(TIME_LIMIT_VARIABLE, "")
        try:
            time_limit = float(setting) if setting else DEFAULT_TIME_LIMIT
        except ValueError:
            raise ValueError(
                f"{TIME_LIMIT_VARIABLE} must be a number of seconds, got {setting!r}"
            ) from None
    if not time_limit > 0:
        raise ValueError(f"the lowering time limit must be positive seconds, got {time_limit!r}")
    return time_limit


def _crash(answer: dict, stages: list, time_limit: float) -> LoweringCrash:
    """The error of a worker that died, or was stopped, at `answer["step"]`."""
    step = answer["step"]
    if step < 0:
        stage = "the start of torch-mlir's process"
    elif step == 0:
        stage = "torch-mlir's parsing of the IR from lighthouse"
    elif step <= len(stages):
        stage = stages[step - 1][0]
    else:
        stage = "torch-mlir's printing of the lowered IR"
    if answer["timed_out"]:
        return LoweringCrash(
            f"{stage} did not finish within {time_limit:g} s, so its process was stopped "
            f"(the time limit is {TIME_LIMIT_VARIABLE}, or the compile option "
            "lowering_time_limit)",
            stage,
            time_limit=time_limit,
        )
    if answer["signal"]:
        ended = f"died of {answer['signal']}"
    else:
        ended = f"exited with status {answer['exit_code']}"
    fatal = answer["fatal"]
    return LoweringCrash(
        f"{stage} crashed: torch-mlir's process {ended}" + (f"\n{fatal}" if fatal else ""),
        stage,
        signal=answer["signal"],
        fatal=fatal,
    )


def start_lowering_process() -> None:
    """Starts torch-mlir's process, unless lowering runs in this one, so that
    its start-up overlaps the export and import that come before lowering."""
    if os.environ.get(IN_PROCESS_VARIABLE) == "1":
        return
    try:
        _lowering_process.start()
    except OSError:
        pass  # The lowering tries again, and says why it cannot.


def run_pipelines(module: ir.Module, stages: list, time_limit: Optional[float] = None) -> ir.Module:
    """Runs torch-mlir pass pipelines on `module`; returns a new lighthouse module.

    The pipelines run in torch-mlir's process (`torch_mlir.worker`), or in this
    one when the environment sets `LIGHTHOUSE_LOWERING_IN_PROCESS=1`. The
    result is parsed, and so verified, in `module`'s context.

    Args:
      module: IR in a lighthouse context.
      stages: (description, pipeline string) pairs, run in order in torch-mlir.
      time_limit: seconds the pipelines may take, start of the process
        included; by default `LIGHTHOUSE_LOWERING_TIME_LIMIT`, else 300.

    Raises:
      LoweringError: a pipeline failed (its diagnostics name the op).
      ExchangeError: the IR did not parse on one of the two sides.
      LoweringCrash: torch-mlir's process died, or went past the time limit.
    """
    versions = (
        f"lighthouse's MLIR {MLIR_VERSION}, torch-mlir {_torch_mlir_version()} "
        f"(lighthouse is tested with torch-mlir {TORCH_MLIR_VERSION})"
    )
    with weights_aside(module) as weights:
        text = _exchange_text(module)
    pipelines = [pipeline for _, pipeline in stages]
    if os.environ.get(IN_PROCESS_VARIABLE) == "1":
        try:
            answer = _lowering_worker.lower(text, pipelines)
        except ImportError as error:
            raise not_installed(error.name or "torch_mlir", "torch") from error
    else:
        time_limit = _resolve_time_limit(time_limit)
        try:
            answer = _lowering_process.lower_in_worker(text, pipelines, time_limit)
        except OSError as error:
            raise IngressError(
                f"torch-mlir's process could not be started ({error}); "
                f"{IN_PROCESS_VARIABLE}=1 runs torch-mlir's passes in this process"
            ) from error
    status = answer["status"]
    if status == "lost":
        raise _crash(answer, stages, time_limit)
    if status == "unavailable":
        raise not_installed(answer["unavailable"], "torch")
    if status == "raised":
        raise IngressError(f"torch-mlir's passes raised an exception:\n{answer['message']}")
    if status == "unparsed":
        diagnostics = answer["diagnostics"]
        raise ExchangeError(
            f"torch-mlir could not parse IR from lighthouse ({versions}):\n{diagnostics}"
            f"{_describe_parse_failure(text, diagnostics)}"
        )
    if status == "failed":
        description = stages[answer["stage"]][0]
        diagnostics = answer["diagnostics"]
        ops = _illegal_ops(diagnostics)
        raise LoweringError(
            lowering_message(description, diagnostics, ops),
            diagnostics,
            ops,
            description,
            answer.get("placed"),
        )
    text = answer["text"]
    try:
        lowered = ir.Module.parse(text, context=module.context)
    except ir.MLIRError as error:
        # torch-mlir lowers a few ops (cumsum, sort, scatter...) to its own
        # TMTensor dialect, which lighthouse does not have.
        foreign = _unknown_ops(text, module.context)
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
    restore_weights(lowered, weights)
    return lowered
