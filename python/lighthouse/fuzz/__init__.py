"""Fuzzing lighthouse's front doors: mutants of linalg-on-tensors IR (text) and
of ONNX models, each parsed, compiled and called with random inputs in a
worker process that is replaced when it dies, so that a crash or a hang is a
recorded outcome and never the end of the run.

    lh-fuzz --mlir 10000 --onnx 2000 --seed 1 -o fuzz.jsonl      (or lh-suite fuzz)

A mutant is a seed program (`seeds`) with one to three mutations, and
is a function of (kind, seed, index) alone: `lh-fuzz --replay mlir:17
--seed 1` makes and runs mutant 17 again. Outcomes:

  ok        compiled and called (`called: false` when its inputs would be too
            large to make)
  rejected  MLIR's parser or verifier refused the text
  error     a Python exception while compiling or calling (`error_class`):
            ONNX's checker, the importer, a lowering, a runtime check...;
            `unexpected: true` when of a class lighthouse does not raise on
            bad input (a KeyError, a TypeError...)
  crash     the worker died (`signal`, the line of its output that says why),
            or torch-mlir's lowering process did (stage `lowering`)
  hang      no answer within the time limit of a stage (`stage`); a call past
            the limit is the mutant's own loop more often than not
            (`scf.for` to 2^62), and is not counted as a finding

A crash is classified by a signature: the stage, where it happened (the
parser of which op, which pass and pattern: the MLIR mutant is run again
through `lh-opt`, or under gdb when lh-opt survives it, whose backtraces
name them) and why (LLVM's fatal error, glibc's heap check, or the signal).
A crash that does not recur in a new worker is put down to an earlier
mutant of the same worker that corrupted the heap (`culprit`).
`KNOWN_UPSTREAM` lists the crashes that are MLIR's own, each with a
reproducer that Debian's `mlir-opt` crashes on too; `KNOWN_LIGHTHOUSE` the
open bugs of lighthouse's; crashes and hangs of torch-mlir's process are
contained (compile_onnx raises LoweringCrash). Every other crash or hang is
a new finding.

The differential fuzzer checks the code generator on valid programs:

    lh-fuzz --mlir 0 --onnx 0 --linalg 20000 --seed 1 -o differential.jsonl

A program (`programs`) is one linalg op of a family (contractions,
convolutions, poolings, reductions, softmax, elementwise chains, transposes,
pads) over sizes and element types drawn to be awkward, compiled on the
default and the loops pipelines and called on the same inputs; a result
that differs beyond the tolerance is a `mismatch`, a finding as crashes are.

The package by stage: `mutants` (and their `seeds`) and `programs`, `worker`
(a case run in a worker process, and the comparison of a program's
results), `campaign` (the driver, confirmation and the summary), `triage` (a
crash's signature), `known` (the crashes known), `settings` (limits), `cli`.
"""

from .campaign import new_findings, render_summary, run, summarize
from .known import (
    KNOWN_LIGHTHOUSE,
    KNOWN_UPSTREAM,
    TORCH_MLIR_LOWERING,
    KnownCrash,
    classify,
    owner,
)
from .mutants import Mutant, make_mutant, mutants
from .programs import FAMILIES, Program, make_program, programs
from .seeds import MLIR_SEEDS, ONNX_SEEDS
from .triage import diagnose_mlir, signature

__all__ = [
    "FAMILIES",
    "KNOWN_LIGHTHOUSE",
    "KNOWN_UPSTREAM",
    "MLIR_SEEDS",
    "ONNX_SEEDS",
    "TORCH_MLIR_LOWERING",
    "KnownCrash",
    "Mutant",
    "Program",
    "classify",
    "diagnose_mlir",
    "make_mutant",
    "make_program",
    "mutants",
    "new_findings",
    "owner",
    "programs",
    "render_summary",
    "run",
    "signature",
    "summarize",
]
