import os
import shutil
import sys
from pathlib import Path

import pytest

# Lets tests import the shared models (test/models.py), ONNX graphs
# (test/onnx_graphs.py) and example helpers: pytest's importlib import mode
# (pyproject.toml) adds no folder of tests to the path.
sys.path.insert(0, str(Path(__file__).parent))

from example_packages import WheelsOnlyVenv  # noqa: E402


@pytest.fixture(scope="session")
def wheels_only_venv(tmp_path_factory):
    """One environment of lighthouse's wheels alone for the examples' tests."""
    wheels = os.environ.get("LIGHTHOUSE_WHEELS")
    if not wheels:
        pytest.skip("needs lighthouse's repaired wheels: build_tools/test_wheel.sh runs this")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding Debian's MLIR packages needs root and unshare")
    return WheelsOnlyVenv(tmp_path_factory.mktemp("wheels-only"), wheels)
