"""tally's pipeline for lighthouse, found by name through the package's
`lighthouse.pipelines` entry point: `compile_module(ir, pipeline="tally-cpu")`.

It loads libtally.so as MLIR dialect and pass plugins, so IR holding tally's
ops parses and compiles without importing `tally_example.dialects`.
"""

from pathlib import Path
from types import SimpleNamespace

_LIBRARY = Path(__file__).parent / "dialects" / "libtally.so"

TALLY_CPU = SimpleNamespace(
    # Counters become i64 arithmetic, then lighthouse's pipeline takes over.
    pipeline="builtin.module(convert-tally-to-arith,lighthouse-cpu)",
    dialect_plugins=[_LIBRARY],
    pass_plugins=[_LIBRARY],
)
