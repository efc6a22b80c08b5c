"""The user story of extending an installed lighthouse: a separately built
dialect package (examples/downstream-dialect) used next to lighthouse in one
context, and loaded into lh-opt as a plugin."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from example_packages import install_against_installed_lighthouse

import lighthouse

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "downstream-dialect"
LIBS = Path(lighthouse.__file__).parent / "_mlir_libs"


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory):
    """The example installed by pip into its own folder, against the installed lighthouse."""
    return install_against_installed_lighthouse(
        "downstream-dialect", tmp_path_factory.mktemp("example")
    )


USER_STORY = """
import os, subprocess
from lighthouse.ir import Context, Location, Module, InsertionPoint, F32Type, FloatAttr, Type
from lighthouse.dialects import arith, func
from lighthouse.passmanager import PassManager
from my_project.dialects import lumen

with Context() as ctx, Location.unknown():
    lumen.register_dialect(ctx)
    m = Module.create()
    f32 = F32Type.get()
    with InsertionPoint(m.body):
        @func.FuncOp.from_py_func(f32)
        def f(x):
            two = arith.constant(f32, 2.0)
            six = lumen.scale(two, FloatAttr.get(f32, 3.0))
            same = lumen.scale(x, FloatAttr.get(f32, 1.0))
            lumen.beam(Type.parse("!lumen.beam<4>"), same)
            return arith.addf(six, lumen.scale(same, FloatAttr.get(f32, 4.0)))
    assert m.operation.verify()
    ops = m.body.operations[0].regions[0].blocks[0].operations
    assert isinstance(ops[1], lumen.ScaleOp), type(ops[1])
    print("built:", str(m).count("lumen.scale"))

    # lighthouse's canonicalize runs the dialect's folders.
    PassManager.parse("builtin.module(canonicalize)").run(m.operation)
    text = str(m)
    assert "arith.constant 6.000000e+00" in text and "lumen.beam" not in text, text
    print("folded:", text.count("lumen.scale"))

    # The dialect's pass, by name in a lighthouse pipeline.
    PassManager.parse("builtin.module(func.func(lumen-expand-scale))").run(m.operation)
    assert "lumen.scale" not in str(m) and "arith.mulf" in str(m)
    print("expanded")

    # The verifiers of the type and the op.
    for bad in ('!lumen.beam<0>',):
        try:
            Type.parse(bad)
        except Exception as error:
            print("type error:", str(error).splitlines()[-1])
    try:
        Module.parse("func.func @g(%x: f32) -> f32 { %0 = lumen.scale %x by 0.0 : f32 \\n return %0 : f32 }")
    except Exception as error:
        print("op error:", "factor must not be zero" in str(error))

# Importing the package was enough for any new context to know the dialect.
with Context():
    Module.parse("func.func @g(%x: f32) -> f32 { %0 = lumen.scale %x by 2.0 : f32 \\n return %0 : f32 }")
    print("parsed in a new context")

# One MLIR in the process: only lighthouse's library holds MLIR's core.
loaded = sorted({line.split()[-1] for line in open("/proc/self/maps") if ".so" in line})
holders = [p for p in loaded if "mlir::MLIRContext::MLIRContext(" in subprocess.run(
    ["nm", "-D", "-C", "--defined-only", p], capture_output=True, text=True).stdout]
print("MLIR in:", [os.path.basename(p) for p in holders])
# And one LLVM: the downstream library links the libLLVM lighthouse's uses.
print("LLVM copies:", len([p for p in loaded if os.path.basename(p).startswith("libLLVM")]))
"""


def test_user_story(installed_example):
    result = subprocess.run(
        [sys.executable, "-c", USER_STORY],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(installed_example)},
    )
    assert result.returncode == 0, result.stderr[-5000:]
    out = result.stdout
    assert "built: 3" in out
    assert "folded: 1" in out
    assert "expanded" in out
    assert "type error: " in out and "a beam has at least one lane, got 0" in out
    assert "op error: True" in out
    assert "parsed in a new context" in out
    assert "MLIR in: ['libLighthouseCAPI.so']" in out
    assert "LLVM copies: 1" in out


def test_dialect_and_pass_plugins_in_lh_opt(installed_example, tmp_path):
    plugin = installed_example / "my_project" / "dialects" / "liblumen.so"
    assert plugin.is_file()
    source = tmp_path / "scale.mlir"
    source.write_text(
        "func.func @f(%x: f32) -> f32 {\n"
        "  %0 = lumen.scale %x by 1.0 : f32\n"
        "  %1 = lumen.scale %0 by 3.0 : f32\n"
        "  return %1 : f32\n}\n"
    )
    result = subprocess.run(
        [
            str(LIBS / "lh-opt"),
            f"--load-dialect-plugin={plugin}",
            f"--load-pass-plugin={plugin}",
            str(source),
            "--pass-pipeline=builtin.module(canonicalize,func.func(lumen-expand-scale))",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "arith.mulf %arg0, %cst : f32" in result.stdout
    assert "lumen." not in result.stdout


PLUGIN_PIPELINE = '''
import sys
import numpy as np
from lighthouse.compiler import compile_module

compiled = compile_module("""
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = lumen.scale %v by 3.0 : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}""", pipeline="lumen-cpu")
x = np.arange(4, dtype=np.float32)
np.testing.assert_array_equal(compiled(x), 3 * x)
print("ran lumen-cpu; imported my_project.dialects:", "my_project.dialects" in sys.modules)
'''


def test_pass_and_dialect_plugins_found_by_pipeline_name(installed_example):
    """The example's `lighthouse.pipelines` entry point lists liblumen.so as
    dialect and pass plugins: IR with lumen's ops compiles by pipeline name."""
    result = subprocess.run(
        [sys.executable, "-c", PLUGIN_PIPELINE],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(installed_example)},
    )
    assert result.returncode == 0, result.stderr[-5000:]
    assert "ran lumen-cpu; imported my_project.dialects: False" in result.stdout


def test_plugin_errors(tmp_path):
    from lighthouse import plugins

    with pytest.raises(FileNotFoundError, match="no MLIR plugin at"):
        plugins.load_pass_plugin(tmp_path / "missing.so")
    # A shared library that is not a plugin.
    not_a_plugin = LIBS / "libmlir_c_runner_utils.so"
    with pytest.raises(ValueError, match="cannot load the pass plugin .*libmlir_c_runner_utils"):
        plugins.load_pass_plugin(not_a_plugin)
    with pytest.raises(ValueError, match="cannot load the dialect plugin"):
        plugins.load_dialect_plugin(not_a_plugin)
    # Not a shared library at all.
    text = tmp_path / "plugin.so"
    text.write_text("not ELF")
    with pytest.raises(ValueError, match="cannot load the pass plugin"):
        plugins.load_pass_plugin(text)


def test_another_compiler_is_refused(tmp_path):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++ to try")
    result = subprocess.run(
        [
            "cmake",
            "-S",
            str(EXAMPLE),
            "-B",
            str(tmp_path),
            f"-DCMAKE_CXX_COMPILER={gxx}",
            f"-DCMAKE_C_COMPILER={shutil.which('gcc')}",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-DLighthouse_DIR={Path(lighthouse.__file__).parent / 'cmake'}",
        ],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
    )
    assert result.returncode != 0
    message = " ".join((result.stdout + result.stderr).split())  # CMake wraps lines
    assert "was built with Clang 22" in message
    assert "this project compiles with GNU" in message
    assert "breaks TypeIDs across the library boundary" in message


def test_the_build_backend_refuses_another_compiler_first(tmp_path):
    """Through pip, a compiler of another family is refused before CMake runs,
    in one line at the top of the backend's output."""
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        pytest.skip("no gcc/g++ to try")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(tmp_path / "site"),
            str(EXAMPLE),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "CC": "gcc", "CXX": "g++"},
    )
    assert result.returncode != 0
    output = result.stdout + result.stderr
    major = lighthouse.MLIR_VERSION.split(".")[0]
    lines = [line.strip(" │╰─>") for line in output.splitlines()]
    first = next(line for line in lines if line.startswith("error: CC="))
    assert first.startswith("error: CC=gcc is GNU ")
    assert f"lighthouse was built with Clang {lighthouse.MLIR_VERSION}" in first
    assert f"must be built with Clang {major}" in first
    assert "CMake" not in output  # stopped before configuring


def test_the_example_builds_and_runs_from_the_wheels_alone(wheels_only_venv):
    """The user story on a machine with no MLIR development packages:
    `pip install ./examples/downstream-dialect`, with build isolation and no
    compiler variables, in an environment holding only lighthouse's wheel,
    without the SDK, which the build environment brings: CMake must find the
    build environment's lighthouse, not the environment's."""
    result = wheels_only_venv.install_and_run("downstream-dialect", USER_STORY)
    assert "built: 3" in result and "expanded" in result
    assert "parsed in a new context" in result
    assert "MLIR in: ['libLighthouseCAPI.so']" in result
    assert "LLVM copies: 1" in result


def test_the_build_backend_names_a_missing_compiler_first(tmp_path):
    """Without lighthouse's compiler on the machine (hidden here in a mount
    namespace), pip's output starts with one line saying which to install."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding the compiler needs root and unshare")
    major = lighthouse.MLIR_VERSION.split(".")[0]
    compiler = Path(shutil.which(f"clang-{major}") or "/nonexistent").resolve()
    if not compiler.is_file():
        pytest.skip(f"clang-{major} is not installed")
    pip = (
        f"{sys.executable} -m pip install --no-deps --no-build-isolation "
        f"--target {tmp_path / 'site'} {EXAMPLE}"
    )
    result = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "bash",
            "-c",
            f"mount --bind /dev/null {compiler} && {pip}",
        ],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k not in ("CC", "CXX")},
    )
    assert result.returncode != 0
    lines = [line.strip(" │╰─>") for line in (result.stdout + result.stderr).splitlines()]
    first = next(line for line in lines if line.startswith("error: lighthouse was built with"))
    assert f"(clang-{major}), which a dialect built against it must use" in first
    assert f"apt install clang-{major}" in first
    assert "CMake" not in result.stdout + result.stderr


def test_sdk_and_examples_pin_this_lighthouse():
    """lighthouse, its SDK wheel and the examples built against them share one
    version: a dialect holds the C++ ABI of the lighthouse it was built with."""
    version = lighthouse.LIGHTHOUSE_VERSION
    assert f'sdk = ["lighthouse-sdk=={version}"]' in (REPO / "pyproject.toml").read_text()
    examples = [
        p for p in (REPO / "examples").glob("*/pyproject.toml") if "dialect" in p.parent.name
    ]
    assert examples
    for pyproject in examples:
        text = pyproject.read_text()
        assert f'"lighthouse[sdk]=={version}"' in text, pyproject
        assert f'"lighthouse=={version}"' in text, pyproject


def test_the_build_backend_points_cmake_at_the_lighthouse_it_runs_from():
    from lighthouse.sdk.build_backend import with_this_lighthouse

    found = with_this_lighthouse()["cmake.define.Lighthouse_DIR"]
    assert os.path.isfile(os.path.join(found, "LighthouseConfig.cmake"))
    assert os.path.dirname(found) == os.path.dirname(lighthouse.__file__)
    # A project's own setting stands, and other settings pass through.
    given = {"cmake.define.Lighthouse_DIR": "/elsewhere", "cmake.build-type": "Debug"}
    assert with_this_lighthouse(given) == given
