"""Test suites of other projects run with lit against lighthouse
(test/upstream): their expected failures files, and lit's per-file results."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: lit result codes that count as passing (XFAIL: the suite marks it expected).
PASS_CODES = {"PASS", "XFAIL"}
SKIP_CODES = {"UNSUPPORTED"}
LIT_TIMEOUT_S = 3600  # lit has no per-test timeout without psutil; guard against hangs.


def parse_expected_failures(path: Path, categories) -> dict:
    """{relative path: (category, reason)} of the lines `path: <category>: reason`."""
    entries = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(":", 2)]
        if len(parts) != 3 or parts[1] not in categories or not parts[2]:
            raise ValueError(
                f"{path.name}:{lineno}: expected "
                f"'path: <{'|'.join(categories)}>: reason', got {line!r}"
            )
        if parts[0] in entries:
            raise ValueError(f"{path.name}:{lineno}: duplicate entry {parts[0]}")
        entries[parts[0]] = (parts[1], parts[2])
    return entries


def run_lit(suite: Path, report: Path, params=()) -> tuple:
    """Runs lit on `suite` with `params` (`NAME=VALUE`); (results {path: code},
    outputs {path: text}, lit's log, seconds). Fails the test if lit itself
    did not complete."""
    # `-m lit` only works with lit releases that ship lit/__main__.py.
    cmd = [
        sys.executable,
        "-c",
        "import sys; from lit.main import main; sys.exit(main())",
        "-v",
        "-o",
        str(report),
        *(f"--param={param}" for param in params),
        str(suite),
    ]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env=dict(os.environ),
            timeout=LIT_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"lit did not finish within {LIT_TIMEOUT_S}s:\n{e.stdout}\n{e.stderr}")
    elapsed = time.monotonic() - start
    log = (
        f"lit exited with {proc.returncode}\n--- stdout ---\n{proc.stdout[-20000:]}"
        f"\n--- stderr ---\n{proc.stderr[-20000:]}"
    )
    # lit exits 1 when tests fail; anything else, or no report, is a lit problem.
    assert proc.returncode in (0, 1) and report.is_file(), (
        f"lit did not complete (crash, config error or no tests found)\n{log}"
    )
    results, outputs = {}, {}
    for t in json.loads(report.read_text())["tests"]:
        # Names are "<suite name> :: <path in suite>".
        path = t["name"].split(" :: ", 1)[-1]
        results[path] = t["code"]
        outputs[path] = t.get("output", "")
    assert results, f"lit discovered no tests\n{log}"
    failed = {p for p, c in results.items() if c not in PASS_CODES | SKIP_CODES}
    # A non-zero exit without failing tests means lit itself reported an error.
    assert failed or proc.returncode == 0, f"lit reported an error\n{log}"
    return results, outputs, log, elapsed
