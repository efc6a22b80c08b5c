#!/usr/bin/env bash
# Sets up lighthouse on a Debian 12 machine: the pinned MLIR/LLVM packages and
# compiler, a virtual environment `.venv` at the repository root with the build
# and test dependencies, and lighthouse itself built and installed into it.
# Idempotent: a second run installs nothing new and rebuilds incrementally.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

pin() { sed -n "s/^$1=//p" build_tools/llvm_version.txt; }
llvm_major="$(pin DEBIAN_LLVM_MAJOR)"

#===------------------------------------------------------------------------===#
# System packages
#===------------------------------------------------------------------------===#

system_packages=(
  "libmlir-${llvm_major}-dev" "mlir-${llvm_major}-tools"
  "llvm-${llvm_major}-dev" "llvm-${llvm_major}-tools"
  "clang-${llvm_major}" "lld-${llvm_major}"
  # The C and C++ style check of build_tools/run_tests.sh.
  "clang-format-${llvm_major}"
  # LLVM's OpenMP runtime, shipped in the package for threaded code.
  "libomp-${llvm_major}-dev"
  # llvm-dev's CMake package refers to these libraries' targets.
  libzstd-dev libedit-dev libcurl4-openssl-dev
  ccache xz-utils
)
missing=()
for package in "${system_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "${package}" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("${package}")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ "$(id -u)" != 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

#===------------------------------------------------------------------------===#
# Python environment and lighthouse
#===------------------------------------------------------------------------===#

python="${LIGHTHOUSE_PYTHON:-python3}"
if [[ ! -x .venv/bin/python ]]; then
  "${python}" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check \
  -r build_tools/requirements-dev.txt

# The build directory (build/<wheel tag>) persists, so this is incremental.
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
# MLIR C++ must be compiled by the clang that matches the MLIR install (the
# configure checks it); pip's build environment may otherwise pass on gcc.
export CC="clang-${llvm_major}" CXX="clang++-${llvm_major}"
.venv/bin/python -m pip install -q --disable-pip-version-check \
  --no-build-isolation ".[torch,onnx,test,bench,suite,iree,zoo,history,ray]"
