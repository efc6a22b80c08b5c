"""The console scripts an installed lighthouse provides."""

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest


def console_script(name):
    scripts = {ep.name for ep in importlib.metadata.entry_points(group="console_scripts")}
    if name not in scripts:
        pytest.skip("lighthouse is not installed with its metadata (a build tree on PYTHONPATH)")
    return str(Path(sys.executable).parent / name)


def test_lh_opt_runs_lighthouse_pipelines(tmp_path):
    source = tmp_path / "add.mlir"
    source.write_text(
        "func.func @f(%a: i32) -> i32 {\n  %b = arith.addi %a, %a : i32\n  return %b : i32\n}\n"
    )
    result = subprocess.run(
        [console_script("lh-opt"), str(source), "--pass-pipeline=builtin.module(lighthouse-cpu)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "llvm.func @f" in result.stdout
    assert "llvm.add" in result.stdout


def test_lh_opt_reports_bad_input(tmp_path):
    source = tmp_path / "bad.mlir"
    source.write_text("func.func @f( {\n")
    result = subprocess.run([console_script("lh-opt"), str(source)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "bad.mlir:1:" in result.stderr


def test_lh_opt_names_a_crash_of_mlirs_parser(tmp_path):
    """MLIR 22's parser dies on an index array attribute: lh-opt runs in a
    child process, so the crash is an error with exit status 1 naming the
    signal (the stack dump before it says the parser); set to run in
    process, the crash is the process's own."""
    source = tmp_path / "index-array.mlir"
    source.write_text("func.func @main() attributes {a = array<index: 1, 2>} { return }\n")
    result = subprocess.run([console_script("lh-opt"), str(source)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "lh-opt: error: the run died of signal 11" in result.stderr
    assert "MLIR Parser" in result.stderr
    in_process = subprocess.run(
        [console_script("lh-opt"), str(source)],
        capture_output=True,
        env={**os.environ, "LIGHTHOUSE_OPT_IN_PROCESS": "1"},
    )
    assert in_process.returncode < 0


def test_lh_run_help():
    result = subprocess.run(
        [console_script("lh-run"), "--help"], capture_output=True, text=True, check=True
    )
    assert "Compile a model to native code with lighthouse and run it." in result.stdout


def test_ir_files_that_are_not_utf8(tmp_path, capsys):
    from lighthouse.tools import run

    # A raw byte 0xff in an op name: not UTF-8, where MLIR's diagnostics,
    # which quote it, would not become a Python str.
    source = tmp_path / "bad.mlir"
    source.write_bytes(b'func.func @main() {\n  "arith.\xff"() : () -> ()\n  return\n}\n')
    assert run([str(source)]) == 1
    assert f"lh-run: ValueError: {source} is not UTF-8: byte 0xff at line 2, column 10" in (
        capsys.readouterr().err
    )
    # lh-opt (C++) reports the parser's error, the byte as it is, and does not crash.
    result = subprocess.run([console_script("lh-opt"), str(source)], capture_output=True)
    assert result.returncode == 1
    assert b"bad.mlir:2:3: error: unregistered operation 'arith.\xff'" in result.stderr
