"""lighthouse.fuzz.programs and the differential fuzzer: linalg programs of
every op family compiled on the default and the loops pipelines, their
results compared; a bounded run that fails on any crash, hang or mismatch,
and the code generator's reproducers that once crashed it."""

import collections

import numpy as np

from lighthouse import fuzz, ir
from lighthouse.fuzz.programs import FAMILIES, Program, make_program, programs
from lighthouse.fuzz.worker import compare

# Fixed, so that a failure names programs anyone can run again:
# `lh-fuzz --mlir 0 --onnx 0 --seed 5 --replay linalg:N`.
SEED = 5
# Measured on 2 shared cores: about 0.6 s a program (two compiles, two
# calls); 5 of each family take about 25 s.
PER_FAMILY = 5


def _report(findings) -> str:
    return "\n".join(
        f"linalg:{r['index']} ({r['program']}: {r['mutations'][0]}): {r['status']} "
        f"{r.get('signature') or r.get('message') or r}\n{r['reproducer']['text']}"
        for r in findings
    )


def test_programs_are_a_function_of_seed_and_index():
    first, again = make_program(SEED, 11), make_program(SEED, 11)
    assert (first.text, first.shapes) == (again.text, again.shapes)
    assert len({make_program(SEED, i).text for i in range(64)}) == 64


def test_every_family_makes_programs_that_parse_with_the_sizes_asked_for():
    drawn = list(programs(SEED, 40 * len(FAMILIES)))
    assert collections.Counter(p.family for p in drawn) == {f: 40 for f in FAMILIES}
    for program in drawn:
        with ir.Context():
            ir.Module.parse(program.text)
    shapes = [size for p in drawn for shape in p.shapes for size in shape]
    # Zero, one, primes and sizes no register tile divides are all drawn.
    assert {0, 1, 13, 17, 197} <= set(shapes)
    assert any("?x" in p.text for p in drawn)  # Dynamic sizes too.
    types = {t for p in drawn for t in ("f16", "bf16", "f64", "i8", "i64") if t in p.text}
    assert types == {"f16", "bf16", "f64", "i8", "i64"}


def test_bounded_differential_run_finds_no_crash_or_mismatch():
    records = fuzz.run(programs(SEED, PER_FAMILY * len(FAMILIES)), seed=SEED)
    findings = [r for r in records if r["status"] != "ok" and r["status"] != "rejected"]
    findings += [r for r in records if r.get("unexpected")]
    assert not findings, _report(findings)
    # The programs compile and run on both pipelines, not stop early.
    assert sum(r["status"] == "ok" for r in records) >= len(records) * 9 // 10


# What once crashed the default pipeline and compiled on loops: a sum over
# rows of no columns, a max pooling window of no columns, a convolution
# whose filter is f64 and whose input f32.
REPRODUCERS = {
    "sum of rows of no columns": (
        """
func.func @main(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x0xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}""",
        [[4, 0]],
    ),
    "pooling window of no columns": (
        """
func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x6xf32> {
  %lowest = arith.constant -3.4e38 : f32
  %e = tensor.empty() : tensor<1x2x5x6xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x2x5x6xf32>) -> tensor<1x2x5x6xf32>
  %window = tensor.empty() : tensor<1x0xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %window : tensor<1x2x5x5xf32>, tensor<1x0xf32>) outs(%init : tensor<1x2x5x6xf32>) -> tensor<1x2x5x6xf32>
  return %r : tensor<1x2x5x6xf32>
}""",
        [[1, 2, 5, 5]],
    ),
    "f64 filter of an f32 convolution": (
        """
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf64>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf64>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}""",
        [[1, 3, 8, 8], [4, 3, 3, 3]],
    ),
}


def test_reproducers_compile_and_match_loops():
    cases = [
        Program(index, "reproducer", name, text, shapes, terms=27)
        for index, (name, (text, shapes)) in enumerate(REPRODUCERS.items())
    ]
    records = fuzz.run(cases, diagnose=False)
    assert [r["status"] for r in records] == ["ok"] * len(cases), records


def test_compare_names_the_first_element_beyond_the_tolerance():
    expected = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert compare((expected,), (expected + 1e-7,), terms=1) is None
    wrong = expected.copy()
    wrong[2, 1] += 0.5
    found = compare((expected,), (wrong,), terms=1)
    assert found["first"] == [2, 1] and found["mismatched"] == 1
    # Summing more terms in another order explains more.
    assert compare((expected,), (expected + 1e-4,), terms=64) is None
    # Integers must agree exactly; NaN and infinity where the reference has them.
    ints = np.arange(6, dtype=np.int32)
    assert compare((ints,), (ints + np.eye(1, 6, 3, dtype=np.int32)[0],), terms=1)["first"] == [3]
    special = np.array([np.nan, np.inf, 1.0], dtype=np.float32)
    assert compare((special,), (special.copy(),), terms=1) is None
    assert compare((special,), (np.array([1.0, np.inf, 1.0], np.float32),), terms=1)
    assert "float64" in compare((expected,), (expected.astype(np.float64),), terms=1)["why"]


def test_family_option_draws_from_that_family_alone():
    for family in FAMILIES:
        assert {p.family for p in programs(SEED, 6, families=(family,))} == {family}
