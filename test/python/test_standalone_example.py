"""The user story of examples/standalone-dialect, the shape of MLIR's standalone
example built against an installed lighthouse: the tally dialect, its ODS
over several .td files, a custom type with a Python class, a folder, a
lowering pass, and its library as lh-opt plugin and in a pipeline."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from example_packages import install_against_installed_lighthouse

import lighthouse

LIBS = Path(lighthouse.__file__).parent / "_mlir_libs"


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory):
    """The example installed by pip into its own folder, against the installed lighthouse."""
    return install_against_installed_lighthouse(
        "standalone-dialect", tmp_path_factory.mktemp("standalone")
    )


def run_python(script: str, site: Path) -> str:
    """Runs `script` in a new interpreter that sees the installed example;
    returns its output."""
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return result.stdout


USER_STORY = """
from lighthouse.ir import Context, InsertionPoint, IntegerType, Location, MLIRError, Module, Type
from lighthouse.dialects import func
from lighthouse.passmanager import PassManager
from tally_example.dialects import tally

with Context() as ctx, Location.unknown():
    tally.register_dialect(ctx)

    # The type's Python class.
    clock = tally.CounterType.get(12)
    i64 = IntegerType.get_signless(64)
    print("type:", clock, clock.modulus, tally.CounterType.isinstance(clock),
          tally.CounterType.isinstance(i64))
    parsed = Type.parse("!tally.counter<7>")
    print("parsed:", type(parsed).__name__, parsed.modulus, tally.CounterType(parsed) == parsed)

    # IR built with the generated op classes.
    module = Module.create()
    with InsertionPoint(module.body):
        @func.FuncOp.from_py_func(i64)
        def later(hour):
            start = tally.wrap(clock, hour)
            moved = tally.advance(tally.advance(start, 5), 4)
            return tally.read(tally.advance(moved, 24))
    assert module.operation.verify()
    ops = module.body.operations[0].regions[0].blocks[0].operations
    assert isinstance(ops[0], tally.WrapOp) and isinstance(ops[1], tally.AdvanceOp), ops
    # Types in IR come back as their Python class.
    assert isinstance(ops[1].result.type, tally.CounterType)
    assert ops[1].result.type.modulus == 12
    print("built:", str(module).count("tally.advance"))

    # canonicalize runs AdvanceOp's folder: 5 + 4 is 9, and 24 a full turn twice.
    PassManager.parse("builtin.module(canonicalize)").run(module.operation)
    text = str(module)
    print("folded:", text.count("tally.advance"), "tally.advance %0 by 9" in text)

    # The dialect's pass, by name in a lighthouse pipeline.
    PassManager.parse("builtin.module(convert-tally-to-arith)").run(module.operation)
    text = str(module)
    print("lowered:", "tally." not in text, "arith.remui" in text)

    # The verifiers of the type and of the op.
    try:
        tally.CounterType.get(0)
    except ValueError as error:
        print("get error:", error)
    try:
        Type.parse("!tally.counter<-3>")
    except MLIRError as error:
        print("parse error:", str(error).splitlines()[-1])
    try:
        Module.parse(
            "func.func @back(%c: !tally.counter<3>) -> !tally.counter<3> {\\n"
            "  %b = tally.advance %c by -1 : !tally.counter<3>\\n"
            "  return %b : !tally.counter<3>\\n}")
    except MLIRError as error:
        print("op error:", str(error).splitlines()[1])
"""


def check_user_story(out: str):
    assert "type: !tally.counter<12> 12 True False" in out
    assert "parsed: CounterType 7 True" in out
    assert "built: 3" in out
    assert "folded: 1 True" in out
    assert "lowered: True True" in out
    assert "get error: a counter wraps around at a positive modulus, got 0" in out
    assert "parse error: " in out and "a counter wraps around at a positive modulus, got -3" in out
    assert "op error: " in out
    assert "'tally.advance' op counts forward only: steps must not be negative, got -1" in out


def test_user_story(installed_example):
    check_user_story(run_python(USER_STORY, installed_example))


def test_user_story_from_the_wheels_alone(wheels_only_venv):
    """The same in an environment of lighthouse's wheels alone, built by pip
    with build isolation, Debian's MLIR development packages hidden."""
    check_user_story(wheels_only_venv.install_and_run("standalone-dialect", USER_STORY))


PLUGIN_PIPELINE = '''
import sys
import numpy as np
from lighthouse.compiler import compile_module

compiled = compile_module("""
func.func @main(%hours: tensor<6xi64>) -> tensor<6xi64> {
  %empty = tensor.empty() : tensor<6xi64>
  %later = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
      ins(%hours : tensor<6xi64>) outs(%empty : tensor<6xi64>) {
  ^bb0(%hour: i64, %unused: i64):
    %clock = tally.wrap %hour : !tally.counter<12>
    %moved = tally.advance %clock by 29 : !tally.counter<12>
    %read = tally.read %moved : !tally.counter<12>
    linalg.yield %read : i64
  } -> tensor<6xi64>
  return %later : tensor<6xi64>
}""", pipeline="tally-cpu")
hours = np.array([-13, -1, 0, 7, 11, 30], dtype=np.int64)
np.testing.assert_array_equal(compiled(hours), (hours + 29) % 12)
print("ran tally-cpu; imported tally_example.dialects:", "tally_example.dialects" in sys.modules)
'''


def test_compiled_and_run_through_the_pipeline_entry_point(installed_example):
    """The example's `lighthouse.pipelines` entry point `tally-cpu` loads
    libtally.so as dialect and pass plugin: IR with tally's ops compiles by
    pipeline name, and computes what numpy does."""
    out = run_python(PLUGIN_PIPELINE, installed_example)
    assert "ran tally-cpu; imported tally_example.dialects: False" in out


def test_dialect_and_pass_plugins_in_lh_opt(installed_example, tmp_path):
    plugin = installed_example / "tally_example" / "dialects" / "libtally.so"
    assert plugin.is_file()
    source = tmp_path / "clock.mlir"
    source.write_text(
        "func.func @later(%hour: i64) -> i64 {\n"
        "  %clock = tally.wrap %hour : !tally.counter<12>\n"
        "  %moved = tally.advance %clock by 5 : !tally.counter<12>\n"
        "  %round = tally.advance %moved by 7 : !tally.counter<12>\n"
        "  %read = tally.read %round : !tally.counter<12>\n"
        "  return %read : i64\n}\n"
    )
    result = subprocess.run(
        [
            str(LIBS / "lh-opt"),
            f"--load-dialect-plugin={plugin}",
            f"--load-pass-plugin={plugin}",
            str(source),
            "--pass-pipeline=builtin.module(canonicalize,convert-tally-to-arith)",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    # 5 + 7 steps is a full turn: only the wrap is left, lowered to arith.
    assert "arith.remsi %arg0, %c12_i64 : i64" in result.stdout
    assert "arith.remui" not in result.stdout
    assert "tally." not in result.stdout
