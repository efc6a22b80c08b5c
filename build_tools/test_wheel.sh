#!/usr/bin/env bash
# Installs the repaired wheels from dist/repaired (lighthouse and its SDK)
# into a fresh virtual environment (build/wheel-venv) with the test
# dependencies, and runs lit and pytest against them there, the downstream
# dialect examples included (built from the wheels alone, too:
# LIGHTHOUSE_WHEELS). Extra arguments go to pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
venv=build/wheel-venv
rm -rf "${venv}"
"${LIGHTHOUSE_PYTHON:-python3}" -m venv "${venv}"
wheel="$(ls dist/repaired/lighthouse-*.whl)"
"${venv}/bin/python" -m pip install -q --disable-pip-version-check --find-links dist/repaired \
  "${wheel}[torch,onnx,test,suite,sdk]" -r build_tools/requirements-dev.txt
export LIGHTHOUSE_WHEELS="${repo_root}/dist/repaired"
echo "== lit against the installed wheel =="
"${venv}/bin/lit" -v test/
echo "== pytest against the installed wheel =="
exec "${venv}/bin/python" -m pytest -ra "$@"
