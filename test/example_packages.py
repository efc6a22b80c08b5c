"""The repository's example packages, installed as a user installs them: by
pip, into a folder of their own, against the installed lighthouse."""

import os
import shutil
import subprocess
import sys
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
