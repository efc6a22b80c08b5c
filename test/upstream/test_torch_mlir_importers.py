"""Runs torch-mlir's own importer tests (`test/python/fx_importer` and
`test/python/onnx_importer` of a torch-mlir source checkout) against lighthouse.

On demand: set LIGHTHOUSE_TORCH_MLIR_SOURCE to the checkout (nothing of
torch-mlir is in this repository, and no package registry ships its tests).
The tests are copied twice into pytest's tmp_path: as they are, run against
the installed torch-mlir to know which pass there, and with `torch_mlir`
renamed to lighthouse's modules (`RENAMES`), run against lighthouse. Each
test that passes on torch-mlir must pass on lighthouse, or be listed in
torch_mlir/expected_failures.txt with its reason.
"""

import os
import re
import shutil
from pathlib import Path

import pytest

from lit_suites import PASS_CODES, SKIP_CODES, parse_expected_failures, run_lit

HERE = Path(__file__).resolve().parent
LIT_CFG = HERE / "lit.cfg.py"
EXPECTED_FAILURES = HERE / "torch_mlir" / "expected_failures.txt"
SOURCE_VARIABLE = "LIGHTHOUSE_TORCH_MLIR_SOURCE"
SUITES = ("fx_importer", "onnx_importer")
CATEGORIES = ("not-provided", "failing")

#: torch-mlir's modules, as the tests name them, and lighthouse's equivalents.
#: `torch_mlir` as a word only: the tests' own torch library `torch_mlir_test`
#: keeps its name.
RENAMES = [
    (re.compile(r"\btorch_mlir\.tools\.import_onnx\b"), "lighthouse.extras.tools.import_onnx"),
    (re.compile(r"\btorch_mlir\.fx\b"), "lighthouse.extras.fx"),
    (re.compile(r"\bfrom torch_mlir import fx\b"), "from lighthouse.extras import fx"),
    (
        re.compile(r"\btorch_mlir(?=\.(?:extras|ir|dialects|passmanager|compiler_utils)\b)"),
        "lighthouse",
    ),
    (re.compile(r"\bfrom torch_mlir import\b"), "from lighthouse import"),
]


def renamed(text: str) -> str:
    for pattern, replacement in RENAMES:
        text = pattern.sub(replacement, text)
    return text


def prepare_suite(source: Path, destination: Path, rename: bool) -> None:
    """Copies torch-mlir's importer tests under `source` (its test/python) to
    `destination`, their Python and lit files renamed if `rename`."""
    for suite in SUITES:
        for path in sorted((source / suite).rglob("*")):
            out = destination / path.relative_to(source)
            if path.is_dir():
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            if rename and path.suffix in (".py", ".runlit"):
                out.write_text(renamed(path.read_text(encoding="utf-8")), encoding="utf-8")
            else:
                shutil.copy2(path, out)
    shutil.copy2(LIT_CFG, destination / "lit.cfg.py")


def test_torch_mlir_importer_tests(tmp_path, capsys):
    source = os.environ.get(SOURCE_VARIABLE)
    if not source:
        pytest.skip(f"on demand: {SOURCE_VARIABLE}=<torch-mlir checkout> (docs/ingress.md)")
    source = Path(source) / "test" / "python"
    assert all((source / suite).is_dir() for suite in SUITES), (
        f"{SOURCE_VARIABLE} must be a torch-mlir checkout with {', '.join(SUITES)} under {source}"
    )
    pytest.importorskip("torch_mlir", reason="needs torch-mlir to know which tests pass there")
    expected = parse_expected_failures(EXPECTED_FAILURES, CATEGORIES)

    results = {}
    for variant, rename in (("torch-mlir", False), ("lighthouse", True)):
        suite = tmp_path / variant / "test" / "python"
        prepare_suite(source, suite, rename)
        results[variant] = run_lit(suite, tmp_path / f"{variant}.json", ["suite=torch-mlir"])
    theirs, _, _, _ = results["torch-mlir"]
    ours, outputs, _, elapsed = results["lighthouse"]

    passing_there = sorted(p for p, code in theirs.items() if code in PASS_CODES)
    passing_here = [p for p in passing_there if ours.get(p) in PASS_CODES]
    unexpected = [p for p in passing_there if p not in passing_here and p not in expected]
    now_passing = [p for p in passing_here if p in expected]
    # Listed tests that do not pass on torch-mlir at this checkout may at
    # another; those not in it at all are stale.
    missing = sorted(p for p in expected if p not in theirs)
    not_passing_there = sorted(p for p in expected if p in theirs and p not in passing_there)
    with capsys.disabled():
        print(
            f"\ntorch-mlir's importer tests: {len(passing_here)} of the {len(passing_there)} "
            f"that pass on torch-mlir pass on lighthouse ({len(theirs)} files; on torch-mlir "
            f"{sum(c in SKIP_CODES for c in theirs.values())} unsupported, "
            f"{len(theirs) - len(passing_there) - sum(c in SKIP_CODES for c in theirs.values())} "
            f"failing; lighthouse's run took {elapsed:.1f} s)"
        )
        for path in sorted(theirs):
            print(f"  {path}: torch-mlir {theirs[path]}, lighthouse {ours.get(path)}")
        for path in not_passing_there:
            print(f"note: {path} is listed in {EXPECTED_FAILURES.name} but fails on torch-mlir too")

    problems = []
    if unexpected:
        problems.append(
            "Pass on torch-mlir, fail on lighthouse, not in "
            f"{EXPECTED_FAILURES.name}:\n"
            + "\n".join(f"  {p}: {ours.get(p)}\n{outputs.get(p, '')[:4000]}" for p in unexpected)
        )
    if now_passing:
        problems.append(
            f"Listed in {EXPECTED_FAILURES.name} but pass (remove them):\n  "
            + "\n  ".join(now_passing)
        )
    if missing:
        problems.append(
            f"Listed in {EXPECTED_FAILURES.name} but not in the checkout (stale):\n  "
            + "\n  ".join(missing)
        )
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)
