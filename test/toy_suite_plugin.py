"""The test bench's toy plugin: a corpus and a compiler installed as a
package (entry points), with cases that make the compiler crash, hang, fail
or be wrong, as a downstream project would ship; and `lh-suite` run with it
on the path. The suite's tests share them (test/python/suite/conftest.py
gives the `plugin_path` fixture)."""

import os
import subprocess
import sys
from pathlib import Path

from lighthouse.suite.records import read_results

PLUGIN = '''
import os, signal, sys, time
import numpy as np
from lighthouse.suite import Case, CaseInfo, Compiler, Corpus, Crashed, Option, Unsupported

BEHAVIOURS = ("good", "crash", "hang", "wrong", "compile_error", "run_error", "unsupported",
              "tool_crash", "crash_when_timed")

class Toy(Corpus):
    description = "cases that make the toy compiler misbehave"
    options = {
        "scale": Option(1.0, "a factor of every input", type=float),
        "hoard": Option(0.0, "GiB the toy holds, touched, while it compiles", type=float),
    }

    def cases(self):
        return [CaseInfo(name, op=name) for name in BEHAVIOURS]

    def load(self, name):
        x = np.arange(6, dtype=np.float32).reshape(2, 3) * self.options["scale"]
        behaviour = f"hoard:{self.options['hoard']}" if self.options["hoard"] else name
        return Case(name, [x], mlir=behaviour, expected=[x * 2], op=name)

class ToyCompiler(Compiler):
    """Doubles its input, unless the case says otherwise; variant `sound`
    always doubles."""
    takes = ("mlir",)

    @classmethod
    def variants(cls):
        return [None, "sound"]

    def compile(self, case, form):
        behaviour = "good" if self.variant == "sound" else case.form("mlir")
        if behaviour == "crash":
            print("toy: about to crash", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        if behaviour == "hang":
            time.sleep(3600)
        if behaviour.startswith("hoard:"):
            # Grows by 64 MiB every 50 ms, each page written, then holds it.
            chunk, hoard = 64 << 20, []
            for _ in range(int(float(behaviour[6:]) * 2**30) // chunk):
                hoard.append(np.ones(chunk // 8))
                time.sleep(0.05)
            time.sleep(10)
            raise ValueError(f"toy held {len(hoard)} chunks of 64 MiB")
        if behaviour == "compile_error":
            raise ValueError("'toy.op' cannot be lowered")
        if behaviour == "unsupported":
            raise Unsupported("toy does not take this")
        if behaviour == "tool_crash":  # A compiler run as a command, which died.
            raise Crashed("toy-compile died of SIGBUS", "SIGBUS")
        calls = []

        def run(inputs):
            calls.append(1)
            if behaviour == "run_error":
                raise RuntimeError("toy ran out of toys")
            if behaviour == "crash_when_timed" and len(calls) > 1:
                os.kill(os.getpid(), signal.SIGSEGV)
            return [inputs[0] * (3 if behaviour == "wrong" else 2)]
        return run
'''


def install_toy_plugin(root: Path) -> Path:
    """Writes the toy plugin package and its metadata into `root`, a folder
    that, on the path, is found through the entry points like an installed
    package."""
    (root / "toy_suite.py").write_text(PLUGIN)
    info = root / "toy_suite-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-suite\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[lighthouse.corpora]\ntoy = toy_suite:Toy\n\n"
        "[lighthouse.compilers]\ntoy = toy_suite:ToyCompiler\n"
    )
    return root


def lh_suite(plugin_path, *args, check=True):
    environment = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            [str(plugin_path)]
            + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        ),
    )
    result = subprocess.run(
        [sys.executable, "-m", "lighthouse.suite.cli", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"lh-suite {' '.join(args)} exited with {result.returncode}:\n"
            f"{result.stdout}\n{result.stderr}"
        )
    return result


def by_case(path, compiler):
    return {r["case"]: r for r in read_results(str(path))[1] if r["compiler"] == compiler}


def run_toy(plugin_path, output, *args, compilers="toy,toy:sound", check=True):
    """`lh-suite run` of the toy corpus into `output`, with `args`."""
    return lh_suite(
        plugin_path,
        "run",
        "--corpus",
        "toy",
        "--compiler",
        compilers,
        "-o",
        str(output),
        *args,
        check=check,
    )
