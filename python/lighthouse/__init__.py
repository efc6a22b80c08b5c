"""lighthouse: a framework for building and testing MLIR-based compilers.

The MLIR Python bindings live under this package (`lighthouse.ir`,
`lighthouse.passmanager`, `lighthouse.dialects.*`, ...), built against one
MLIR release and isolated from any other MLIR bindings package in the process.

The front door: `compile` (PyTorch), `compile_onnx` (ONNX), `compile_module`
(linalg-on-tensors IR), `CompileOptions`, `load` (a saved module), and what
they give or raise (`CompiledModule`, `SpecializedModule`, `CompileError`).
The package by layer, each using only those below it:

- `tools` (lh-opt, lh-run), `suite` (lh-suite), `fuzz`, `sdk`;
- `compiler`: the entry points, options, pipelines and JIT;
- `ingress` (models to linalg on tensors) and `execution` (compiled code and
  how it is called);
- `errors`, `plugins` and the MLIR bindings.
"""

import importlib as _importlib

from ._version import LIGHTHOUSE_VERSION, MLIR_VERSION

# A PEP 440 local version label carries the MLIR release the package holds.
__version__ = f"{LIGHTHOUSE_VERSION}+mlir{MLIR_VERSION}"

# The front door's names, by the module that defines them: imported when
# first used, so that `import lighthouse` loads neither MLIR nor numpy.
_EXPORTS = {
    "compile": "compiler",
    "compile_onnx": "compiler",
    "compile_module": "compiler",
    "CompileOptions": "compiler",
    "load": "execution",
    "CompiledModule": "execution",
    "SpecializedModule": "execution",
    "runtime_library_paths": "execution",
    "CompileError": "errors",
}


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'lighthouse' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_EXPORTS})


__all__ = ["LIGHTHOUSE_VERSION", "MLIR_VERSION", "__version__", *_EXPORTS]
