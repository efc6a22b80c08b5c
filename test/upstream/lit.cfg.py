# lit configuration for the suites of other projects run against the
# lighthouse package: upstream MLIR's `mlir/test/python` (test_upstream_suite.py)
# and torch-mlir's importer tests (test_torch_mlir_importers.py). It is not
# used in place: the test copies the suite into a temporary directory,
# rewrites the other project's package references to lighthouse's, and drops
# this file at the copy's root.
#
# Params (--param NAME=VALUE):
#   suite                mlir (default) or torch-mlir
#   llvm_bin             directory holding FileCheck (default /usr/lib/llvm-22/bin)
#   mlir_runner_utils    path of libmlir_runner_utils.so (default: lighthouse's)
#   mlir_c_runner_utils  path of libmlir_c_runner_utils.so (default: lighthouse's)

import os
import platform
import subprocess
import sys

import lit.formats

suite = lit_config.params.get("suite", "mlir")
if suite not in ("mlir", "torch-mlir"):
    lit_config.fatal(f"unknown suite {suite!r} (--param suite=mlir or torch-mlir)")
config.name = {"mlir": "lighthouse-upstream-python", "torch-mlir": "torch-mlir-importers"}[suite]
# lit's internal shell: external execution is deprecated as of lit 23.
config.test_format = lit.formats.ShTest(execute_external=False)
# torch-mlir's ONNX tests run the import tool from `.runlit` files.
config.suffixes = [".py", ".runlit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.test_source_root
# A set: the suite's lit.local.cfg files call `config.excludes.add(...)`.
# torch-mlir's ONNX tests write into `output`.
config.excludes = {"lit.cfg.py", "lit.local.cfg", "CMakeLists.txt", "lib", "__pycache__", "output"}
# Read by torch-mlir's lit.local.cfg files.
config.host_os = platform.system()

# Flags read by the suite's lit.local.cfg files. Integration tests need the
# test-only MLIR tools and libraries, which lighthouse does not ship.
config.enable_bindings_python = True
config.mlir_include_integration_tests = False

llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-22/bin")
if not os.path.exists(os.path.join(llvm_bin, "FileCheck")):
    lit_config.fatal(f"FileCheck not found in {llvm_bin} (pass --param llvm_bin=DIR)")
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment["PATH"]])

# lit scrubs the environment; the package may only be importable through
# PYTHONPATH (e.g. a build tree), so pass it on.
if os.environ.get("PYTHONPATH"):
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]

# Upstream MLIR runs FileCheck with variable scoping on; some CHECK lines
# depend on it (ir/value.py explicitly turns it off for itself). torch-mlir
# does not.
if suite == "mlir":
    config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

# The bindings run in the same interpreter as lit (the one lighthouse is
# installed into). Quoted in case the path has spaces.
python = sys.executable
config.substitutions.append(("%PYTHON", f'"{python}"' if " " in python else python))

# The runtime libraries lighthouse ships (an install's own may link a second
# MLIR).
runtime_dir = subprocess.check_output(
    [
        sys.executable,
        "-c",
        "import lighthouse, os; print(os.path.dirname(lighthouse.runtime_library_paths()[0]))",
    ],
    text=True,
    env={**os.environ},
).strip()
for name in ("mlir_runner_utils", "mlir_c_runner_utils"):
    lib = lit_config.params.get(name, os.path.join(runtime_dir, f"lib{name}.so"))
    if not os.path.exists(lib):
        lit_config.warning(f"{name} library not found: {lib} (pass --param {name}=PATH)")
    config.substitutions.append((f"%{name}", lib))

# `UNSUPPORTED: target=...` lines need a target triple.
try:
    config.target_triple = subprocess.check_output(
        [os.path.join(llvm_bin, "llvm-config"), "--host-target"], text=True
    ).strip()
except (OSError, subprocess.CalledProcessError):
    config.target_triple = f"{platform.machine()}-unknown-{sys.platform}"

if sys.version_info >= (3, 11):
    config.available_features.add("python-ge-311")


def host_supports_jit():
    # Same probe upstream uses; fall back to the architectures LLVM's ORC JIT
    # handles when mlir-runner is not installed.
    runner = os.path.join(llvm_bin, "mlir-runner")
    if os.path.exists(runner):
        try:
            out = subprocess.run(
                [runner, "--host-supports-jit"], capture_output=True, text=True, timeout=60
            ).stdout
            return "true" in out
        except (OSError, subprocess.SubprocessError):
            return False
    return platform.machine().lower() in ("x86_64", "amd64", "aarch64", "arm64")


if host_supports_jit():
    config.available_features.add("host-supports-jit")
