#!/usr/bin/env bash
# Runs a command with Debian's MLIR/LLVM development packages hidden (their
# headers, CMake packages, static libraries and tools such as mlir-tblgen), as
# on a machine that has only the run-time libraries and the compiler: in a
# private mount namespace, their folders covered by empty ones and their other
# files by /dev/null. Needs root (or CAP_SYS_ADMIN) and util-linux's unshare.
#
#   build_tools/without_mlir_dev.sh <command> [args...]
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major="$(sed -n 's/^DEBIAN_LLVM_MAJOR=//p' "${repo_root}/build_tools/llvm_version.txt")"
export LIGHTHOUSE_HIDDEN_PACKAGES="libmlir-${major}-dev mlir-${major}-tools llvm-${major}-dev"
export LIGHTHOUSE_HIDDEN_FOLDERS="/usr/lib/llvm-${major}/include /usr/lib/llvm-${major}/lib/cmake
  /usr/include/llvm-${major} /usr/include/llvm-c-${major} /usr/include/mlir-${major}"

exec unshare --mount --propagation private bash -euo pipefail -c '
  for folder in ${LIGHTHOUSE_HIDDEN_FOLDERS}; do
    if [[ -d "${folder}" ]]; then mount -t tmpfs -o ro,size=1k none "${folder}"; fi
  done
  # Regular files only: a symbolic link of these packages may lead to a run-time
  # library (libLLVM.so -> libLLVM.so.22.1) that the compiler itself needs.
  for package in ${LIGHTHOUSE_HIDDEN_PACKAGES}; do
    dpkg-query -L "${package}" 2>/dev/null || true
  done | while read -r file; do
    if [[ -f "${file}" && ! -L "${file}" ]]; then mount --bind /dev/null "${file}"; fi
  done
  exec "$@"
' without_mlir_dev "$@"
