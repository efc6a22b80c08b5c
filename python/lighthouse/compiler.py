"""Models in, native CPU callables out.

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
torch) with their ownership.
"""

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, Sequence

import numpy as np

from . import ir
from ._mlir_libs._lighthouse import NativeFunction, create_execution_engine, release_buffers
from ._version import LIGHTHOUSE_VERSION, MLIR_VERSION
from .passmanager import PassManager

__all__ = ["PIPELINES", "CompileError", "CompiledModule", "compile", "compile_module",
           "compile_onnx", "load", "release_buffers"]

# A saved CompiledModule: a folder with the code and a manifest.
_FORMAT = 1
_LIBRARY = "module.so"
_MANIFEST = "manifest.json"

#: Pipelines by name, from linalg on tensors to the LLVM dialect.
PIPELINES: Dict[str, str] = {
    "default": "builtin.module(lighthouse-cpu)",
    "fast": "builtin.module(lighthouse-cpu-fast)",
}

_ELEMENT_TYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8,
}

# OpenMP threads that wait for work after a parallel region spin for 200 ms by
# default, taking the cores from everything else in the process (PyTorch's own
# threads, say); yield them at once instead, unless the user chose otherwise.
os.environ.setdefault("KMP_BLOCKTIME", "0")


class CompileError(RuntimeError):
    """A pipeline failed, or left operations that native code cannot hold."""


class _TensorSpec:
    """A tensor argument or result of the compiled function."""

    def __init__(self, dtype: np.dtype, shape: list):
        self.dtype = np.dtype(dtype)
        self.shape = list(shape)  # None for a dynamic dimension

    @classmethod
    def of_type(cls, tensor_type: ir.RankedTensorType) -> "_TensorSpec":
        element = str(tensor_type.element_type)
        if element not in _ELEMENT_TYPES:
            raise NotImplementedError(
                f"lighthouse cannot yet pass tensors of {element} to compiled code")
        return cls(_ELEMENT_TYPES[element],
                   [None if tensor_type.is_dynamic_dim(i) else tensor_type.shape[i]
                    for i in range(tensor_type.rank)])

    def native(self) -> tuple:
        """As `NativeFunction` takes it."""
        return (self.dtype.kind, self.dtype.itemsize,
                [-1 if d is None else d for d in self.shape])

    def to_json(self) -> dict:
        return {"dtype": self.dtype.name, "shape": self.shape}

    def describe(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"


def _function_specs(function) -> tuple:
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)

    def spec(index, t, what):
        try:
            return _TensorSpec.of_type(ir.RankedTensorType(t))
        except ValueError:
            raise NotImplementedError(
                f"{what} {index} of the compiled function is {t}; lighthouse passes "
                "ranked tensors only") from None

    def specs(types, what):
        return [spec(index, t, what) for index, t in enumerate(types)]

    return specs(function_type.inputs, "argument"), specs(function_type.results, "result")


class CompiledModule:
    """A JIT-compiled function; call it with arrays like the model it came from.

    Arrays are passed without copies when C-contiguous; results are arrays of
    the kind of the arguments (torch tensors if any argument is one), over
    buffers the compiled code allocated and hands over.

    Attributes:
      pipeline: the pass pipeline it was compiled with.
      timings: seconds spent in each compilation stage.
      ir: the IR after each stage, when compiled with `dump_ir`.
    """

    def __init__(self, address, keep_alive, function_name, arguments, results, pipeline,
                 timings, stages_ir):
        # The packed entry point `_mlir_<function_name>` at `address`.
        self._function = NativeFunction(address, [a.native() for a in arguments],
                                         [r.native() for r in results])
        self._keep_alive = keep_alive  # The engine or library holding the code.
        self._function_name = function_name
        self._arguments = arguments
        self._results = results
        self.pipeline = pipeline
        self.timings = timings
        self.ir = stages_ir

    def signature(self) -> str:
        arguments = ", ".join(a.describe() for a in self._arguments)
        results = ", ".join(r.describe() for r in self._results)
        return f"{self._function_name}({arguments}) -> ({results})"

    def __repr__(self):
        return f"<lighthouse.CompiledModule {self.signature()}>"

    def save(self, path) -> None:
        """Saves the compiled code (a shared library) and a manifest to the folder
        `path`; `lighthouse.compiler.load(path)` runs it without recompiling."""
        path = os.path.expanduser(path)
        os.makedirs(path, exist_ok=True)
        library = os.path.join(path, _LIBRARY)
        if isinstance(self._keep_alive, ctypes.CDLL):  # Loaded from a folder.
            shutil.copyfile(self._keep_alive._name, library)
        else:
            with tempfile.TemporaryDirectory(prefix="lighthouse-") as scratch:
                object_files = []
                for index, data in enumerate(self._keep_alive.objects()):
                    object_files.append(os.path.join(scratch, f"part{index}.o"))
                    with open(object_files[-1], "wb") as f:
                        f.write(data)
                _link_shared_library(object_files, library)
        manifest = {
            "format": _FORMAT,
            "lighthouse": LIGHTHOUSE_VERSION,
            "mlir": MLIR_VERSION,
            "function": self._function_name,
            "pipeline": self.pipeline,
            "arguments": [a.to_json() for a in self._arguments],
            "results": [r.to_json() for r in self._results],
        }
        with open(os.path.join(path, _MANIFEST), "w") as f:
            json.dump(manifest, f, indent=2)

    def _check_argument(self, index: int, value, spec: _TensorSpec, torch) -> np.ndarray:
        if torch is not None and isinstance(value, torch.Tensor):
            if value.device.type != "cpu":
                raise TypeError(f"argument {index}: lighthouse runs on the CPU, the tensor "
                                f"is on {value.device}")
            value = value.detach().numpy()
        elif not isinstance(value, np.ndarray):
            raise TypeError(f"argument {index}: expected a numpy array or a torch tensor "
                            f"of {spec.describe()}, got {type(value).__name__}")
        if value.dtype != spec.dtype:
            raise TypeError(f"argument {index}: expected {spec.dtype} elements, got "
                            f"{value.dtype}")
        if value.ndim != len(spec.shape):
            raise ValueError(f"argument {index}: expected rank {len(spec.shape)} "
                             f"({spec.describe()}), got shape {tuple(value.shape)}")
        for dim, (expected, actual) in enumerate(zip(spec.shape, value.shape)):
            if expected is not None and expected != actual:
                raise ValueError(f"argument {index}: dimension {dim} must be {expected} "
                                 f"({spec.describe()}), got shape {tuple(value.shape)}")
        return value if value.flags.c_contiguous else np.ascontiguousarray(value)

    def __call__(self, *args):
        torch = sys.modules.get("torch")
        outputs = self._function(*args)
        if outputs is None:
            # An argument is not a contiguous array of the expected dtype and
            # shape: check it, then report or convert it.
            if len(args) != len(self._arguments):
                raise TypeError(f"{self.signature()} takes {len(self._arguments)} "
                                f"arguments, got {len(args)}")
            outputs = self._function(*[self._check_argument(i, a, s, torch) for i, (a, s)
                                       in enumerate(zip(args, self._arguments))])
            if outputs is None:
                kinds = ", ".join(type(a).__name__ for a in args)
                raise TypeError(f"lighthouse could not pass ({kinds}) to {self.signature()} "
                                "although they passed its checks: a lighthouse bug")
        # Results are of the kind the arguments are.
        if torch is not None and any(isinstance(a, torch.Tensor) for a in args):
            outputs = [torch.from_numpy(o) for o in outputs]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _timed(timings: dict, stage: str, function):
    start = time.perf_counter()
    result = function()
    timings[stage] = time.perf_counter() - start
    return result


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
    raise ValueError(f"unknown pipeline {pipeline!r}: use one of {known}, or a pass "
                     "pipeline string 'builtin.module(...)'")


def _record(stages_ir, dump_ir, stage: str, module: ir.Module):
    if not dump_ir:
        return
    text = module.operation.get_asm(large_elements_limit=16)
    stages_ir[stage] = text
    if isinstance(dump_ir, (str, os.PathLike)):
        os.makedirs(dump_ir, exist_ok=True)
        with open(os.path.join(dump_ir, f"{len(stages_ir)}-{stage}.mlir"), "w") as f:
            f.write(text)


def _run_pipeline(module: ir.Module, name: str, pipeline: str):
    try:
        PassManager.parse(pipeline).run(module.operation)
    except ir.MLIRError as error:
        raise CompileError(f"pipeline {name!r} ({pipeline}) failed:\n{error}") from None
    leftovers = []

    def check(op):
        # The OpenMP dialect (threads) translates to LLVM IR as the LLVM one does.
        if op.name.split(".")[0] not in ("llvm", "builtin", "omp"):
            leftovers.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(check)
    if leftovers:
        listed = "\n".join(f"  '{op.name}' at {op.location}" for op in leftovers[:10])
        raise CompileError(
            f"pipeline {name!r} ({pipeline}) left {len(leftovers)} operation(s) it could not "
            f"lower to the LLVM dialect:\n{listed}")


def _link_shared_library(object_files: Sequence[str], library: str) -> None:
    """Links the JIT's object files into a shared library that finds lighthouse's
    runtime libraries where the package keeps them."""
    from . import runtime_library_paths

    linker = os.environ.get("CC") or shutil.which("cc") or shutil.which("clang") or \
        shutil.which("gcc")
    if linker is None:
        raise CompileError("saving compiled code needs a C compiler to link it (set CC)")
    runtime = runtime_library_paths()
    libs_dir = os.path.dirname(runtime[0]) if runtime else ""
    command = [linker, "-shared", *object_files, "-o", library, *runtime, "-lm",
               f"-Wl,-rpath,{libs_dir}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"linking {library} failed: {' '.join(command)}\n{result.stderr}")


def load(path) -> CompiledModule:
    """Loads code saved by `CompiledModule.save`, without recompiling.

    Raises:
      FileNotFoundError: `path` holds no saved module.
      ValueError: it was saved by another lighthouse or MLIR version.
    """
    path = os.path.expanduser(path)
    manifest_path = os.path.join(path, _MANIFEST)
    if not os.path.isfile(manifest_path):
        raise FileNotFoundError(f"no compiled module saved in {path} (no {_MANIFEST})")
    with open(manifest_path) as f:
        manifest = json.load(f)
    saved_by = (manifest.get("format"), manifest.get("lighthouse"), manifest.get("mlir"))
    if saved_by != (_FORMAT, LIGHTHOUSE_VERSION, MLIR_VERSION):
        raise ValueError(
            f"{path} was saved by lighthouse {saved_by[1]} on MLIR {saved_by[2]} (format "
            f"{saved_by[0]}); this is lighthouse {LIGHTHOUSE_VERSION} on MLIR {MLIR_VERSION}: "
            "compile it again")
    library = ctypes.CDLL(os.path.abspath(os.path.join(path, _LIBRARY)))
    function = library[f"_mlir__mlir_ciface_{manifest['function']}"]
    specs = [[_TensorSpec(t["dtype"], t["shape"]) for t in manifest[kind]]
             for kind in ("arguments", "results")]
    return CompiledModule(ctypes.cast(function, ctypes.c_void_p).value, library,
                          manifest["function"], *specs,
                          manifest["pipeline"], {}, {})


def _cache_key(module: ir.Module, function_name: str, pipeline_text: str,
               opt_level: int, unroll_loops: bool) -> str:
    from . import plugins

    digest = hashlib.sha256()
    for part in (LIGHTHOUSE_VERSION, MLIR_VERSION, function_name, pipeline_text,
                 str(opt_level), str(unroll_loops), plugins.loaded_plugins_identity()):
        digest.update(part.encode() + b"\0")
    digest.update(module.operation.get_asm(binary=True, print_generic_op_form=True))
    return digest.hexdigest()[:32]


def _finish(module: ir.Module, function_name: str, *, pipeline: str, pipeline_text: str,
            timings: dict, stages_ir: dict, dump_ir, opt_level: int, unroll_loops: bool,
            jit_threads: int, cache_dir=None) -> CompiledModule:
    from . import runtime_library_paths

    functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                 for op in module.body.operations if op.operation.name == "func.func"}
    if function_name not in functions:
        raise ValueError(f"no function @{function_name} in the module; it has "
                         f"{', '.join('@' + n for n in functions) or 'none'}")
    arguments, results = _function_specs(functions[function_name])
    _record(stages_ir, dump_ir, "linalg", module)
    cached = None
    if cache_dir is not None:
        cached = os.path.join(os.path.expanduser(cache_dir),
                              _cache_key(module, function_name, pipeline_text, opt_level,
                                         unroll_loops))
        if os.path.isfile(os.path.join(cached, _MANIFEST)):
            compiled = _timed(timings, "cache-load", lambda: load(cached))
            compiled.timings, compiled.ir = timings, stages_ir
            return compiled
    _timed(timings, "pipeline", lambda: _run_pipeline(module, pipeline, pipeline_text))
    _record(stages_ir, dump_ir, "llvm", module)
    try:
        engine = _timed(timings, "jit", lambda: create_execution_engine(
            module, opt_level, unroll_loops, jit_threads, runtime_library_paths()))
        address = _timed(timings, "jit-lookup",
                         lambda: engine.lookup(f"_mlir__mlir_ciface_{function_name}"))
    except RuntimeError as error:
        raise CompileError(f"the JIT could not produce @{function_name}: {error}") from None
    compiled = CompiledModule(address, engine, function_name, arguments,
                              results, pipeline_text, timings, stages_ir)
    compiled._context = module.context
    if cached is not None:
        _timed(timings, "cache-save", lambda: compiled.save(cached))
    return compiled


def compile(model, example_inputs: Sequence = (), *, dynamic_shapes: Any = None,
            pipeline: str = "default", dump_ir=None, opt_level: int = 3,
            unroll_loops: bool = False, jit_threads: int = 0,
            cache_dir=None) -> CompiledModule:
    """Compiles a PyTorch model to a native CPU callable.

    Args:
      model: a `torch.nn.Module` or a `torch.export.ExportedProgram`.
      example_inputs: inputs to export with (a tuple).
      dynamic_shapes: as for `torch.export.export`, e.g. a dynamic batch.
      pipeline: a name from `PIPELINES` or a plugin's, or a pipeline string.
      dump_ir: True to keep the IR of each stage in `.ir`; a folder to also
        write it there.
      opt_level: LLVM's optimization level for the JIT (0 to 3).
      unroll_loops: True lets LLVM unroll loops (it interleaves the loops it
        vectorizes either way): compiles 1.2x to 6x slower, and code that is
        not always faster (see docs/compile.md, "LLVM").
      jit_threads: threads LLVM compiles on, each a part of the module's
        functions (0: one per hardware thread that gets enough code).
      cache_dir: a folder of compiled code keyed on the linalg IR, the
        pipeline and the versions: a hit skips the pipeline and the JIT.

    Returns:
      A `CompiledModule` taking torch tensors or numpy arrays and returning
      the same kind, one array or a tuple as the model returns.
    """
    from .ingress import torch as torch_ingress

    timings: Dict[str, float] = {}
    stages_ir: Dict[str, str] = {}
    pipeline_text = _resolve_pipeline(pipeline)
    context = ir.Context()
    with context:
        # torch.export's traces timed apart from lighthouse's own stages.
        program = _timed(timings, "export", lambda: torch_ingress.export(
            model, example_inputs, dynamic_shapes=dynamic_shapes))
        raw = _timed(timings, "import",
                     lambda: torch_ingress.import_model(program, decompositions={}))
        _record(stages_ir, dump_ir, "torch", raw)
        linalg = _timed(timings, "lower-to-linalg", lambda: torch_ingress.lower_to_linalg(raw))
        return _finish(linalg, "main", pipeline=pipeline,
                       pipeline_text=pipeline_text, timings=timings,
                       stages_ir=stages_ir, dump_ir=dump_ir, opt_level=opt_level,
                       unroll_loops=unroll_loops, jit_threads=jit_threads,
                       cache_dir=cache_dir)


def compile_onnx(model, *, pipeline: str = "default", dump_ir=None, opt_level: int = 3,
                 unroll_loops: bool = False, jit_threads: int = 0, cache_dir=None,
                 **load_options) -> CompiledModule:
    """Compiles an ONNX model (a path or a `ModelProto`) to a native CPU callable.

    The callable takes arrays in the order of the graph's inputs and returns
    one array, or a tuple for several outputs. `load_options` go
    to `lighthouse.ingress.onnx.load`.
    """
    from .ingress import onnx as onnx_ingress

    timings: Dict[str, float] = {}
    stages_ir: Dict[str, str] = {}
    pipeline_text = _resolve_pipeline(pipeline)
    context = ir.Context()
    with context:
        def run_stage(stage, function):
            # Stages run again when ONNX functions are expanded: their sum.
            seconds = timings.get(stage, 0.0)
            result = _timed(timings, stage, function)
            timings[stage] += seconds
            return result

        raw, linalg = onnx_ingress.import_and_lower(model, run_stage=run_stage, **load_options)
        _record(stages_ir, dump_ir, "torch-onnx", raw)
        function_name = ir.StringAttr(raw.body.operations[0].attributes["sym_name"]).value
        return _finish(linalg, function_name, pipeline=pipeline,
                       pipeline_text=pipeline_text, timings=timings,
                       stages_ir=stages_ir, dump_ir=dump_ir, opt_level=opt_level,
                       unroll_loops=unroll_loops, jit_threads=jit_threads,
                       cache_dir=cache_dir)


def compile_module(module, function: str = "main", *, pipeline: str = "default",
                   dump_ir=None, opt_level: int = 3, unroll_loops: bool = False,
                   jit_threads: int = 0, cache_dir=None) -> CompiledModule:
    """Compiles linalg-on-tensors IR (a module, or its text) to a native CPU callable.

    The module is consumed: the pipeline rewrites it in place.
    """
    timings: Dict[str, float] = {}
    stages_ir: Dict[str, str] = {}
    pipeline_text = _resolve_pipeline(pipeline)
    if isinstance(module, str):
        context = ir.Context()
        with context:
            module = ir.Module.parse(module)
    with module.context:
        return _finish(module, function, pipeline=pipeline,
                       pipeline_text=pipeline_text, timings=timings,
                       stages_ir=stages_ir, dump_ir=dump_ir, opt_level=opt_level,
                       unroll_loops=unroll_loops, jit_threads=jit_threads,
                       cache_dir=cache_dir)
