#!/usr/bin/env bash
# Sets up lighthouse (build_tools/setup.sh) and runs every test tier against
# the package installed in .venv: lit + FileCheck (IR, C API), then pytest
# (Python API, isolation, upstream MLIR's Python suite). Extra arguments go to
# pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"${repo_root}/build_tools/setup.sh"
cd "${repo_root}"
echo "== lit: IR and C API tests =="
.venv/bin/lit -v test/
echo "== pytest: Python API, isolation and upstream suite =="
exec .venv/bin/python -m pytest -ra "$@"
