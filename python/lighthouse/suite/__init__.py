"""lighthouse's compiler test bench: corpora of other people's workloads run
through compilers side by side (correctness, crashes, speed).

    lh-suite run --corpus onnx-node --compiler lighthouse:default,onnxruntime
    lh-suite report lh-suite.jsonl --html report.html

A corpus (`Corpus`) lists cases (`Case`: a workload in torch, ONNX or linalg
form, its inputs and its reference outputs); a compiler (`Compiler`) compiles
a case in a form it takes and runs it. Both are plugins, found through entry
points (`lighthouse.corpora`, `lighthouse.compilers`). Every case runs in a
worker process (`lighthouse.suite.worker`), replaced when a compiler crashes
or hangs there, so that a crash is a recorded result. See
docs/testing-compilers.md.
"""

from .case import FORMS, Case, CaseInfo, Crashed, InvalidCase, Unsupported
from .plugins import Compiler, Corpus, Option

__all__ = [
    "FORMS",
    "Case",
    "CaseInfo",
    "Compiler",
    "Corpus",
    "Crashed",
    "InvalidCase",
    "Option",
    "Unsupported",
]
