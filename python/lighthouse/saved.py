"""Compiled code on disk: saved modules and the compile cache.

A saved module is a folder holding the code, a shared library linked from the
JIT's object files, and a manifest (versions, function, pipeline, signature).
`load` runs it without compiling; `compile(..., cache_dir=...)` keeps one such
folder per key.
"""

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Optional, Sequence

from ._version import LIGHTHOUSE_VERSION, MLIR_VERSION
from .compiled import CompiledModule, _TensorSpec

__all__ = ["cache_key", "is_saved", "link_shared_library", "load", "save"]

# A saved CompiledModule: a folder with the code and a manifest.
_FORMAT = 1
_LIBRARY = "module.so"
_MANIFEST = "manifest.json"


def link_shared_library(object_files: Sequence[str], library: str) -> None:
    """Links the JIT's object files into a shared library that finds lighthouse's
    runtime libraries where the package keeps them."""
    from . import runtime_library_paths
    from .compiler import CompileError

    linker = (
        os.environ.get("CC") or shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    )
    if linker is None:
        raise CompileError("saving compiled code needs a C compiler to link it (set CC)")
    runtime = runtime_library_paths()
    libs_dir = os.path.dirname(runtime[0]) if runtime else ""
    command = [
        linker,
        "-shared",
        *object_files,
        "-o",
        library,
        *runtime,
        "-lm",
        f"-Wl,-rpath,{libs_dir}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"linking {library} failed: {' '.join(command)}\n{result.stderr}")


def save(
    path,
    code,
    *,
    function_name: str,
    pipeline: str,
    arguments: Sequence[_TensorSpec],
    results: Sequence[_TensorSpec],
) -> None:
    """Writes `code` (lighthouse's execution engine, or the `ctypes.CDLL` of a
    saved module) and its manifest to the folder `path`."""
    path = os.path.expanduser(path)
    os.makedirs(path, exist_ok=True)
    library = os.path.join(path, _LIBRARY)
    if isinstance(code, ctypes.CDLL):  # Loaded from a folder.
        shutil.copyfile(code._name, library)
    else:
        with tempfile.TemporaryDirectory(prefix="lighthouse-") as scratch:
            object_files = []
            for index, data in enumerate(code.objects()):
                object_files.append(os.path.join(scratch, f"part{index}.o"))
                with open(object_files[-1], "wb") as f:
                    f.write(data)
            link_shared_library(object_files, library)
    manifest = {
        "format": _FORMAT,
        "lighthouse": LIGHTHOUSE_VERSION,
        "mlir": MLIR_VERSION,
        "function": function_name,
        "pipeline": pipeline,
        "arguments": [a.to_json() for a in arguments],
        "results": [r.to_json() for r in results],
    }
    with open(os.path.join(path, _MANIFEST), "w") as f:
        json.dump(manifest, f, indent=2)


def load(path, *, timings: Optional[dict] = None, ir: Optional[dict] = None) -> CompiledModule:
    """Loads code saved by `CompiledModule.save`, without recompiling.

    Args:
      path: the folder it was saved to.
      timings, ir: the loaded module's `timings` and `ir` (a compilation that
        found it in its cache passes its own).

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
            "compile it again"
        )
    library = ctypes.CDLL(os.path.abspath(os.path.join(path, _LIBRARY)))
    function = library[f"_mlir__mlir_ciface_{manifest['function']}"]
    arguments, results = [
        [_TensorSpec.from_json(t) for t in manifest[kind]] for kind in ("arguments", "results")
    ]
    return CompiledModule(
        ctypes.cast(function, ctypes.c_void_p).value,
        library,
        manifest["function"],
        arguments,
        results,
        manifest["pipeline"],
        timings=timings,
        ir=ir,
    )


def cache_key(
    module, function_name: str, pipeline_text: str, opt_level: int, unroll_loops: bool
) -> str:
    """The compile cache's key for `module` (linalg IR, an `ir.Module`): its
    text and everything else the compiled code depends on."""
    from . import plugins

    digest = hashlib.sha256()
    for part in (
        LIGHTHOUSE_VERSION,
        MLIR_VERSION,
        function_name,
        pipeline_text,
        str(opt_level),
        str(unroll_loops),
        plugins.loaded_plugins_identity(),
    ):
        digest.update(part.encode() + b"\0")
    digest.update(module.operation.get_asm(binary=True, print_generic_op_form=True))
    return digest.hexdigest()[:32]


def is_saved(path) -> bool:
    """Whether the folder `path` holds a saved module."""
    return os.path.isfile(os.path.join(path, _MANIFEST))
