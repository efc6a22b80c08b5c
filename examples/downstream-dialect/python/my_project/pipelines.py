"""lumen's pipeline for lighthouse, found by name through the package's
`lighthouse.pipelines` entry point: `compile_module(ir, pipeline="lumen-cpu")`.

It loads liblumen.so as MLIR dialect and pass plugins, so IR holding lumen's
ops compiles without importing `my_project.dialects`.
"""

from pathlib import Path
from types import SimpleNamespace

_LIBRARY = Path(__file__).parent / "dialects" / "liblumen.so"

LUMEN_CPU = SimpleNamespace(
    # lumen's ops become arith, then lighthouse's robust pipeline takes over.
    pipeline="builtin.module(func.func(lumen-expand-scale),lighthouse-cpu)",
    dialect_plugins=[_LIBRARY],
    pass_plugins=[_LIBRARY],
)
