"""Results files: JSON lines, a `run` record describing the run, then one
`case` record per case and compiler.

A run record holds `schema` (the version of these records, `SCHEMA_VERSION`;
files written before it had none are version 1 and still load), what ran
(corpora, compilers, threads, timed, settings: the options that choose and
time the cases), with what (lighthouse's version, the commit of the working
copy the run started in, if any) and where (machine, python); a shard's, the
part of the cases it ran (`shard`: [index, count]).

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
  case_seconds  the case's wall time, all its compilers, from when a worker
              took it (what a later run's shards are balanced by)
  machine, threads  where the case ran, when not on the run's machine (a
              distributed run's node)
"""

import json
import os
import platform
import re
import subprocess
import time
from typing import List, Optional, Tuple

__all__ = [
    "FAILED",
    "SCHEMA_VERSION",
    "STATUSES",
    "ResultsWriter",
    "case_record",
    "last_words",
    "machine",
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
#: The version of the records' layout. 2: run records have `schema`,
#: `settings`, `commit` and `shard`; case records `case_seconds`.
SCHEMA_VERSION = 2


# The line of a dying process's output that says why: LLVM's fatal errors,
# failed assertions, Python's last exception.
_LAST_WORDS = re.compile(r"^.*(LLVM ERROR|Assertion .* failed|Error:|error:).*$", re.MULTILINE)


def last_words(output: str) -> Optional[str]:
    """The line of a crashed process's output that says why it died, if any."""
    found = _LAST_WORDS.search(output or "")
    return found.group(0).strip() if found else None


def machine() -> str:
    """This machine's CPU model and core count."""
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(
                (line.split(":", 1)[1].strip() for line in f if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def _commit() -> Optional[str]:
    """The commit checked out where the run started, if that is a git working copy."""
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def run_record(
    corpora: List[str],
    compilers: List[str],
    threads: int,
    argv: List[str],
    timing: bool,
    settings: Optional[dict] = None,
    shard: Optional[Tuple[int, int]] = None,
) -> dict:
    """What the run was, on what machine: `settings` are the options that
    choose and time its cases, `shard` (index, count) the part it runs."""
    import lighthouse

    record = {
        "record": "run",
        "schema": SCHEMA_VERSION,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "lighthouse": lighthouse.__version__,
        "commit": _commit(),
        "corpora": corpora,
        "compilers": compilers,
        "threads": threads,
        "timed": timing,
        "settings": settings or {},
        "machine": machine(),
        "python": platform.python_version(),
        "argv": argv,
    }
    if shard:
        record["shard"] = list(shard)
    return record


def case_record(task, compiler: str, result: dict) -> dict:
    return {
        "record": "case",
        "corpus": task.corpus,
        "case": task.info.name,
        "compiler": compiler,
        "tags": task.info.tags,
        **result,
        **({"case_seconds": task.seconds} if task.seconds is not None else {}),
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
      ValueError: a line is not a JSON record, or a run record is of a later
        schema than this lighthouse reads, naming the file and line.
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
                if record.get("schema", 1) > SCHEMA_VERSION:
                    raise ValueError(
                        f"{path}:{number}: results of schema {record['schema']}, written by a "
                        f"later lighthouse; this one reads up to {SCHEMA_VERSION}"
                    )
                runs.append(record)
            elif kind == "case":
                cases[(record["corpus"], record["case"], record["compiler"])] = record
            else:
                raise ValueError(f"{path}:{number}: not a results record")
    return runs, list(cases.values())
