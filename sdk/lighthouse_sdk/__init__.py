"""lighthouse-sdk: the C++ headers, ODS (.td) files and mlir-tblgen of the MLIR
release lighthouse holds, for building dialects against an installed
lighthouse (docs/extending.md). lighthouse's CMake package finds them here by
itself; these names are for tools that want them directly."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent
INCLUDE_DIR = ROOT / "include"
MLIR_TBLGEN = ROOT / "bin" / "mlir-tblgen"
MLIR_VERSION = json.loads((ROOT / "sdk.json").read_text())["mlir_version"]

__all__ = ["INCLUDE_DIR", "MLIR_TBLGEN", "MLIR_VERSION", "ROOT"]
