"""Results files: JSON lines, a `run` record describing the run, then one
`case` record per case and compiler.

A case record holds:
  corpus, case, compiler, tags   what ran (tags as the corpus lists them)
  status      pass | mismatch | compile-error | run-error | crash | timeout |
              unsupported (the compiler does not take the case) |
              invalid (the case has no usable reference: not counted)
  form        the form the compiler took (torch, onnx, mlir)
  error_class, message, ops      for failures: the exception's class, its text,
              the operations a compile error names
  signal, exit_code, stderr_tail for crashes and hangs: how the worker ended and
              the end of its output
  max_abs_error, max_rel_error   of floating-point outputs against the reference
  compile_seconds, first_call_seconds
  call_seconds, call_spread, calls   the median of timed calls, their
              interquartile range over the median, and their number
"""

import json
import os
import platform
import re
import time
from typing import List, Optional, Tuple

__all__ = [
    "FAILED",
    "STATUSES",
    "ResultsWriter",
    "case_record",
    "last_words",
    "read_results",
    "run_record",
]

STATUSES = (
    "pass",
    "mismatch",
    "compile-error",
    "run-error",
    "crash",
    "timeout",
    "unsupported",
    "invalid",
)
#: Statuses that count against a compiler.
FAILED = ("mismatch", "compile-error", "run-error", "crash", "timeout")


# The line of a dying process's output that says why: LLVM's fatal errors,
# failed assertions, Python's last exception.
_LAST_WORDS = re.compile(r"^.*(LLVM ERROR|Assertion .* failed|Error:|error:).*$", re.MULTILINE)


def last_words(output: str) -> Optional[str]:
    """The line of a crashed process's output that says why it died, if any."""
    found = _LAST_WORDS.search(output or "")
    return found.group(0).strip() if found else None


def run_record(
    corpora: List[str], compilers: List[str], threads: int, argv: List[str], timing: bool
) -> dict:
    """What the run was, on what machine."""
    import lighthouse

    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(
                (line.split(":", 1)[1].strip() for line in f if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    return {
        "record": "run",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "lighthouse": lighthouse.__version__,
        "corpora": corpora,
        "compilers": compilers,
        "threads": threads,
        "timed": timing,
        "machine": f"{model}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "argv": argv,
    }


def case_record(task, compiler: str, result: dict) -> dict:
    return {
        "record": "case",
        "corpus": task.corpus,
        "case": task.info.name,
        "compiler": compiler,
        "tags": task.info.tags,
        **result,
    }


class ResultsWriter:
    """Appends records to a results file, each flushed at once so that a run
    that stops leaves what it did (and `--resume` goes on from there)."""

    def __init__(self, path: str, run: dict, append: bool = False):
        self.path = path
        self.file = open(path, "a" if append else "w")
        self.write(run)

    def write(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


def read_results(path: str) -> Tuple[List[dict], List[dict]]:
    """The run records and the case records of a results file; of a case run
    several times (a resumed run), the last record counts.

    Raises:
      ValueError: a line is not a JSON record, naming the file and line.
    """
    runs, cases = [], {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON record ({error})") from None
            kind = record.get("record") if isinstance(record, dict) else None
            if kind == "run":
                runs.append(record)
            elif kind == "case":
                cases[(record["corpus"], record["case"], record["compiler"])] = record
            else:
                raise ValueError(f"{path}:{number}: not a results record")
    return runs, list(cases.values())
