"""Runs upstream MLIR's Python binding tests (`mlir/test/python`) against lighthouse.

The suite is copied out of the fetched MLIR sources into pytest's tmp_path,
with references to the `mlir` Python package rewritten to `lighthouse`, and
run with lit using this directory's lit.cfg.py. Per-file results are compared
with expected_failures.txt.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lit_suites import PASS_CODES, SKIP_CODES, parse_expected_failures, run_lit

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
FETCH_SCRIPT = REPO_ROOT / "build_tools" / "fetch_mlir_sources.py"
LIT_CFG = HERE / "lit.cfg.py"
EXPECTED_FAILURES = HERE / "expected_failures.txt"

SUITE_SUBDIR = Path("mlir", "test", "python")
CATEGORIES = ("not-shipped", "failing")
MIN_PASS_RATE = 0.95

# Submodules of the `mlir` package that the suite refers to.
_SUBMODULES = (
    "ir",
    "dialects",
    "_mlir_libs",
    "passmanager",
    "execution_engine",
    "runtime",
    "rewrite",
    "extras",
)
# `mlir.<submodule>` as a module path, an import target or a type/capsule name
# string. The lookbehind keeps IR text such as `llvm.mlir.constant` intact.
_DOTTED_RE = re.compile(r"(?<![\w.\-/])mlir(?=\.(?:%s)\b)" % "|".join(_SUBMODULES))
# `import mlir`, `from mlir import ...`, `import mlir.x as y`.
_IMPORT_RE = re.compile(r"\b(from|import)(\s+)mlir\b(?![-\w])")
# Package directory in source-location CHECK lines (ir/auto_location.py).
_PATH_RE = re.compile(r"\bmlir(?=\[\[SEP\]\]dialects\[\[SEP\]\])")
# Class paths in CHECK patterns, e.g. `<mlir.{{.+}}.RegionIterator`.
_REPR_RE = re.compile(r"<mlir(?=\.\{\{)")


def rewrite_mlir_package_refs(text: str) -> str:
    text = _IMPORT_RE.sub(r"\1\2lighthouse", text)
    text = _DOTTED_RE.sub("lighthouse", text)
    text = _PATH_RE.sub("lighthouse", text)
    return _REPR_RE.sub("<lighthouse", text)


def prepare_suite(src: Path, dst: Path) -> None:
    """Copies the suite to dst, rewriting package references in Python/lit files."""
    dst.mkdir(parents=True, exist_ok=True)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        out = dst / rel
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py" or path.name == "lit.local.cfg":
            out.write_text(
                rewrite_mlir_package_refs(path.read_text(encoding="utf-8")), encoding="utf-8"
            )
        else:
            shutil.copy2(path, out)
    shutil.copy2(LIT_CFG, dst / "lit.cfg.py")


def source_root() -> Path:
    proc = subprocess.run([sys.executable, str(FETCH_SCRIPT)], capture_output=True, text=True)
    assert proc.returncode == 0, f"{FETCH_SCRIPT.name} failed:\n{proc.stdout}\n{proc.stderr}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"{FETCH_SCRIPT.name} printed no source root"
    return Path(lines[-1].strip())


def test_upstream_python_suite(tmp_path, capsys):
    expected = parse_expected_failures(EXPECTED_FAILURES, CATEGORIES)

    # Fail early with a clear message rather than every test failing on import.
    probe = subprocess.run(
        [sys.executable, "-c", "import lighthouse.ir"], capture_output=True, text=True
    )
    assert probe.returncode == 0, f"lighthouse is not importable:\n{probe.stderr}"

    src = source_root() / SUITE_SUBDIR
    assert src.is_dir(), f"missing upstream suite: {src}"
    # Keep the `test/python` tail: some CHECK lines match the test's own path.
    suite = tmp_path / "test" / "python"
    prepare_suite(src, suite)

    results, outputs, _, elapsed = run_lit(suite, tmp_path / "lit-results.json")
    failed = {p for p, c in results.items() if c not in PASS_CODES | SKIP_CODES}
    unexpected = sorted(failed - expected.keys())
    now_passing = sorted(p for p in expected if results.get(p) in PASS_CODES)
    missing = sorted(p for p in expected if p not in results)
    unsupported_listed = sorted(p for p in expected if results.get(p) in SKIP_CODES)

    not_shipped = {p for p, (cat, _) in expected.items() if cat == "not-shipped"}
    counted = [p for p, c in results.items() if c not in SKIP_CODES and p not in not_shipped]
    passed = [p for p in counted if results[p] in PASS_CODES]
    rate = len(passed) / len(counted) if counted else 0.0
    codes = {}
    for c in results.values():
        codes[c] = codes.get(c, 0) + 1
    summary = (
        f"upstream mlir/test/python: {len(passed)}/{len(counted)} shipped-dialect "
        f"test files pass ({rate:.1%}); {len(results)} files run, "
        f"{len(not_shipped)} not-shipped excluded; lit codes "
        f"{dict(sorted(codes.items()))}; lit took {elapsed:.1f}s"
    )
    with capsys.disabled():
        print("\n" + summary)
        for p in unsupported_listed:
            print(f"note: {p} is in {EXPECTED_FAILURES.name} but was UNSUPPORTED here")

    problems = []
    if unexpected:
        problems.append(
            "New failures (not in expected_failures.txt):\n"
            + "\n".join(f"  {p}: {results[p]}" for p in unexpected)
        )
    if now_passing:
        problems.append(
            "Expected failures that now pass (remove them from "
            "expected_failures.txt):\n" + "\n".join(f"  {p}" for p in now_passing)
        )
    if missing:
        problems.append(
            "Entries of expected_failures.txt that lit did not run (stale):\n"
            + "\n".join(f"  {p}" for p in missing)
        )
    if problems:
        # The head holds the traceback / FileCheck error; the rest is an input dump.
        details = "".join(
            f"\n\n--- {p} ({results[p]}) ---\n{outputs[p][:6000]}" for p in unexpected
        )
        pytest.fail("\n\n".join(problems) + f"\n\n{summary}{details}", pytrace=False)

    assert rate >= MIN_PASS_RATE, (
        f"only {len(passed)}/{len(counted)} ({rate:.1%}) of the shipped-dialect test files "
        f"pass, below {MIN_PASS_RATE:.0%}\n{summary}"
    )
