"""Compiled code and how it is called: below the compiler, which it never
imports.

- `abi`: what crosses between Python and compiled code (`TensorSpec`, the
  dtype of each element type);
- `compiled`: `CompiledModule`, a native function called with arrays, and
  `load` of a saved one;
- `specialized`: `SpecializedModule`, a model compiled at its call for the
  values of some of its inputs;
- `saved`: the folder a saved module is; `cache`: the compile cache's key;
- `libraries`: the runtime support libraries compiled code calls into.
"""

from .abi import TensorSpec
from .compiled import CompiledModule, load
from .libraries import runtime_library_paths
from .specialized import SpecializedModule

__all__ = ["CompiledModule", "SpecializedModule", "TensorSpec", "load", "runtime_library_paths"]
