"""The last stages of every entry point: linalg IR through the pipeline and
lighthouse's JIT to a `CompiledModule`, or out of the compile cache."""

import os
from typing import Any, Dict, Optional

from .. import ir
from .._mlir_libs._lighthouse import create_execution_engine
from ..errors import CompileError
from ..passmanager import PassManager
from ..execution import CompiledModule, load, runtime_library_paths
from ..execution.cache import cache_key, remember_model
from ..execution.saved import is_saved
from . import explain
from .options import CompileOptions
from .pipelines import run_pipeline
from .signature import Declared, declare_unsigned, function_specs
from .stages import Stages

__all__ = ["load_cached", "lower_and_jit"]


def load_cached(path: str, stages: Stages) -> CompiledModule:
    """The compile cache's entry `path`, loaded, with this compilation's stages."""
    return stages.timed(
        "cache-load",
        lambda: load(path, timings=stages.timings, ir=stages.ir, peak_rss=stages.peak_rss),
    )


def lower_and_jit(
    module: ir.Module,
    function_name: str,
    options: CompileOptions,
    pipeline_text: str,
    stages: Stages,
    constants: Optional[Dict[int, Any]] = None,
    unsigned: Optional[Declared] = None,
    model_key: Optional[str] = None,
) -> CompiledModule:
    """Lowers linalg IR through the pipeline and JIT-compiles @`function_name`,
    or loads it from the cache. `constants` are the arguments whose value the
    code is specialized to, by position; `unsigned`, the unsigned element
    types the model declares (`signature.declared_unsigned`), which its signless
    integers cross as; `model_key`, the cache's key of the model the IR came
    from (`cache.model_key`), noted with the entry it compiles into."""
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
    arguments, results = function_specs(functions[function_name])
    if unsigned is not None:
        declare_unsigned(function_name, arguments, unsigned[0], "argument")
        declare_unsigned(function_name, results, unsigned[1], "result")
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
        cache_dir = os.path.expanduser(options.cache_dir)
        cached = os.path.join(
            cache_dir,
            cache_key(
                module,
                function_name,
                pipeline_text,
                options.opt_level,
                options.unroll_loops,
                # Models of one linalg IR may differ in what crosses as unsigned.
                signature=(arguments, results),
            ),
        )
        if is_saved(cached):
            if model_key is not None:
                remember_model(cache_dir, model_key, cached)
            return load_cached(cached, stages)
    try:
        stages.timed("pipeline", lambda: run_pipeline(module, options.pipeline, pipeline_text))
    except MemoryError as error:
        raise explain.out_of_memory(f"the pipeline {options.pipeline!r}", error, module) from None
    stages.record("llvm", module)
    # Translation to LLVM IR reports why it fails as MLIR diagnostics on the
    # context, which would otherwise go to stderr and leave the error bare.
    diagnostics = []
    handler = module.context.attach_diagnostic_handler(explain.diagnostic_collector(diagnostics))
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
        for step, seconds in engine.phases():
            stages.add(f"jit.{step}", seconds)
    except RuntimeError as error:
        raise CompileError(
            f"the JIT could not produce @{function_name}: "
            f"{explain.jit_reason(str(error), diagnostics, stage, function_name)}"
        ) from None
    except MemoryError as error:
        raise explain.out_of_memory("the JIT (translation to LLVM IR)", error, module) from None
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
        peak_rss=stages.peak_rss,
    )
    if cached is not None:
        stages.timed("cache-save", lambda: compiled.save(cached))
        if model_key is not None:
            remember_model(cache_dir, model_key, cached)
    return compiled
