"""The repository's example packages, installed as a user installs them: by
pip, into a folder of their own, against the installed lighthouse."""

import importlib.metadata
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lighthouse

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def clang_environment() -> dict:
    """The environment with CC and CXX set to the clang of lighthouse's MLIR
    release, which dialects built against lighthouse must use; skips the test
    without it."""
    major = lighthouse.MLIR_VERSION.split(".")[0]
    cc, cxx = shutil.which(f"clang-{major}"), shutil.which(f"clang++-{major}")
    if not cc or not cxx:
        pytest.skip(f"clang-{major} is not installed (build_tools/setup.sh installs it)")
    return {**os.environ, "CC": cc, "CXX": cxx}


def install_example(name: str, folder: Path, *, copy: bool = True, env=None) -> Path:
    """Installs `examples/<name>` into `folder/site` (no dependencies, no build
    isolation) and returns that folder. With `copy`, it is built from a copy
    in `folder`: setuptools writes its build folder next to the sources.

    Raises:
      AssertionError: pip failed, with the end of its output.
    """
    source = EXAMPLES / name
    if copy:
        source = shutil.copytree(source, folder / "source")
    site = folder / "site"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(site),
            str(source),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return site


def install_against_installed_lighthouse(name: str, folder: Path) -> Path:
    """Installs `examples/<name>` by pip, from its sources, into `folder/site`
    against the lighthouse installed in this environment (skips the test when
    lighthouse is a build tree on PYTHONPATH); returns that folder."""
    if "lighthouse" not in {d.metadata["Name"] for d in importlib.metadata.distributions()}:
        pytest.skip(
            "lighthouse is not installed (a build tree on PYTHONPATH): the examples "
            "build against an installed lighthouse"
        )
    start = time.perf_counter()
    # From the sources themselves: scikit-build-core builds in a temporary folder.
    site = install_example(name, folder, copy=False, env=clang_environment())
    print(f"\nexamples/{name}: pip install took {time.perf_counter() - start:.1f} s")
    return site


def _run(command, **kwargs) -> str:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}{result.stderr[-5000:]}"
    return result.stdout


class WheelsOnlyVenv:
    """A fresh virtual environment holding lighthouse's wheel (from `wheels`)
    and nothing else, without the SDK as a user's environment holds it,
    where examples are installed by pip as a user does (build isolation,
    whose environment gets lighthouse[sdk] from the example's build
    requirements, no compiler variables) and run, with Debian's MLIR/LLVM
    development packages hidden (build_tools/without_mlir_dev.sh)."""

    def __init__(self, folder: Path, wheels: str):
        self.venv, self.wheels = folder / "venv", wheels
        _run([sys.executable, "-m", "venv", str(self.venv)])
        version = lighthouse.LIGHTHOUSE_VERSION
        _run(
            [self.venv / "bin" / "python", "-m", "pip", "install", "-q", "--find-links", wheels]
            + [f"lighthouse=={version}"]
        )
        major = lighthouse.MLIR_VERSION.split(".")[0]
        # What hiding must have done, checked before each command.
        self.hidden = (
            f"test ! -e /usr/lib/llvm-{major}/include/mlir/IR/Builders.h\n"
            f"test ! -e /usr/lib/llvm-{major}/lib/cmake/mlir/MLIRConfig.cmake\n"
            f"! /usr/lib/llvm-{major}/bin/mlir-tblgen --version 2>/dev/null\n"
        )
        self.environment = {
            k: v for k, v in os.environ.items() if k not in ("CC", "CXX", "PYTHONPATH")
        }

    def _hidden(self, command: str) -> str:
        script = EXAMPLES.parent / "build_tools" / "without_mlir_dev.sh"
        return _run([script, "bash", "-ec", self.hidden + command], env=self.environment)

    def install_and_run(self, example: str, story: str) -> str:
        """Installs `examples/<example>` and returns what the Python script
        `story` prints."""
        python = self.venv / "bin" / "python"
        start = time.perf_counter()
        self._hidden(
            f'"{python}" -m pip install -q --find-links "{self.wheels}" "{EXAMPLES / example}"'
        )
        print(
            f"\nexamples/{example} from the wheels alone: pip install took "
            f"{time.perf_counter() - start:.1f} s"
        )
        script = self.venv.parent / f"{example}.py"
        script.write_text(story)
        return self._hidden(f'"{python}" "{script}"')
