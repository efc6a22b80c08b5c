"""The operators corpus timed, lighthouse's default pipeline against eager
PyTorch on one job, recorded into the repository's results history; then
the history's dashboard and its check of this run against each case's
recent history, whose exit status it returns. Run it at each commit to be
tracked (docs/testing-compilers.md, "Tracking results over time").

    .venv/bin/python bench/track_operators.py [--sample 20] [--db URL]

The history is build/lh-suite-history.sqlite, or the database $LH_SUITE_DB
names; the dashboard build/lh-suite-history.html; the run's results
build/operators-<commit>-<time>.jsonl.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"


def lh_suite(*args: str) -> int:
    return subprocess.run([sys.executable, "-m", "lighthouse.suite.cli", *args]).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, help="this many cases (default: all)")
    parser.add_argument(
        "--db", default=os.environ.get("LH_SUITE_DB", str(BUILD / "lh-suite-history.sqlite"))
    )
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    BUILD.mkdir(exist_ok=True)
    results = BUILD / f"operators-{commit or 'unknown'}-{time.strftime('%Y%m%d%H%M%S')}.jsonl"
    sample = ["--sample", str(args.sample)] if args.sample else []
    status = lh_suite(
        "run",
        "--corpus",
        "operators",
        "--compiler",
        "lighthouse:default,eager",
        "--jobs",
        "1",
        *sample,
        "-o",
        str(results),
    )
    if status:
        return status
    status = lh_suite("record", str(results), "--db", args.db)
    html = str(BUILD / "lh-suite-history.html")
    return status or lh_suite("history", "--db", args.db, "--html", html, "--check")


if __name__ == "__main__":
    sys.exit(main())
