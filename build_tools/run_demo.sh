#!/usr/bin/env bash
# Sets up lighthouse (build_tools/setup.sh) and runs the demo: a program built
# through the Python API, verified, lowered to LLVM, JIT-compiled and run.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"${repo_root}/build_tools/setup.sh"
exec "${repo_root}/.venv/bin/python" "${repo_root}/examples/demo.py"
