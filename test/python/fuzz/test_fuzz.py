"""lighthouse.fuzz: a bounded fuzz run of MLIR text and ONNX models
through lighthouse (parse, compile, call, each mutant in a worker process)
that fails on any crash or hang not known to be MLIR's or torch-mlir's own,
and the known upstream crashes checked against lighthouse and Debian's
mlir-opt."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from lighthouse import fuzz

# Fixed, so that a failure names mutants anyone can run again:
# `lh-suite fuzz --seed 14 --replay mlir:N`.
SEED = 14
# Measured on 2 shared cores: 500 MLIR mutants take about 15 s (most stop at
# the parser), 100 ONNX mutants about 16 s (torch-mlir's lowering dominates);
# the whole file about 50 s.
MLIR_MUTANTS = 500
ONNX_MUTANTS = 100

UPSTREAM_MLIR_OPT = os.environ.get("LIGHTHOUSE_UPSTREAM_MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")


def _report(findings) -> str:
    lines = []
    for record in findings:
        lines.append(
            f"{record['kind']}:{record['index']} ({record['program']}: "
            f"{'; '.join(record['mutations'])}): {record.get('signature')}"
        )
        reproducer = record.get("reproducer", {})
        lines.append(reproducer.get("text") or f"model (base64): {reproducer.get('model_base64')}")
    return "\n".join(lines)


def _check(records, kind: str, count: int) -> None:
    assert len(records) == count
    findings = fuzz.new_findings(records)
    assert not findings, (
        f"{len(findings)} crash(es) or hang(s) not known upstream (replay with "
        f"`lh-suite fuzz --seed {SEED} --replay KIND:INDEX`):\n" + _report(findings)
    )
    statuses = [r["status"] for r in records]
    # The mutants reach the compiler and the call, not only the parser.
    assert statuses.count("ok") >= count // 20, fuzz.render_summary(fuzz.summarize(records))


def test_mutants_are_a_function_of_seed_and_index():
    first = fuzz.make_mutant("mlir", SEED, 7)
    again = fuzz.make_mutant("mlir", SEED, 7)
    assert (first.payload, first.mutations) == (again.payload, again.mutations)
    assert first.payload != fuzz.MLIR_SEEDS[first.seed_program]
    texts = {fuzz.make_mutant("mlir", SEED, i).payload for i in range(50)}
    assert len(texts) > 45


def test_bounded_mlir_fuzz_finds_no_unknown_crash():
    records = fuzz.run(fuzz.mutants(SEED, MLIR_MUTANTS, 0), seed=SEED)
    _check(records, "mlir", MLIR_MUTANTS)


def test_bounded_onnx_fuzz_finds_no_unknown_crash():
    pytest.importorskip("onnx")
    pytest.importorskip("torch_mlir")
    first = fuzz.make_mutant("onnx", SEED, 3)
    assert first.payload == fuzz.make_mutant("onnx", SEED, 3).payload
    records = fuzz.run(fuzz.mutants(SEED, 0, ONNX_MUTANTS), seed=SEED)
    _check(records, "onnx", ONNX_MUTANTS)


def _mutant(text: str) -> fuzz.Mutant:
    return fuzz.Mutant("mlir", 0, "reproducer", [], text)


# Compiled code that reads from address 16 (not null, which LLVM would fold
# away as undefined): a crash of the call.
BAD_LOAD = """
func.func @main() -> f32 {
  %a = llvm.mlir.constant(16 : i64) : i64
  %p = llvm.inttoptr %a : i64 to !llvm.ptr
  %v = llvm.load volatile %p : !llvm.ptr -> f32
  return %v : f32
}
"""


def test_a_crash_is_recorded_with_its_signature_and_the_run_goes_on():
    seed = fuzz.MLIR_SEEDS["matmul"]
    records = fuzz.run([_mutant(BAD_LOAD), _mutant(seed)])
    crash, after = records
    assert crash["status"] == "crash" and crash["stage"] == "call"
    assert crash["signal"] == "SIGSEGV"
    assert crash["signature"].startswith("mlir call: a call of a reproducer mutant")
    assert crash["reproducer"] == {"text": BAD_LOAD}
    assert after["status"] == "ok" and after["called"]
    assert fuzz.new_findings(records) == [crash]


def test_a_crash_of_the_parser_is_contained_in_lighthouses_child():
    known = next(k for k in fuzz.KNOWN_UPSTREAM if k.name == "tensor-from-elements-huge-type")
    records = fuzz.run([_mutant(known.reproducer), _mutant(fuzz.MLIR_SEEDS["matmul"])])
    contained, after = records
    assert contained["status"] == "rejected" and contained["stage"] == "parse"
    assert contained["contained"] and "MLIR's parser crashed" in contained["message"]
    assert after["status"] == "ok"
    assert fuzz.summarize(records)["contained"] == 1
    assert not fuzz.new_findings(records)


def test_a_call_past_the_time_limit_is_a_hang_of_the_call_and_not_a_finding():
    loop = """
func.func @main(%a: tensor<1xf32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4611686018427387904 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %a) -> (tensor<1xf32>) {
    %v = tensor.extract %t[%c0] : tensor<1xf32>
    %w = arith.addf %v, %v : f32
    %u = tensor.insert %w into %t[%c0] : tensor<1xf32>
    scf.yield %u : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}
"""
    (record,) = fuzz.run([_mutant(loop)], timeout=3)
    assert record["status"] == "hang" and record["stage"] == "call"
    assert not fuzz.new_findings([record])


@pytest.mark.parametrize("known", fuzz.KNOWN_UPSTREAM, ids=lambda k: k.name)
def test_known_upstream_crash_still_crashes_lighthouse_where_listed(known):
    # lh-opt runs what lighthouse runs (its parser, its default pipeline) and
    # crashes the same way every time, where a crash in the worker may depend
    # on what the process did before (linalg-generic-iterator-types).
    found = fuzz.diagnose_mlir(known.reproducer, known.stage)
    assert found, f"{known.name}: lighthouse no longer crashes on it; remove the entry"
    record = {"kind": "mlir", "stage": known.stage, "status": "crash", **found}
    assert fuzz.classify(fuzz.signature(record)) is known


@pytest.mark.parametrize("known", fuzz.KNOWN_LIGHTHOUSE, ids=lambda k: k.name)
def test_open_lighthouse_bug_still_crashes(known):
    if known.name == "dim-of-negative-constant-index" and not shutil.which("gdb"):
        pytest.skip("only gdb's backtrace names the pattern at fault")
    (record,) = fuzz.run([_mutant(known.reproducer)])
    assert record["status"] == "crash", f"{known.name} no longer crashes: remove the entry"
    assert record["stage"] == known.stage
    assert record["known"] == known.name and record["owner"] == "lighthouse"


@pytest.mark.skipif(
    not os.path.exists(UPSTREAM_MLIR_OPT), reason=f"no upstream mlir-opt at {UPSTREAM_MLIR_OPT}"
)
@pytest.mark.parametrize("known", fuzz.KNOWN_UPSTREAM, ids=lambda k: k.name)
def test_known_upstream_crash_crashes_upstream_mlir_opt(known, tmp_path):
    path = tmp_path / "reproducer.mlir"
    path.write_text(known.reproducer)
    done = subprocess.run(
        [UPSTREAM_MLIR_OPT, str(path), "-o", os.devnull, *known.upstream_options],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode < 0, f"{known.name}: mlir-opt ended with {done.returncode}"


def test_fuzz_command_writes_a_record_per_mutant(tmp_path):
    output = tmp_path / "fuzz.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "lighthouse.suite.cli", "fuzz", "--mlir", "6", "--onnx", "0"]
        + ["--seed", str(SEED), "-o", str(output)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in output.read_text().splitlines()]
    assert [r["index"] for r in records] == list(range(6))
    assert "mlir: 6 mutants" in done.stdout
    replay = subprocess.run(
        [sys.executable, "-m", "lighthouse.fuzz", "--seed", str(SEED)] + ["--replay", "mlir:3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replay.returncode == 0, replay.stderr
    assert fuzz.make_mutant("mlir", SEED, 3).payload in replay.stdout
    # The record comes last, after the mutant's text (which has braces of its own).
    record = json.loads(replay.stdout[replay.stdout.rindex("\n{\n") + 1 :])
    assert record["status"] == records[3]["status"]
