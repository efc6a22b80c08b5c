#!/usr/bin/env bash
# Sets up lighthouse (build_tools/setup.sh) and runs every test tier against
# the package installed in .venv: lit + FileCheck (IR, pipelines, tools, C API,
# ingress), then pytest (Python API, compilation, isolation, extending,
# upstream MLIR's Python suite). Then builds the repaired wheel and runs the
# same tests against it in a fresh virtual environment. Extra arguments go to
# pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"${repo_root}/build_tools/setup.sh"
cd "${repo_root}"
echo "== lit =="
.venv/bin/lit -v test/
echo "== pytest =="
.venv/bin/python -m pytest -ra "$@"
echo "== the repaired wheel, in a fresh virtual environment =="
build_tools/build_wheel.sh
exec build_tools/test_wheel.sh "$@"
