"""torch-mlir's front door for PyTorch models, over lighthouse's bindings.

torch-mlir's users write

    from torch_mlir import fx
    module = fx.export_and_import(model, x, output_type="linalg-on-tensors")

and with `from lighthouse.extras import fx` the same call gives the same IR
in a lighthouse context: the model exported with `torch.export`, torch-mlir's
decompositions applied, imported by torch-mlir's FX importer
(`lighthouse.extras.fx_importer`), and lowered, for the output types that
ask for it, by torch-mlir's pipelines in torch-mlir's process
(`lighthouse.ingress.torch_mlir`). ATen ops torch-mlir defines carry their
names (`torch.aten.mm`), as in torch-mlir's output; the torch dialect is
lighthouse's stand-in (`lighthouse.dialects.torch`), so they print in the
generic op form. lighthouse has no TOSA or StableHLO dialect: those output
types are refused.

Unlike `lighthouse.ingress.torch.import_model`, which prepares a model for
lighthouse's compiler, this keeps torch-mlir's behaviour: the program as
`torch.export` and the decomposition table give it, and their errors and
the importer's as they raise them (torch-mlir's users catch them: the
importer's ValueError for a view it cannot import), where `ingress` names
them as its own. Lowering fails with lighthouse's errors.
"""

import dataclasses
import enum
from typing import Any, Callable, Dict, Optional, Union

from .. import ir
from ..ingress.torch_mlir import import_context, name_torch_operators, require, run_pipelines
from ..ingress.torch_mlir.unsigned import run_checked_pipelines

__all__ = [
    "FxImporter",
    "FxImporterHooks",
    "OutputType",
    "export_and_import",
    "get_decomposition_table",
    "stateless_fx_import",
]

torch = require("torch", "torch")
fx_importer = require("lighthouse.extras.fx_importer", "torch")
fx_decomp_util = require("lighthouse.extras.fx_decomp_util", "torch")
# What torch-mlir's users reach through its fx module.
FxImporter, FxImporterHooks = fx_importer.FxImporter, fx_importer.FxImporterHooks
get_decomposition_table = fx_decomp_util.get_decomposition_table


class OutputType(enum.Enum):
    """The IR `export_and_import` returns (torch-mlir's names and values)."""

    #: The importer's torch IR, as torch.export's graph gives it.
    RAW = "raw"
    #: torch IR on torch-mlir's backend contract (value semantics, shapes and
    #: dtypes refined, ops decomposed).
    TORCH = "torch"
    #: linalg on tensors with arith, math, tensor and scf.
    LINALG_ON_TENSORS = "linalg-on-tensors"
    #: torch-mlir's other backends, which lighthouse has no dialects for.
    TOSA = "tosa"
    STABLEHLO = "stablehlo"

    @staticmethod
    def get(spec: Union[str, "OutputType", Any]) -> "OutputType":
        """`spec` as an OutputType: one, its name or value in any case
        (`"linalg-on-tensors"`, `"LINALG_ON_TENSORS"`), or torch-mlir's
        OutputType of the same name."""
        if isinstance(spec, OutputType):
            return spec
        name = getattr(spec, "name", spec)
        if isinstance(name, str):
            key = name.upper().replace("-", "_")
            if key in OutputType.__members__:
                return OutputType[key]
        choices = ", ".join(t.value for t in OutputType)
        raise ValueError(f"output_type must be one of {choices}; got {spec!r}")


@dataclasses.dataclass
class _ImportOptions:
    """The options `stateless_fx_import` shares with `export_and_import`."""

    enable_graph_printing: bool = False
    verbose: bool = False
    enable_ir_printing: bool = False
    backend_legal_ops: Optional[list] = None
    allow_non_finites: bool = True


def _lowering_stages(output_type: OutputType, backend_legal_ops, allow_non_finites: bool) -> list:
    """torch-mlir's pipelines from imported torch IR to `output_type`."""
    if output_type in (OutputType.TOSA, OutputType.STABLEHLO):
        raise ValueError(
            f"output_type {output_type.value!r}: lighthouse has no {output_type.value} dialect, "
            "so IR lowered to it cannot come back into a lighthouse context; use 'raw', "
            "'torch' or 'linalg-on-tensors'"
        )
    options = f"{{backend-legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    stages = [
        (
            "torch-mlir's lowering to the torch backend contract",
            "builtin.module(func.func(torch-match-quantized-custom-ops),"
            f"torchdynamo-export-to-torch-backend-pipeline{options})",
        ),
        (
            "torch-mlir's lowering from the torch backend contract to linalg on tensors",
            "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline"
            f"{{allow-non-finites={str(allow_non_finites).lower()}}})",
        ),
    ]
    return {OutputType.RAW: [], OutputType.TORCH: stages[:1]}.get(output_type, stages)


def _lowered(module: ir.Module, stages: list, print_ir: bool) -> ir.Module:
    """`module`, imported torch IR, lowered through `stages`
    (`_lowering_stages`). The pipelines run in torch-mlir's process, which
    cannot print the IR after each of its passes: `print_ir` prints it
    before and after lowering."""
    if print_ir:
        print(f"// torch IR as imported\n{module}")
    if not stages:
        return module
    if len(stages) == 2:  # To linalg: models on unsigned integers checked on the way.
        lowered = run_checked_pipelines(module, stages)
    else:
        lowered = run_pipelines(module, stages)
    if print_ir:
        print(f"// After {stages[-1][0]}\n{lowered}")
    return lowered


def _exported(f, args: tuple, kwargs: dict, dynamic_shapes, strict: bool, decomposition_table):
    if isinstance(f, torch.export.ExportedProgram):
        program = f
    elif isinstance(f, torch.nn.Module):
        program = torch.export.export(f, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict)
    else:
        raise TypeError(
            "export_and_import takes a torch.nn.Module or a torch.export.ExportedProgram, got "
            f"{type(f).__module__}.{type(f).__name__}"
        )
    if decomposition_table is None:
        decomposition_table = get_decomposition_table()
    if not decomposition_table:
        return program
    return program.run_decompositions(decomposition_table)


def _importer(fx_importer_, hooks) -> FxImporter:
    if fx_importer_ is not None:
        if hooks is not None:
            raise ValueError("give hooks to the FxImporter passed as fx_importer, not beside it")
        return fx_importer_
    return FxImporter(context=import_context(ir.Context()), hooks=hooks)


def export_and_import(
    f,
    *args,
    output_type: Union[str, OutputType] = OutputType.RAW,
    fx_importer: Optional[FxImporter] = None,
    dynamic_shapes: Any = None,
    strict: bool = False,
    experimental_support_mutation: bool = False,
    import_symbolic_shape_expressions: bool = False,
    hooks: Optional[FxImporterHooks] = None,
    decomposition_table: Optional[Dict[Any, Callable]] = None,
    func_name: str = "main",
    enable_graph_printing: bool = False,
    verbose: bool = False,
    enable_ir_printing: bool = False,
    backend_legal_ops: Optional[list] = None,
    allow_non_finites: bool = True,
    **kwargs,
) -> ir.Module:
    """Exports a PyTorch model and imports it as IR in a new lighthouse context
    (torch-mlir's `torch_mlir.fx.export_and_import`).

    Args:
      f: a `torch.nn.Module`, called with `args` and `kwargs`, or an
        `ExportedProgram`.
      output_type: `"raw"` (the importer's IR), `"torch"` (torch-mlir's
        backend contract) or `"linalg-on-tensors"`, or an `OutputType`.
      fx_importer: an `FxImporter` to import with (into its context and
        module); by default a new one in a new context.
      dynamic_shapes, strict: as for `torch.export.export`.
      experimental_support_mutation: imports the program with its inputs
        mutated in place (`FxImporter.import_program`); otherwise its state
        is frozen into constants (`import_frozen_program`).
      import_symbolic_shape_expressions: records the symbolic sizes'
        expressions (`torch.bind_symbolic_shape`).
      hooks: `FxImporterHooks` for the new importer.
      decomposition_table: applied with `run_decompositions`; torch-mlir's
        by default, none when empty.
      func_name: the name of the imported function.
      enable_graph_printing: prints the exported graph.
      verbose, enable_ir_printing: print the IR before and after lowering.
      backend_legal_ops: ATen ops the torch backend contract keeps.
      allow_non_finites: whether the linalg lowering may use infinities and
        NaNs (as initial values of max and min reductions).

    Raises:
      torch.export's and torch-mlir's importer's own errors, as they raise them.
      LoweringError, ExchangeError, LoweringCrash: as `lighthouse.ingress.torch.lower_to_linalg`.
      ValueError: an output type lighthouse has no dialect for, or none at all.
    """
    stages = _lowering_stages(OutputType.get(output_type), backend_legal_ops, allow_non_finites)
    importer = _importer(fx_importer, hooks)
    program = _exported(f, args, kwargs, dynamic_shapes, strict, decomposition_table)
    if enable_graph_printing:
        program.graph_module.print_readable()
    import_program = (
        importer.import_program if experimental_support_mutation else importer.import_frozen_program
    )
    import_program(
        program,
        func_name=func_name,
        import_symbolic_shape_expressions=import_symbolic_shape_expressions,
    )
    return _lowered(name_torch_operators(importer.module), stages, verbose or enable_ir_printing)


def stateless_fx_import(
    gm,
    output_type: Union[str, OutputType] = OutputType.RAW,
    fx_importer: Optional[FxImporter] = None,
    hooks: Optional[FxImporterHooks] = None,
    model_name: str = "main",
    **options,
) -> ir.Module:
    """Imports the FX graph of `gm` (a `torch.fx.GraphModule` whose nodes carry
    fake tensors, as Dynamo's backends get it) as @`model_name`, then lowers
    it as `export_and_import` does (torch-mlir's `stateless_fx_import`).
    `options` are `export_and_import`'s `enable_graph_printing`, `verbose`,
    `enable_ir_printing`, `backend_legal_ops` and `allow_non_finites`."""
    options = _ImportOptions(**options)
    stages = _lowering_stages(
        OutputType.get(output_type), options.backend_legal_ops, options.allow_non_finites
    )
    importer = _importer(fx_importer, hooks)
    if options.enable_graph_printing:
        gm.print_readable()
    importer.import_stateless_graph(gm.graph, func_name=model_name)
    return _lowered(
        name_torch_operators(importer.module), stages, options.verbose or options.enable_ir_printing
    )
