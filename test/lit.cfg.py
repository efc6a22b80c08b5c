# lit configuration for lighthouse's IR and C API tests. They run against the
# lighthouse package installed in the Python environment running lit (the
# `.venv` made by build_tools/setup.sh), not against a build tree.

import importlib.util
import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "lighthouse"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".py", ".c"]
config.excludes = [
    "lit.cfg.py",
    "upstream",
    "python",
    # Helpers of the pytest tier.
    "models.py",
    "onnx_graphs.py",
    "example_packages.py",
    "conftest.py",
    "lit_suites.py",
    "toy_suite_plugin.py",
]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "build", "lit", "lighthouse"
)

llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-22/bin")
if not os.path.exists(os.path.join(llvm_bin, "FileCheck")):
    lit_config.fatal(f"FileCheck not found in {llvm_bin} (pass --param llvm_bin=DIR)")
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment["PATH"]])

python = sys.executable
package_dir = subprocess.check_output(
    [python, "-c", "import lighthouse, os; print(os.path.dirname(lighthouse.__file__))"], text=True
).strip()
mlir_libs = os.path.join(package_dir, "_mlir_libs")

# lh-opt is shipped inside the package.
config.environment["PATH"] = os.pathsep.join([mlir_libs, config.environment["PATH"]])
config.substitutions.append(("%python", python))
# lh-run as its console script runs it, also from a build tree.
config.substitutions.append(
    ("%lh-run", f'{python} -c "import sys; from lighthouse.tools import run_main; run_main()"')
)
config.substitutions.append(("%cc", lit_config.params.get("cc", shutil.which("clang-22") or "cc")))
config.substitutions.append(("%lighthouse_include", os.path.join(mlir_libs, "include")))
config.substitutions.append(("%lighthouse_libs", mlir_libs))
# Lets a build tree stand in for the installed package (the development loop).
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]

# Optional Python packages, for `REQUIRES:` lines.
for module in ("torch", "onnx", "torch_mlir"):
    if importlib.util.find_spec(module) is not None:
        config.available_features.add(module)
