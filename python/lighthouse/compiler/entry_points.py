"""The compiler's entry points: models in, native CPU callables out.

    compiled = lighthouse.compile(model, (x,))        # a torch.nn.Module
    y = compiled(x)                                    # torch in, torch out

    compiled = lighthouse.compile_onnx("model.onnx")
    y = compiled(x)                                    # numpy in, numpy out

A model goes through `lighthouse.ingress` to linalg on tensors, then through
a named pass pipeline (`PIPELINES`, by default lighthouse's C++
`lighthouse-cpu`) to the LLVM dialect, and is JIT-compiled by lighthouse's
execution engine (LLVM, on several threads). Arrays are passed to and
returned from the compiled code without copies: inputs are read in place,
and results are buffers the compiled code allocated, handed to numpy (or
torch) with their ownership. How each entry point compiles is a
`CompileOptions`, given whole (`options=`) or field by field as keyword
arguments; the code they return is a `CompiledModule` (`lighthouse.execution`),
which can be saved and loaded again (`lighthouse.load`).
"""

import os
from typing import Any, Dict, Optional, Union

from .. import ir
from ..execution import CompiledModule, SpecializedModule, cache
from . import explain
from .jit import load_cached, lower_and_jit
from .options import OPTION_NAMES, CompileOptions, resolve_options
from .pipelines import resolve_pipeline
from .signature import declared_unsigned
from .stages import Stages

__all__ = ["compile", "compile_module", "compile_onnx"]


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
    options = resolve_options(options, overrides)
    pipeline_text = resolve_pipeline(options.pipeline)
    stages = Stages(options.dump_ir)
    model_key = None
    if options.cache_dir is not None:
        # Found by the model's fingerprint, a cached compilation skips
        # torch.export too.
        model_key = stages.timed(
            "cache-fingerprint",
            lambda: _model_key(model, example_inputs, dynamic_shapes, options, pipeline_text),
        )
        entry = model_key and cache.entry_of_model(os.path.expanduser(options.cache_dir), model_key)
        if entry:
            return load_cached(entry, stages)
    # Imported here: torch-mlir's importer takes 0.5 s to import, which a
    # model found in the cache does without.
    from ..ingress import torch as torch_ingress
    from ..ingress.torch_mlir import start_lowering_process

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
        return lower_and_jit(
            linalg,
            "main",
            options,
            pipeline_text,
            stages,
            _exported_constants(program),
            declared_unsigned(raw, "main"),
            model_key,
        )


def _model_key(
    model, example_inputs, dynamic_shapes, options: CompileOptions, pipeline_text: str
) -> Optional[str]:
    """The compile cache's key of `model` before it is exported, or None
    where its fingerprint cannot be taken."""
    from ..ingress.torch_fingerprint import fingerprint

    taken = fingerprint(model, example_inputs, dynamic_shapes)
    if taken is None:
        return None
    return cache.model_key(
        taken,
        "main",
        pipeline_text,
        options.opt_level,
        options.unroll_loops,
        options.runtime_checks,
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
    scales from a graph input gives a `lighthouse.SpecializedModule`,
    which compiles the model at each call for the values of those inputs.
    """
    from ..ingress import onnx as onnx_ingress
    from ..ingress.onnx.specialize import (
        bind_inputs,
        declared_inputs,
        value_determined_inputs,
    )
    from ..ingress.torch_mlir import start_lowering_process
    from ..ingress.torch_mlir.unsigned import STAGE as unsigned_check

    overrides = {name: value for name, value in kwargs.items() if name in OPTION_NAMES}
    load_options = {name: value for name, value in kwargs.items() if name not in overrides}
    options = resolve_options(options, overrides)
    pipeline_text = resolve_pipeline(options.pipeline)
    start_lowering_process()

    def compile_loaded(proto, **load_options) -> CompiledModule:
        stages = Stages(options.dump_ir)
        with ir.Context():
            raw, linalg = onnx_ingress.import_and_lower(
                proto,
                run_stage=stages.timed,
                time_limit=options.lowering_time_limit,
                **load_options,
            )
            stages.record("torch-onnx", raw)
            function_name = ir.StringAttr(raw.body.operations[0].attributes["sym_name"]).value
            return lower_and_jit(
                linalg,
                function_name,
                options,
                pipeline_text,
                stages,
                unsigned=declared_unsigned(raw, function_name),
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
    options = resolve_options(options, overrides)
    pipeline_text = resolve_pipeline(options.pipeline)
    stages = Stages(options.dump_ir)
    if isinstance(module, (str, bytes, bytearray)):
        with ir.Context():
            module = explain.parse_text(module)
    elif not isinstance(module, ir.Module):
        raise TypeError(f"expected an ir.Module or its text, got {type(module).__name__}")
    with module.context:
        return lower_and_jit(module, function, options, pipeline_text, stages)
