#!/usr/bin/env bash
# Sets up lighthouse (build_tools/setup.sh), checks the sources' style (ruff's
# lint and format, [tool.ruff] in pyproject.toml; clang-format, .clang-format)
# and the package's layers (lint-imports, [tool.importlinter])
# and runs every test tier against the package
# installed in .venv: lit + FileCheck (IR, pipelines, tools, C API, ingress),
# then pytest (Python API, compilation, isolation, extending, upstream MLIR's
# Python suite), then a sample of the conformance corpora against their
# expected results (test/conformance). Then builds the repaired wheel and runs
# lit and pytest against it in a fresh virtual environment.
# Extra arguments go to pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"${repo_root}/build_tools/setup.sh"
cd "${repo_root}"
echo "== style: ruff, clang-format =="
.venv/bin/ruff check .
.venv/bin/ruff format --check .
git ls-files -z '*.c' '*.cpp' '*.h' | xargs -0 "clang-format-$(sed -n 's/^DEBIAN_LLVM_MAJOR=//p' \
  build_tools/llvm_version.txt)" --dry-run --Werror
echo "== layers: lighthouse's package imports down its layers only, without cycles =="
# [tool.importlinter] in pyproject.toml; on the installed package.
.venv/bin/lint-imports
echo "== lit =="
.venv/bin/lit -v test/
echo "== pytest =="
.venv/bin/python -m pytest -ra "$@"
echo "== conformance: a sample of the onnx-node and torch-ops corpora (lh-suite) =="
# Stratified by operation; fails on a case test/conformance lists as passing
# that does not pass. The whole corpora: docs/testing-compilers.md.
# Each run is recorded into the results history whether it passes or not
# (build/lh-suite-history.sqlite, or the database $LH_SUITE_DB names), then
# its gate decides.
mkdir -p build
history="${LH_SUITE_DB:-build/lh-suite-history.sqlite}"
gate=0
.venv/bin/lh-suite run --corpus onnx-node,torch-ops \
  --compiler lighthouse:default,lighthouse:loops --sample 150 --no-timing --jobs 2 \
  --timeout 60 --expect test/conformance -o build/conformance-sample.jsonl || gate=$?
.venv/bin/lh-suite record build/conformance-sample.jsonl --db "${history}"
((gate == 0)) || exit "${gate}"
echo "== conformance: a sample of the torchvision and transformers corpora (lh-suite) =="
# The smallest of each family of model people bring, compiled whole through
# torch.export and through ONNX, one of them for dynamic sizes; the whole
# corpora on demand (docs/testing-compilers.md).
.venv/bin/lh-suite run --corpus torchvision,transformers \
  --compiler lighthouse:default,lighthouse-onnx:default \
  --only '^(squeezenet1_1|shufflenet_v2_x0_5|electra|distilbert_dynamic|gpt_neox_decode)$' \
  --no-timing --timeout 300 --expect test/conformance -o build/zoo-sample.jsonl || gate=$?
.venv/bin/lh-suite record build/zoo-sample.jsonl --db "${history}"
((gate == 0)) || exit "${gate}"
echo "== the repaired wheel, in a fresh virtual environment =="
build_tools/build_wheel.sh
exec build_tools/test_wheel.sh "$@"
