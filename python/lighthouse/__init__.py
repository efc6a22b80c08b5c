"""lighthouse: a framework for building and testing MLIR-based compilers.

The MLIR Python bindings live under this package (`lighthouse.ir`,
`lighthouse.passmanager`, `lighthouse.dialects.*`, ...), built against one
MLIR release and isolated from any other MLIR bindings package in the process.
"""

import os as _os

from ._version import LIGHTHOUSE_VERSION, MLIR_VERSION

# A PEP 440 local version label carries the MLIR release the package holds.
__version__ = f"{LIGHTHOUSE_VERSION}+mlir{MLIR_VERSION}"

_RUNTIME_LIBRARIES = (
    "liblighthouse_runtime.so",
    "libmlir_c_runner_utils.so",
    "libmlir_runner_utils.so",
    "libomp.so",
)


def runtime_library_paths() -> list:
    """Returns the paths of the runtime support libraries shipped with lighthouse.

    JIT-compiled code may call into them (lighthouse's runtime checks, memref
    printing such as `printMemrefF32`, `memrefCopy` for non-contiguous copies,
    timers, and the OpenMP runtime for threads); pass them as
    `ExecutionEngine(module, shared_libs=lighthouse.runtime_library_paths())`.
    """
    libs_dir = _os.path.join(_os.path.dirname(__file__), "_mlir_libs")
    paths = [_os.path.join(libs_dir, name) for name in _RUNTIME_LIBRARIES]
    return [path for path in paths if _os.path.exists(path)]


def compile(model, example_inputs=(), **options):
    """Compiles a PyTorch model to a native CPU callable (see lighthouse.compiler)."""
    from .compiler import compile as compile_torch

    return compile_torch(model, example_inputs, **options)


def compile_onnx(model, **options):
    """Compiles an ONNX model to a native CPU callable (see lighthouse.compiler)."""
    from .compiler import compile_onnx as compile_from_onnx

    return compile_from_onnx(model, **options)


__all__ = [
    "LIGHTHOUSE_VERSION",
    "MLIR_VERSION",
    "__version__",
    "compile",
    "compile_onnx",
    "runtime_library_paths",
]
