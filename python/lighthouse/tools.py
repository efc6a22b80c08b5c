"""Console entry points for lighthouse's tools, which ship inside the package."""

import os
import sys


def _run(tool: str):
    binary = os.path.join(os.path.dirname(__file__), "_mlir_libs", tool)
    os.execv(binary, [tool, *sys.argv[1:]])


def opt():
    """lh-opt: MLIR's opt driver with lighthouse's dialects, passes and pipelines."""
    _run("lh-opt")
