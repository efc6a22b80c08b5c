"""The runtime support libraries shipped in the package, which compiled code
calls into and saved modules link."""

import os

__all__ = ["LIBRARY_DIR", "runtime_library_paths"]

#: The package's folder of shared libraries and tools (`_mlir_libs`).
LIBRARY_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "_mlir_libs")

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
    paths = [os.path.join(LIBRARY_DIR, name) for name in _RUNTIME_LIBRARIES]
    return [path for path in paths if os.path.exists(path)]
