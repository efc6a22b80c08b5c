"""PyTorch models into lighthouse: torch-dialect IR and linalg on tensors.

    from lighthouse.ingress import torch as torch_ingress
    raw = torch_ingress.import_model(model, (x,))           # torch dialect
    linalg = torch_ingress.to_linalg(model, (x,),             # upstream dialects
                                     dynamic_shapes={"x": {0: torch.export.Dim("batch")}})

Import runs torch-mlir's FX importer (`lighthouse.extras.fx_importer`) in a
lighthouse context. Lowering runs torch-mlir's passes on torch-mlir's own MLIR
and brings the result back (see `torch_mlir`). Needs `lighthouse[torch]`.
"""

import functools
import inspect
import logging
import math
import threading
from typing import Any, Callable, Dict, Optional, Sequence

from ... import ir
from ...errors import (
    ExchangeError,
    ExportError,
    ImporterError,
    IngressError,
    LoweringCrash,
    LoweringError,
)
from ..torch_mlir import failures_as, import_context, name_torch_operators, require
from . import convolutions
from .program import import_frozen
from .views import BACKEND_LEGAL_OPS as VIEW_OPS
from ..torch_mlir.unsigned import run_checked_pipelines

__all__ = [
    "ExchangeError",
    "ExportError",
    "ImporterError",
    "IngressError",
    "LoweringCrash",
    "LoweringError",
    "export",
    "import_model",
    "lower_to_linalg",
    "to_linalg",
]

torch = require("torch", "torch")
fx_importer = require("lighthouse.extras.fx_importer", "torch")
fx_decomp_util = require("lighthouse.extras.fx_decomp_util", "torch")
dynamo_exc = require("torch._dynamo.exc", "torch")
pytree = require("torch.utils._pytree", "torch")

_LOG = logging.getLogger(__name__)

# torch.export and its decompositions keep their tracing state in globals
# (torch's dispatch mode stack): traces from two threads at once fail in both
# ("ProxyTorchDispatchMode slot already occupied"). One traces at a time.
_TRACING = threading.Lock()

#: torch-mlir's pipelines from a torch.export program's IR to linalg on tensors.
TORCH_TO_LINALG_STAGES = [
    (
        "torch-mlir's lowering to the torch backend contract",
        "builtin.module(func.func(torch-match-quantized-custom-ops),"
        "torchdynamo-export-to-torch-backend-pipeline"
        f"{{backend-legal-ops={','.join(VIEW_OPS)}}})",
    ),
    (
        "torch-mlir's lowering from the torch backend contract to linalg on tensors",
        "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)",
    ),
]


def export(
    model,
    example_args: Sequence = (),
    example_kwargs: Optional[Dict] = None,
    *,
    dynamic_shapes: Any = None,
    strict: bool = False,
    decompositions: Optional[Dict[Any, Callable]] = None,
):
    """Exports `model` with torch.export and applies torch-mlir's decompositions.

    Safe to call from several threads: their traces run one at a time.

    Args:
      model: a `torch.nn.Module`, or an `ExportedProgram` (then only the
        decompositions are applied).
      example_args, example_kwargs: inputs to trace with.
      dynamic_shapes: as for `torch.export.export`, e.g.
        `{"x": {0: torch.export.Dim("batch")}}` for a dynamic batch.
      decompositions: a decomposition table; torch-mlir's by default. Ops
        with a CompositeImplicitAutograd kernel are decomposed by that kernel
        (see `_decompose`); an empty table skips decomposition.

    Raises:
      ExportError: torch.export, or its retrace with the decompositions,
        failed; the message gives its error.
    """
    if isinstance(model, torch.export.ExportedProgram):
        program = model
    elif isinstance(model, torch.nn.Module):
        if not isinstance(example_args, (tuple, list)):
            raise TypeError(
                f"example_args must be a tuple of inputs, got {type(example_args).__name__}"
            )
        if not example_args and not example_kwargs and _takes_inputs(model):
            raise ValueError("exporting an nn.Module needs example_args (or example_kwargs)")
        if decompositions is None:
            decompositions = default_decompositions()
        args = tuple(example_args)
        if decompositions:
            with _TRACING:
                program = _traced_to_inference_ir(
                    model, args, example_kwargs, dynamic_shapes, strict, decompositions
                )
            if program is not None:
                return program
        with _TRACING, failures_as(ExportError, f"torch.export could not export {_named(model)}"):
            export = functools.partial(
                torch.export.export, model, args, example_kwargs, strict=strict
            )
            program = _exported(export, dynamic_shapes)
        _views_as_reshapes(program.graph_module)
    else:
        raise TypeError(
            "expected a torch.nn.Module or a torch.export.ExportedProgram, got "
            f"{type(model).__module__}.{type(model).__name__}"
        )
    if decompositions is None:
        decompositions = default_decompositions()
    if not decompositions:
        return program
    with (
        _TRACING,
        failures_as(
            ExportError, "torch.export could not apply torch-mlir's decompositions to the program"
        ),
    ):
        return _decompose(program, decompositions)


def _traced_to_inference_ir(model, args: tuple, kwargs, dynamic_shapes, strict, decompositions):
    """`model` exported straight to inference IR with `decompositions`, in one
    trace, or None where this torch has no such path or the trace failed
    (then `export` takes the public path and reports its errors).

    The public path traces twice: torch.export to training IR, then
    `_decompose`'s retrace of that program. torch.export's own ATen-level
    export (`pre_dispatch=False`) functionalizes and decomposes while it
    traces the module, if its tracing function is given the table: the same
    ops, BERT-base 2.7 -> 2.1 s, Swin-T 5.7 -> 3.6 s. Checked on torch 2.13."""
    try:
        from torch.export import _trace
    except ImportError:
        return None
    to_aten_ir = getattr(_trace, "_export_to_aten_ir", None)
    if to_aten_ir is None or not hasattr(_trace, "_export"):
        return None
    export = functools.partial(
        _trace._export, model, args, kwargs, strict=strict, pre_dispatch=False
    )
    table = dict(decompositions)
    table[torch.ops.aten.view.default] = _view_as_reshape
    # `_export` looks its tracing function up in its module when it runs.
    _trace._export_to_aten_ir = functools.partial(to_aten_ir, decomp_table=table)
    try:
        # Once: the public path retries refused dims (`_exported`).
        return export(dynamic_shapes=dynamic_shapes)
    except Exception as error:  # noqa: BLE001 - the public path runs and reports
        _LOG.debug("one-trace export of %s failed, exporting in two: %r", _named(model), error)
        return None
    finally:
        _trace._export_to_aten_ir = to_aten_ir


# Set while `_view_as_reshape` runs the reshape it makes of a view.
_RESHAPING = threading.local()


def _view_as_reshape(tensor, size):
    """`aten.view` traced as `aten.reshape`, as `_views_as_reshapes` makes the
    public path's views (a decomposition lays its result out with strides of
    its own, which the model's view of it may not take); the view that the
    reshape makes where the strides allow one is traced as it is."""
    if getattr(_RESHAPING, "active", False):
        return NotImplemented
    _RESHAPING.active = True
    try:
        return torch.ops.aten.reshape.default(tensor, size)
    finally:
        _RESHAPING.active = False


def _exported(export: Callable, dynamic_shapes):
    """`export` (torch.export.export of a module and its inputs) for
    `dynamic_shapes`, and where it refuses named `Dim`s because it
    cannot prove a guard it made over their whole range, the export again
    with each `Dim` a `Dim.DYNAMIC` of the same range, which keeps such a
    guard as an assertion. LLaMA's decode step with a cache of any length:
    torch.export could not prove min(64 + 64 past, 256 + 256 past) ==
    64 + 64 past, which holds for every past >= 0. The second export stands
    only where every size named dynamic stayed so (none specialized)."""
    try:
        return export(dynamic_shapes=dynamic_shapes)
    except dynamo_exc.UserError as error:
        if error.error_type != dynamo_exc.UserErrorType.CONSTRAINT_VIOLATION:
            raise
        named = pytree.tree_leaves(dynamic_shapes, is_leaf=_is_dim)
        if not any(_is_dim(leaf) for leaf in named):
            raise
        hinted = pytree.tree_map(_as_hint, dynamic_shapes, is_leaf=_is_dim)
        try:
            program = export(dynamic_shapes=hinted)
        except Exception:  # noqa: BLE001 - the first refusal is the one to report
            raise error from None
        if _dynamic_sizes(program) < sum(1 for leaf in named if _is_dim(leaf)):
            raise error
        return program


def _views_as_reshapes(graph_module) -> None:
    """Makes each `aten.view` of `graph_module` an `aten.reshape`, which is a view
    where the input's strides allow one and a copy elsewhere. In a program
    without mutation the two compute the same, but the decompositions
    retrace the program with strides of their own: GPT-2 for a dynamic batch
    and length views its attention's output, which the decomposition of
    scaled dot-product attention lays out sequence-major, and the retrace
    failed ("Cannot view a tensor with shape [b, n, 768] and strides (768,
    768*b, 1)")."""
    for node in graph_module.graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.aten.view.default:
            node.target = torch.ops.aten.reshape.default
    graph_module.recompile()


def _is_dim(value) -> bool:
    return isinstance(value, torch.export.Dim)


def _as_hint(value):
    return torch.export.Dim.DYNAMIC(min=value.min, max=value.max) if _is_dim(value) else value


def _dynamic_sizes(program) -> int:
    """The number of sizes of `program`'s user inputs that are symbolic."""
    inputs = set(program.graph_signature.user_inputs)
    return sum(
        1
        for node in program.graph.nodes
        if node.op == "placeholder" and node.name in inputs
        for size in getattr(node.meta.get("val"), "shape", ())
        if not isinstance(size, int)
    )


def _takes_inputs(model) -> bool:
    """Whether `model.forward` has a parameter without a default (a model of
    no inputs, which computes from its own state, exports without any)."""
    parameters = inspect.signature(model.forward).parameters.values()
    return any(
        p.default is inspect.Parameter.empty
        and p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for p in parameters
    )


def _named(model) -> str:
    kind = type(model)
    return f"{kind.__module__}.{kind.__qualname__}"


def _gelu(x, approximate: str = "none"):
    """GELU with float64's constants: torch-mlir's own lowering of the tanh
    form multiplies by 0.797724 for sqrt(2 / pi) = 0.7978846, 5.1e-5 off at
    x = 1.33 against float64, where eager is 4e-7 off."""
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1.0 + torch.tanh(inner))
    return 0.5 * x * (1.0 + torch.erf(x * math.sqrt(0.5)))


def default_decompositions() -> Dict[Any, Callable]:
    """torch-mlir's decomposition table, with lighthouse's in place of ops
    torch-mlir lowers imprecisely (`_gelu`) or not at all (grouped 3-D
    convolutions, `convolutions`)."""
    table = dict(fx_decomp_util.get_decomposition_table())
    table[torch.ops.aten.gelu.default] = _gelu
    table.update(convolutions.DECOMPOSITIONS)
    return table


def _decompose(program, decompositions: Dict[Any, Callable]):
    """`program` retraced to inference IR (functional ATen) with `decompositions`
    applied; every CompositeImplicitAutograd op is decomposed by its own
    decomposition, as torch-mlir's importer expects.

    `ExportedProgram.run_decompositions` does the same retrace, but first
    re-registers a "preserve" kernel for each of the ~500
    CompositeImplicitAutograd ops that the table does not name, and restores
    them after: a fixed ~0.2-0.5 s per compilation, more than the retrace of
    a small model. Its internal step, given no op to preserve, skips that;
    the table's own entries for such ops then give way to the ops' kernels.
    Checked on torch 2.13. Without that step (another torch), the public
    path runs: slower, and it keeps the composite ops the table does not
    name, which torch-mlir then lowers itself.
    """
    try:
        from torch.export.exported_program import _decompose_exported_program

        return _decompose_exported_program(
            program,
            cia_to_decomp={},
            python_decomp_table=dict(decompositions),
            joint_loss_index=None,
            decompose_custom_triton_ops=False,
        )
    except (ImportError, TypeError):  # Not there, or with another signature.
        return program.run_decompositions(decompositions)


def import_model(
    model,
    example_args: Sequence = (),
    example_kwargs: Optional[Dict] = None,
    *,
    dynamic_shapes: Any = None,
    strict: bool = False,
    decompositions: Optional[Dict[Any, Callable]] = None,
    func_name: str = "main",
    context: Optional[ir.Context] = None,
    hooks: Optional["fx_importer.FxImporterHooks"] = None,
) -> ir.Module:
    """Imports a model as torch-dialect IR into a lighthouse context.

    Parameters are those of `export`, plus the function's name, the context
    (the current one, else a new one) and torch-mlir importer hooks. ATen ops
    that torch-mlir defines appear as named ops (`torch.aten.mm`), the others
    as `torch.operator`. The model's state (parameters, buffers, tensor
    constants) becomes constants.

    Raises:
      ExportError: torch.export failed.
      ImporterError: torch-mlir's importer failed; the message names the node.
    """
    program = export(
        model,
        example_args,
        example_kwargs,
        dynamic_shapes=dynamic_shapes,
        strict=strict,
        decompositions=decompositions,
    )
    return name_torch_operators(import_frozen(program, import_context(context), func_name, hooks))


def lower_to_linalg(module: ir.Module, *, time_limit: Optional[float] = None) -> ir.Module:
    """Lowers torch-dialect IR from `import_model` to linalg on tensors.

    Returns a new module in the same context holding only upstream dialects
    (func, arith, math, tensor, linalg, ...), verified. torch-mlir's passes
    run in a process of their own, stopped after `time_limit` seconds (by
    default `LIGHTHOUSE_LOWERING_TIME_LIMIT`, else 300).

    A model with unsigned tensors is checked on the torch backend contract
    for the ops torch-mlir would compute as on signed integers (`torch_mlir.unsigned`).

    Raises:
      LoweringError: an op could not be lowered, or on unsigned integers would
        be lowered wrongly; `.ops` names it.
      ExchangeError: IR did not cross between torch-mlir's MLIR and lighthouse's.
      LoweringCrash: torch-mlir crashed, or went past the time limit.
    """
    return run_checked_pipelines(module, TORCH_TO_LINALG_STAGES, time_limit)


def to_linalg(
    model, example_args: Sequence = (), example_kwargs: Optional[Dict] = None, **import_options
) -> ir.Module:
    """`import_model` then `lower_to_linalg`."""
    return lower_to_linalg(import_model(model, example_args, example_kwargs, **import_options))
