"""Models in, native CPU callables out.

    compiled = lighthouse.compile(model, (x,))        # a torch.nn.Module
    y = compiled(x)                                    # torch in, torch out

    compiled = lighthouse.compile_onnx("model.onnx")
    y = compiled(x)                                    # numpy in, numpy out

A model goes through `lighthouse.ingress` to linalg on tensors, then through
a named pass pipeline (`PIPELINES`, by default lighthouse's C++
`lighthouse-cpu-fast`) to the LLVM dialect, and is JIT-compiled by lighthouse's
execution engine (LLVM, on several threads). Arrays are passed to and
returned from the compiled code without copies: inputs are read in place,
and results are buffers the compiled code allocated, handed to numpy (or
torch) with their ownership. How each entry point compiles is a
`CompileOptions`, given whole (`options=`) or field by field as keyword
arguments; the code they return is a `CompiledModule` (`lighthouse.compiled`),
which can be saved and loaded again (`lighthouse.saved`).
"""

import dataclasses
import os
import re
import time
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from . import _explain, ir, saved
from ._mlir_libs._lighthouse import create_execution_engine, release_buffers
from .compiled import CompiledModule, _TensorSpec
from .passmanager import PassManager
from .saved import load
from .specialized import SpecializedModule

__all__ = [
    "PIPELINES",
    "CompileError",
    "CompileOptions",
    "CompiledModule",
    "SpecializedModule",
    "compile",
    "compile_module",
    "compile_onnx",
    "load",
    "release_buffers",
]

#: Pipelines by name, from linalg on tensors to the LLVM dialect: `default`,
#: lighthouse's code generator (strategies by op family, vectors, threads;
#: ops it has no strategy for as loops LLVM vectorizes), and `loops`, every op
#: as loops on one thread (what `default` falls back to for each op), kept
#: as a reference for the code generator's results.
PIPELINES: Dict[str, str] = {
    "default": "builtin.module(lighthouse-cpu-fast)",
    "loops": "builtin.module(lighthouse-cpu)",
}


class CompileError(RuntimeError):
    """A pipeline failed, or left operations that native code cannot hold."""


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """How lighthouse compiles: the pipeline, IR dumps, the JIT's LLVM settings,
    the cache. The entry points take one as `options=`, and each field as a
    keyword argument too, which wins over `options`.

    Attributes:
      pipeline: a name from `PIPELINES` or a plugin's, or a pipeline string
        `builtin.module(...)`.
      dump_ir: True to keep the IR of each stage in the compiled module's
        `.ir`; a folder to also write it there.
      opt_level: LLVM's optimization level for the JIT (0 to 3).
      unroll_loops: True lets LLVM unroll loops (it interleaves the loops it
        vectorizes either way): compiles 1.2x to 6x slower, and code that is
        not always faster (see docs/compile.md, "LLVM").
      jit_threads: threads LLVM compiles on, each a part of the module's
        functions (0: one per hardware thread that gets enough code).
      cache_dir: a folder of compiled code keyed on the linalg IR, the
        pipeline and the versions: a hit skips the pipeline and the JIT.
      runtime_checks: check dynamic sizes and indices before the compiled
        code uses them (ValueError when one is out of range); False leaves
        them unchecked, for code whose inputs are known good
        (lighthouse-insert-runtime-checks, docs/compile.md).
      lowering_time_limit: seconds torch-mlir's lowering of a model may take
        before its process is stopped (`lighthouse.ingress.LoweringCrash`);
        None: `LIGHTHOUSE_LOWERING_TIME_LIMIT`, else 300.
    """

    pipeline: str = "default"
    dump_ir: Union[bool, str, os.PathLike, None] = None
    opt_level: int = 3
    unroll_loops: bool = False
    jit_threads: int = 0
    cache_dir: Union[str, os.PathLike, None] = None
    runtime_checks: bool = True
    lowering_time_limit: Optional[float] = None

    def merged(self, overrides: Mapping[str, Any]) -> "CompileOptions":
        """These options with the fields named in `overrides` replaced."""
        unknown = sorted(set(overrides) - set(_OPTION_NAMES))
        if unknown:
            raise TypeError(
                f"unknown compile option(s) {', '.join(unknown)}; the options "
                f"are {', '.join(_OPTION_NAMES)}"
            )
        return dataclasses.replace(self, **overrides)


_OPTION_NAMES = tuple(field.name for field in dataclasses.fields(CompileOptions))


def _resolve_options(
    options: Optional[CompileOptions], overrides: Mapping[str, Any]
) -> CompileOptions:
    if options is None:
        options = CompileOptions()
    elif not isinstance(options, CompileOptions):
        raise TypeError(f"options must be a CompileOptions, got {type(options).__name__}")
    return options.merged(overrides)


class _Stages:
    """What a compilation records as it goes: the seconds each stage took, and
    the IR after it when `dump_ir` asks for it."""

    def __init__(self, dump_ir):
        self.timings: Dict[str, float] = {}
        self.ir: Dict[str, str] = {}
        self._dump_ir = dump_ir

    def timed(self, stage: str, function):
        """Calls `function`, timed as `stage` (added up when a stage runs
        again: ONNX import and lowering, when ONNX functions are expanded);
        returns its result."""
        start = time.perf_counter()
        result = function()
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - start
        return result

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


def _resolve_pipeline(pipeline: str) -> str:
    """The pipeline string `pipeline` names. A plugin's is found after loading
    the MLIR plugins it lists: resolve before creating the context, which takes
    the dialects registered when it is created."""
    if pipeline in PIPELINES:
        return PIPELINES[pipeline]
    from . import plugins

    found = plugins.find_pipeline(pipeline)
    if found is not None:
        return found
    if pipeline.startswith("builtin.module("):
        return pipeline
    known = ", ".join(sorted(set(PIPELINES) | set(plugins.pipeline_names())))
    raise ValueError(
        f"unknown pipeline {pipeline!r}: use one of {known}, or a pass "
        "pipeline string 'builtin.module(...)'"
    )


def _run_pipeline(module: ir.Module, name: str, pipeline: str):
    try:
        PassManager.parse(pipeline).run(module.operation)
    except ir.MLIRError as error:
        raise CompileError(f"pipeline {name!r} ({pipeline}) failed:\n{error}") from None
    leftovers, packed = [], []

    def check(op):
        # The OpenMP dialect (threads) translates to LLVM IR as the LLVM one does.
        if op.name.split(".")[0] not in ("llvm", "builtin", "omp"):
            leftovers.append(op)
            return ir.WalkResult.SKIP
        if op.name in _VECTOR_MEMORY_OPS:
            kind, index = _VECTOR_MEMORY_OPS[op.name]
            values = op.results if kind == "result" else op.operands
            element = _sub_byte_vector_element(values[index].type)
            if element is not None:
                packed.append((op, element))
        return ir.WalkResult.ADVANCE

    module.operation.walk(check)
    if leftovers:
        listed = "\n".join(f"  '{op.name}' at {op.location}" for op in leftovers[:10])
        f8 = sorted(
            {
                str(element)
                for op in leftovers
                for value in (*op.operands, *op.results)
                for element in [_element_type(value.type)]
                if str(element).startswith("f8")
            }
        )
        note = (
            f"\n(MLIR lowers no arithmetic or conversion of {', '.join(f8)} to CPU code: "
            "lighthouse passes such tensors, but cannot yet compute on them)"
            if f8
            else ""
        )
        raise CompileError(
            f"pipeline {name!r} ({pipeline}) left {len(leftovers)} operation(s) it could not "
            f"lower to the LLVM dialect:\n{listed}{note}"
        )
    if packed:
        op, element = packed[0]
        bits = element.width
        raise CompileError(
            f"pipeline {name!r} ({pipeline}) made vector loads or stores of {element} "
            f"('{op.name}' at {op.location}, {len(packed)} in all): LLVM packs the elements "
            f"of such vectors, {bits} bits each, where buffers hold one {element} a byte, so "
            "the code would read and write the wrong elements; lighthouse's strategies "
            "leave ops on such types scalar (a strategy given in the module, or a pipeline "
            "of one's own, vectorized them)"
        )


# The LLVM ops that load or store a vector from or to memory, and which of
# their results or operands is the vector.
_VECTOR_MEMORY_OPS = {
    "llvm.load": ("result", 0),
    "llvm.store": ("operand", 0),
    "llvm.intr.masked.load": ("result", 0),
    "llvm.intr.masked.store": ("operand", 0),
    "llvm.intr.masked.gather": ("result", 0),
    "llvm.intr.masked.scatter": ("operand", 0),
    "llvm.intr.masked.expandload": ("result", 0),
    "llvm.intr.masked.compressstore": ("operand", 0),
}


def _element_type(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def _sub_byte_vector_element(t: ir.Type) -> Optional[ir.Type]:
    """The element type of `t` if it is a vector of integers of a width that is
    not a whole number of bytes (i4, i1), else None: LLVM lays out a scalar
    i4 in a byte of its own, as lighthouse's buffers hold them, but packs a
    vector<16xi4> into 8 bytes."""
    if not isinstance(t, ir.VectorType):
        return None
    element = t.element_type
    if isinstance(element, ir.IntegerType) and element.width % 8:
        return element
    return None


def _function_specs(function) -> tuple:
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)

    def spec(index, t, what):
        if isinstance(t, (ir.IntegerType, ir.FloatType)):
            return _TensorSpec.of_scalar_type(str(t))
        if isinstance(t, ir.IndexType):
            return _TensorSpec.of_scalar_type("i64")  # As it crosses.
        try:
            return _TensorSpec.of_type(ir.RankedTensorType(t))
        except ValueError:
            raise NotImplementedError(
                f"{what} {index} of the compiled function is {t}; lighthouse passes "
                "ranked tensors and scalars only"
            ) from None

    def specs(types, what):
        return [spec(index, t, what) for index, t in enumerate(types)]

    return specs(function_type.inputs, "argument"), specs(function_type.results, "result")


# A value tensor of torch's dialect with an unsigned element type, as the ONNX
# and FX importers declare a model's uint8 ... uint64 (and ONNX's uint4) tensors.
_UNSIGNED_TENSOR = re.compile(r"!torch\.vtensor<(?:\[[^\]]*\]|\*),(ui(?:4|8|16|32|64))>")

_Declared = Tuple[List[Optional[str]], List[Optional[str]]]


def _declared_unsigned(raw: ir.Module, function_name: str) -> _Declared:
    """The unsigned element type ("ui8", ...) that the torch-dialect IR `raw`
    (as imported: the ONNX graph's declared input and output types, or the
    exported program's dtypes) gives each argument and result of
    @`function_name`, None where it gives none. torch-mlir's lowering makes
    them signless (i8): only the model says they are unsigned."""
    for op in raw.body.operations:
        if (
            op.operation.name == "func.func"
            and ir.StringAttr(op.attributes["sym_name"]).value == function_name
        ):
            function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)

            def unsigned(types) -> List[Optional[str]]:
                found = [_UNSIGNED_TENSOR.fullmatch(str(t)) for t in types]
                return [match and match.group(1) for match in found]

            return unsigned(function_type.inputs), unsigned(function_type.results)
    raise ValueError(f"no function @{function_name} in the imported module")


def _declare_unsigned(function_name: str, specs: list, declared: list, what: str) -> None:
    """Makes the parameters of `specs` that the model declares unsigned cross so."""
    if len(declared) != len(specs):
        if any(declared):
            raise CompileError(
                f"@{function_name} has {len(specs)} {what}s after lowering, the model "
                f"{len(declared)}: lighthouse cannot tell which are unsigned (a lighthouse bug)"
            )
        return
    for index, (spec, element) in enumerate(zip(specs, declared)):
        if element is not None:
            try:
                spec.as_unsigned(element)
            except ValueError as error:
                raise CompileError(f"{what} {index} of @{function_name}: {error}") from None


def _finish(
    module: ir.Module,
    function_name: str,
    options: CompileOptions,
    pipeline_text: str,
    stages: _Stages,
    constants: Optional[Dict[int, Any]] = None,
    unsigned: Optional[_Declared] = None,
) -> CompiledModule:
    """Lowers linalg IR through the pipeline and JIT-compiles @`function_name`,
    or loads it from the cache. `constants` are the arguments whose value the
    code is specialized to, by position; `unsigned`, the unsigned element
    types the model declares (`_declared_unsigned`), which its signless
    integers cross as."""
    from . import runtime_library_paths

    functions = {
        ir.StringAttr(op.attributes["sym_name"]).value: op
        for op in module.body.operations
        if op.operation.name == "func.func"
    }
    if function_name not in functions:
        raise ValueError(
            f"no function @{function_name} in the module; it has "
            f"{', '.join('@' + n for n in functions) or 'none'}"
        )
    arguments, results = _function_specs(functions[function_name])
    if unsigned is not None:
        _declare_unsigned(function_name, arguments, unsigned[0], "argument")
        _declare_unsigned(function_name, results, unsigned[1], "result")
    for index, value in (constants or {}).items():
        if index < len(arguments) and arguments[index].scalar:
            arguments[index].value = value
    if any(spec.scalar for spec in (*arguments, *results)):
        # The calling convention passes buffers: scalars cross as 0-d tensors.
        try:
            PassManager.parse("builtin.module(lighthouse-scalars-as-tensors)").run(module.operation)
        except ir.MLIRError as error:
            raise CompileError(f"passing scalars as 0-d tensors failed:\n{error}") from None
    if not options.runtime_checks:
        # Read by lighthouse-insert-runtime-checks; part of the cache key.
        with module.context:
            module.operation.attributes["lighthouse.runtime_checks"] = ir.BoolAttr.get(False)
    stages.record("linalg", module)
    cached = None
    if options.cache_dir is not None:
        cached = os.path.join(
            os.path.expanduser(options.cache_dir),
            saved.cache_key(
                module,
                function_name,
                pipeline_text,
                options.opt_level,
                options.unroll_loops,
                # Models of one linalg IR may differ in what crosses as unsigned.
                signature=(arguments, results),
            ),
        )
        if saved.is_saved(cached):
            return stages.timed(
                "cache-load", lambda: load(cached, timings=stages.timings, ir=stages.ir)
            )
    try:
        stages.timed("pipeline", lambda: _run_pipeline(module, options.pipeline, pipeline_text))
    except MemoryError as error:
        raise _explain.out_of_memory(f"the pipeline {options.pipeline!r}", error, module) from None
    stages.record("llvm", module)
    # Translation to LLVM IR reports why it fails as MLIR diagnostics on the
    # context, which would otherwise go to stderr and leave the error bare.
    diagnostics = []
    handler = module.context.attach_diagnostic_handler(_explain.diagnostic_collector(diagnostics))
    stage = "jit"
    try:
        engine = stages.timed(
            "jit",
            lambda: create_execution_engine(
                module,
                options.opt_level,
                options.unroll_loops,
                options.jit_threads,
                runtime_library_paths(),
            ),
        )
        stage = "jit-lookup"
        address = stages.timed(
            "jit-lookup", lambda: engine.lookup(f"_mlir__mlir_ciface_{function_name}")
        )
    except RuntimeError as error:
        raise CompileError(
            f"the JIT could not produce @{function_name}: "
            f"{_explain.jit_reason(str(error), diagnostics, stage, function_name)}"
        ) from None
    except MemoryError as error:
        raise _explain.out_of_memory("the JIT (translation to LLVM IR)", error, module) from None
    finally:
        handler.detach()
    compiled = CompiledModule(
        address,
        engine,
        function_name,
        arguments,
        results,
        pipeline_text,
        timings=stages.timings,
        ir=stages.ir,
    )
    if cached is not None:
        stages.timed("cache-save", lambda: compiled.save(cached))
    return compiled


def compile(
    model,
    example_inputs=(),
    *,
    dynamic_shapes: Any = None,
    options: Optional[CompileOptions] = None,
    **overrides,
) -> CompiledModule:
    """Compiles a PyTorch model to a native CPU callable.

    Args:
      model: a `torch.nn.Module` or a `torch.export.ExportedProgram`.
      example_inputs: inputs to export with (a tuple).
      dynamic_shapes: as for `torch.export.export`, e.g. a dynamic batch.
      options: how to compile (`CompileOptions`).
      **overrides: fields of `CompileOptions` (`pipeline="loops"`, say), which
        win over `options`.

    Returns:
      A `CompiledModule` taking torch tensors or numpy arrays and returning
      the same kind, one array or a tuple as the model returns.
    """
    from .ingress import torch as torch_ingress
    from .ingress._torch_mlir import start_lowering_process

    options = _resolve_options(options, overrides)
    pipeline_text = _resolve_pipeline(options.pipeline)
    stages = _Stages(options.dump_ir)
    start_lowering_process()
    with ir.Context():
        # torch.export's traces timed apart from lighthouse's own stages.
        program = stages.timed(
            "export",
            lambda: torch_ingress.export(model, example_inputs, dynamic_shapes=dynamic_shapes),
        )
        raw = stages.timed("import", lambda: torch_ingress.import_model(program, decompositions={}))
        stages.record("torch", raw)
        linalg = stages.timed(
            "lower-to-linalg",
            lambda: torch_ingress.lower_to_linalg(raw, time_limit=options.lowering_time_limit),
        )
        return _finish(
            linalg,
            "main",
            options,
            pipeline_text,
            stages,
            _exported_constants(program),
            _declared_unsigned(raw, "main"),
        )


def _exported_constants(program) -> Dict[int, Any]:
    """The inputs torch.export made constants of the model (the Python numbers
    among the example inputs), by position: the compiled code takes them but
    computes with the traced value."""
    from torch.export.graph_signature import ConstantArgument, InputKind

    users = [s for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    return {
        index: spec.arg.value
        for index, spec in enumerate(users)
        if isinstance(spec.arg, ConstantArgument) and isinstance(spec.arg.value, (bool, int, float))
    }


def compile_onnx(
    model, *, options: Optional[CompileOptions] = None, **kwargs
) -> Union[CompiledModule, SpecializedModule]:
    """Compiles an ONNX model (a path or a `ModelProto`) to a native CPU callable.

    The callable takes arrays in the order of the graph's inputs and returns
    one array, or a tuple for several outputs. Keyword arguments named after
    fields of `CompileOptions` win over `options`; the others go to
    `lighthouse.ingress.onnx.load`.

    A model that cannot be lowered because an op takes its axes, bounds or
    scales from a graph input gives a `lighthouse.specialized.SpecializedModule`,
    which compiles the model at each call for the values of those inputs.
    """
    from .ingress import onnx as onnx_ingress
    from .ingress._onnx_specialize import (
        bind_inputs,
        declared_inputs,
        value_determined_inputs,
    )
    from .ingress._torch_mlir import start_lowering_process
    from .ingress._unsigned import STAGE as unsigned_check

    overrides = {name: value for name, value in kwargs.items() if name in _OPTION_NAMES}
    load_options = {name: value for name, value in kwargs.items() if name not in overrides}
    options = _resolve_options(options, overrides)
    pipeline_text = _resolve_pipeline(options.pipeline)
    start_lowering_process()

    def compile_loaded(proto, **load_options) -> CompiledModule:
        stages = _Stages(options.dump_ir)
        with ir.Context():
            raw, linalg = onnx_ingress.import_and_lower(
                proto,
                run_stage=stages.timed,
                time_limit=options.lowering_time_limit,
                **load_options,
            )
            stages.record("torch-onnx", raw)
            function_name = ir.StringAttr(raw.body.operations[0].attributes["sym_name"]).value
            return _finish(
                linalg,
                function_name,
                options,
                pipeline_text,
                stages,
                unsigned=_declared_unsigned(raw, function_name),
            )

    try:
        return compile_loaded(model, **load_options)
    except onnx_ingress.LoweringError as error:
        if error.stage == unsigned_check:
            raise  # A refusal that no constant changes.
        proto = onnx_ingress.load(model, **load_options)
        specialized = value_determined_inputs(proto, error.nodes)
        if not specialized:
            raise
        return SpecializedModule(
            declared_inputs(proto),
            specialized,
            lambda values: compile_loaded(bind_inputs(proto, values)),
            reason=f"without their values: {str(error).splitlines()[0].rstrip(':')}",
        )


def compile_module(
    module, function: str = "main", *, options: Optional[CompileOptions] = None, **overrides
) -> CompiledModule:
    """Compiles linalg-on-tensors IR (a module, or its text: a str or UTF-8 bytes)
    to a native CPU callable.

    The module is consumed: the pipeline rewrites it in place. `options` and
    `overrides` are as for `compile`.
    """
    options = _resolve_options(options, overrides)
    pipeline_text = _resolve_pipeline(options.pipeline)
    stages = _Stages(options.dump_ir)
    if isinstance(module, (str, bytes, bytearray)):
        with ir.Context():
            module = _explain.parse_text(module)
    elif not isinstance(module, ir.Module):
        raise TypeError(f"expected an ir.Module or its text, got {type(module).__name__}")
    with module.context:
        return _finish(module, function, options, pipeline_text, stages)
