#!/usr/bin/env bash
# Installs the repaired wheel from dist/repaired into a fresh virtual
# environment (build/wheel-venv) with the test dependencies, and runs lit and
# pytest against it there, the downstream dialect example included. Extra
# arguments go to pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
venv=build/wheel-venv
rm -rf "${venv}"
"${LIGHTHOUSE_PYTHON:-python3}" -m venv "${venv}"
wheel="$(ls dist/repaired/*.whl)"
"${venv}/bin/python" -m pip install -q --disable-pip-version-check \
  "${wheel}[torch,onnx,test,suite]" -r build_tools/requirements-dev.txt
echo "== lit against the installed wheel =="
"${venv}/bin/lit" -v test/
echo "== pytest against the installed wheel =="
exec "${venv}/bin/python" -m pytest -ra "$@"
