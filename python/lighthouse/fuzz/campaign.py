"""The driver: mutants sent to workers, which are replaced when they die;
crashes confirmed in a new worker, their culprits found, and the outcomes
summed up."""

import collections
import json
import os
import select
import signal
import tempfile
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Union

from .._process import end_worker, fatal_line, output_tail, start_worker
from .known import classify, owner
from .mutants import Mutant
from .programs import Program
from .settings import CASES_PER_WORKER, DEFAULT_TIMEOUT
from .triage import diagnose_mlir, signature

#: What the campaign runs: a mutant, or a program of the differential fuzzer.
Case = Union[Mutant, Program]

# ===----------------------------------------------------------------------=== #
# Running mutants
# ===----------------------------------------------------------------------=== #


class _Worker:
    """A worker process, its announcement pipe, and its output in a file."""

    def __init__(self):
        self.log = tempfile.TemporaryFile(prefix="lh-fuzz-worker-")
        environment = dict(os.environ)
        # One thread each for the compiled code and LLVM's JIT: a fuzz run
        # shares the machine, and threads add nothing to what it finds.
        environment["OMP_NUM_THREADS"] = "1"
        self.process, self.events = start_worker(
            ["-m", "lighthouse.fuzz"], "--worker-fd", self.log, environment
        )
        self.buffer = b""
        self.cases = 0

    def run(self, request: dict, timeout: float) -> dict:
        """The outcome of `request`; a crash or a hang ends the worker."""
        offset = self.log.seek(0, os.SEEK_END)
        self.cases += 1
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        stage = "start"
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.events], [], [], max(0.0, left))
            if not ready:
                self.stop(kill=True)
                return {"status": "hang", "stage": stage}
            data = os.read(self.events, 1 << 16)
            if not data:
                status = self.stop(kill=True)
                tail = output_tail(self.log, offset)
                record = {"status": "crash", "stage": stage, "output_tail": tail}
                if status is not None and status < 0:
                    record["signal"] = signal.Signals(-status).name
                else:
                    record["exit_code"] = status
                fatal = fatal_line(tail)
                if fatal:
                    record["fatal"] = fatal
                return record
            self.buffer += data
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "stage" in message:
                    stage = message["stage"]
                    deadline = time.monotonic() + timeout
                else:
                    return message["outcome"]

    def stop(self, kill: bool) -> Optional[int]:
        status = end_worker(self.process, kill)
        os.close(self.events)
        return status

    def close(self) -> None:
        self.stop(kill=False)
        self.log.close()


#: Of the mutants a worker ran before one crashed it, this many (the most
#: recent) are tried as the cause when the crash does not recur alone.
CULPRITS_TRIED = 20


def _run_fresh(cases: Sequence[Case], timeout: float) -> List[dict]:
    """Outcomes of `cases` run in order in a new worker, up to a crash or a hang."""
    worker = _Worker()
    outcomes = []
    try:
        for mutant in cases:
            outcomes.append(worker.run(mutant.request(timeout), timeout))
            if (
                outcomes[-1]["status"] in ("crash", "hang")
                and outcomes[-1].get("stage") != "lowering"
            ):
                worker.log.close()
                return outcomes
    except BaseException:
        worker.stop(kill=True)
        raise
    worker.close()
    return outcomes


def _confirm(mutant: Case, before: Sequence[Case], timeout: float) -> dict:
    """Whether `mutant`'s crash recurs in a new worker; when it does not, the
    crash is the late effect of an earlier mutant that corrupted the heap
    without dying: the `culprit`, found by running each of the last ones,
    most recent first, followed by `mutant`."""
    if _run_fresh([mutant], timeout)[-1]["status"] == "crash":
        return {"reproduced": True}
    for previous in reversed(before[-CULPRITS_TRIED:]):
        outcomes = _run_fresh([previous, mutant], timeout)
        if outcomes[-1]["status"] == "crash":
            return {"reproduced": False, "culprit": previous}
    return {"reproduced": False}


def _finding(record: dict) -> bool:
    return record["status"] in ("crash", "hang", "mismatch") or bool(record.get("unexpected"))


def run(
    cases: Iterable[Case],
    seed: int = 0,
    timeout: float = DEFAULT_TIMEOUT,
    on_record: Optional[Callable[[dict], None]] = None,
    diagnose: bool = True,
) -> List[dict]:
    """Runs mutants one after another in worker processes; returns a record
    of each (see the module's docstring), calling `on_record` as each comes.

    A crash or a hang ends its worker and the next mutant gets a new one.
    Crashes of MLIR mutants while parsing or compiling are run again through
    lh-opt, or gdb (`diagnose`), to name the op, pass and pattern at fault;
    other crashes are run again alone, then after each of the worker's last
    mutants (`reproduced`, `culprit`). Every crash and hang gets a
    `signature`; `known` names the entry of `KNOWN_UPSTREAM`,
    `KNOWN_LIGHTHOUSE` or `TORCH_MLIR_LOWERING` it matches, `owner` whose
    code it is. Records of findings (crashes, hangs, unexpected exceptions)
    carry their reproducer.
    """
    records = []
    worker = None
    history: List[Case] = []  # What the worker at work has run.
    try:
        for mutant in cases:
            if worker is not None and worker.cases >= CASES_PER_WORKER:
                worker.close()
                worker = None
                history = []
            if worker is None:
                worker = _Worker()
            started = time.monotonic()
            outcome = worker.run(mutant.request(timeout), timeout)
            history.append(mutant)
            if outcome["status"] in ("crash", "hang") and outcome["stage"] != "lowering":
                worker.log.close()
                worker = None
                if outcome["status"] == "crash":
                    # lh-opt names the op and pass at fault, and, crashing on
                    # the mutant alone, shows that it is the mutant's own.
                    found = {}
                    if diagnose and mutant.kind in ("mlir", "linalg"):
                        found = diagnose_mlir(mutant.payload, outcome["stage"])
                    if found:
                        outcome.update(found, reproduced=True)
                    else:
                        outcome.update(_confirm(mutant, history[:-1], timeout))
                history = []
            record = {
                "kind": mutant.kind,
                "index": mutant.index,
                "seed": seed,
                "program": mutant.seed_program,
                "mutations": mutant.mutations,
                **outcome,
                "seconds": round(time.monotonic() - started, 3),
            }
            if record.get("culprit"):
                culprit = record["culprit"]
                record["culprit"] = {
                    "mutant": f"{culprit.kind}:{culprit.index}",
                    "program": culprit.seed_program,
                    "mutations": culprit.mutations,
                    "reproducer": culprit.reproducer(),
                }
            if record["status"] in ("crash", "hang"):
                record["signature"] = signature(record)
                known = classify(record["signature"])
                record["known"] = known.name if known else None
                if known:
                    record["owner"] = owner(known)
            if _finding(record):
                record["reproducer"] = mutant.reproducer()
            records.append(record)
            if on_record:
                on_record(record)
    finally:
        if worker is not None:
            worker.close()
    return records


def new_findings(records: Iterable[dict]) -> List[dict]:
    """The crashes and hangs not known upstream; a call past the time limit
    is left out (the mutant's own loop, most often)."""
    return [
        r
        for r in records
        if r["status"] == "mismatch"
        or (
            r["status"] in ("crash", "hang")
            and not r.get("known")
            and not (r["status"] == "hang" and r["stage"] == "call")
        )
    ]


def summarize(records: Sequence[dict]) -> dict:
    """Counts by kind and outcome, crashes by signature, hangs, unexpected
    exceptions."""
    outcomes = collections.defaultdict(collections.Counter)
    crashes: Dict[str, dict] = {}
    mismatches: Dict[str, dict] = {}
    contained = 0
    unexpected = collections.Counter()
    for record in records:
        outcomes[record["kind"]][record["status"]] += 1
        if record["status"] in ("crash", "hang"):
            entry = crashes.setdefault(
                record["signature"],
                {
                    "count": 0,
                    "known": record.get("known"),
                    "owner": record.get("owner"),
                    "first": f"{record['kind']}:{record['index']}",
                },
            )
            entry["count"] += 1
        if record.get("contained"):
            contained += 1
        if record["status"] == "mismatch":
            entry = mismatches.setdefault(
                record["program"], {"count": 0, "first": f"{record['kind']}:{record['index']}"}
            )
            entry["count"] += 1
        if record.get("unexpected"):
            unexpected[f"{record['kind']} {record['stage']}: {record['error_class']}"] += 1
    return {
        "mutants": {kind: sum(counts.values()) for kind, counts in outcomes.items()},
        "outcomes": {kind: dict(counts) for kind, counts in outcomes.items()},
        "signatures": crashes,
        "mismatches": mismatches,
        "contained": contained,
        "unexpected": dict(unexpected),
        "new": len(new_findings(records)),
        "open": sum(r.get("owner") == "lighthouse" for r in records),
    }


def render_summary(summary: dict) -> str:
    lines = []
    for kind, counts in summary["outcomes"].items():
        listed = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
        noun = "programs" if kind == "linalg" else "mutants"
        lines.append(f"{kind}: {summary['mutants'][kind]} {noun}: {listed}")
    if summary["signatures"]:
        lines.append("crashes and hangs by signature:")
        for text, entry in sorted(summary["signatures"].items(), key=lambda i: -i[1]["count"]):
            if entry["owner"] == "torch-mlir":
                label = "torch-mlir's, contained"
            elif entry["owner"] == "lighthouse":
                label = f"open lighthouse bug: {entry['known']}"
            elif entry["known"]:
                label = f"known upstream: {entry['known']}"
            elif text.split(":")[0].endswith(" call") and text.endswith("the time limit"):
                label = "a call past the time limit"
            else:
                label = "NEW"
            lines.append(f"  {entry['count']:5}  [{label}] {text}  (first: {entry['first']})")
    if summary["contained"]:
        lines.append(
            f"crashes of MLIR's parser contained in lighthouse's child process: "
            f"{summary['contained']}"
        )
    if summary["mismatches"]:
        lines.append("results of the default pipeline that differ from loops', by family:")
        for family, entry in sorted(summary["mismatches"].items(), key=lambda i: -i[1]["count"]):
            lines.append(f"  {entry['count']:5}  {family}  (first: {entry['first']})")
    if summary["unexpected"]:
        lines.append("unexpected exceptions:")
        for text, count in sorted(summary["unexpected"].items(), key=lambda i: -i[1]):
            lines.append(f"  {count:5}  {text}")
    lines.append(
        f"new crashes, hangs and mismatches: {summary['new']}; "
        f"of open lighthouse bugs: {summary['open']}"
    )
    return "\n".join(lines)
