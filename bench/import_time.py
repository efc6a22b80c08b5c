"""Measures how long importing lighthouse's bindings takes, next to importing
numpy (which lighthouse.ir loads when present) as the yardstick, each in fresh
interpreters, in one run.

    .venv/bin/python bench/import_time.py [--runs N]
"""

import argparse
import statistics
import subprocess
import sys

STATEMENTS = {
    "python (empty)": "pass",
    "numpy": "import numpy",
    "lighthouse.ir": "import lighthouse.ir",
    # lighthouse.ir imports numpy when it can; this shows the bindings alone.
    "lighthouse.ir, numpy blocked": (
        "import sys; sys.modules['numpy'] = None; import lighthouse.ir"
    ),
    "lighthouse.ir + Context()": "import lighthouse.ir as ir; ir.Context()",
    "lighthouse.ir + func, arith, linalg": (
        "import lighthouse.ir; from lighthouse.dialects import func, arith, linalg"
    ),
}

TIMER = """
import time
start = time.perf_counter()
{statement}
print(time.perf_counter() - start)
"""


def time_once(statement):
    out = subprocess.run(
        [sys.executable, "-c", TIMER.format(statement=statement)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    for statement in STATEMENTS.values():  # warm the file cache
        time_once(statement)
    medians = {
        name: statistics.median(time_once(stmt) for _ in range(args.runs))
        for name, stmt in STATEMENTS.items()
    }
    baseline = medians["numpy"]
    print(f"{'import':40} {'median ms':>10} {'/ numpy':>8}   ({args.runs} runs each)")
    for name, seconds in medians.items():
        print(f"{name:40} {seconds * 1e3:10.1f} {seconds / baseline:8.2f}")


if __name__ == "__main__":
    main()
