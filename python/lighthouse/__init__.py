"""lighthouse: a framework for building and testing MLIR-based compilers.

The MLIR Python bindings live under this package (`lighthouse.ir`,
`lighthouse.passmanager`, `lighthouse.dialects.*`, ...), built against one
MLIR release and isolated from any other MLIR bindings package in the process.
"""

from ._version import LIGHTHOUSE_VERSION, MLIR_VERSION

# A PEP 440 local version label carries the MLIR release the package holds.
__version__ = f"{LIGHTHOUSE_VERSION}+mlir{MLIR_VERSION}"

__all__ = ["LIGHTHOUSE_VERSION", "MLIR_VERSION", "__version__"]
