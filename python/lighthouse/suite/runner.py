"""Running corpora through compilers: cases handed to worker processes, each
replaced when a compiler crashes it or hangs, results written as they come."""

import collections
import json
import os
import random
import re
import selectors
import shutil
import signal
import tempfile
import time
from typing import Dict, Iterable, List, Optional, Sequence

from .case import SCRATCH_VARIABLE, CaseInfo
from .._process import default_memory_limit, end_worker, output_tail, resident_bytes, start_worker
from .._progress import Progress
from .records import ResultsWriter, case_record, last_words

__all__ = ["RunOptions", "Task", "WorkerPool", "run", "select_cases"]


class RunOptions:
    """How cases run: `threads` for every compiler, `timeout` seconds for a
    compiler to compile and check a case, `jobs` workers at once, timing
    (`rounds` interleaved rounds, at most `budget` seconds a case; None: no
    timing), and `memory`, the resident bytes a worker (with the processes
    it started) may hold before it is killed (None: three quarters of this
    machine's memory shared by the jobs, resolved where the workers run;
    0: no limit)."""

    def __init__(
        self,
        threads: int,
        timeout: float = 300.0,
        jobs: int = 1,
        rounds: Optional[int] = 10,
        budget: float = 10.0,
        memory: Optional[int] = None,
    ):
        self.threads = threads
        self.timeout = timeout
        self.jobs = jobs
        self.rounds = rounds
        self.budget = budget
        self.memory = memory

    def timing(self) -> Optional[dict]:
        return {"rounds": self.rounds, "budget": self.budget} if self.rounds else None


class Task:
    """A case of a corpus to run through compilers."""

    def __init__(self, corpus: str, options: dict, info: CaseInfo, compilers: Sequence[str]):
        self.corpus = corpus
        self.options = options
        self.info = info
        self.compilers = list(compilers)
        self.results: Dict[str, dict] = {}
        self.lost: set = set()  # Compilers that crashed or hung on this case.
        self.invalid: Optional[str] = None
        self.started: Optional[float] = None  # When a worker first took it.
        self.seconds: Optional[float] = None  # Its wall time, once complete.

    def request(self, timing: Optional[dict]) -> dict:
        """The next request for a worker: the compilers that did not crash or
        hang, all of them again, so that their timings are interleaved."""
        return {
            "corpus": self.corpus,
            "options": self.options,
            "case": self.info.name,
            "compilers": [c for c in self.compilers if c not in self.lost],
            "timing": timing,
        }

    def needs_another_worker(self, timing: Optional[dict]) -> bool:
        remaining = [c for c in self.compilers if c not in self.lost]
        return any(c not in self.results for c in remaining) or bool(
            timing
            and any(
                self.results.get(c, {}).get("status") == "pass"
                and "call_seconds" not in self.results[c]
                for c in remaining
            )
        )

    def records(self) -> List[dict]:
        if self.invalid is not None:
            return [
                case_record(self, c, {"status": "invalid", "message": self.invalid})
                for c in self.compilers
            ]
        return [case_record(self, c, self.results[c]) for c in self.compilers]


def select_cases(
    cases: Sequence[CaseInfo],
    only: Optional[str] = None,
    sample: Optional[int] = None,
    seed: int = 0,
    stratify: str = "op",
) -> List[CaseInfo]:
    """The cases whose names match the regular expression `only`, then a
    stratified sample of `sample` of them: groups by the tag `stratify` take
    turns giving a case (chosen with `seed`), so that a small sample still
    covers the most operations. The corpus order is kept."""
    chosen = [c for c in cases if only is None or re.search(only, c.name)]
    if sample is None or sample >= len(chosen):
        return chosen
    generator = random.Random(seed)
    groups = collections.defaultdict(list)
    for info in chosen:
        groups[str(info.tags.get(stratify, info.name))].append(info)
    queues = []
    for key in sorted(groups):
        members = groups[key][:]
        generator.shuffle(members)
        queues.append(collections.deque(members))
    generator.shuffle(queues)
    picked = set()
    while len(picked) < sample:
        for queue in queues:
            if queue and len(picked) < sample:
                picked.add(queue.popleft().name)
    return [c for c in chosen if c.name in picked]


class _Worker:
    """A worker process, its event pipe, and the task it works on."""

    def __init__(self, threads: int, selector: selectors.BaseSelector):
        self.log = tempfile.TemporaryFile(prefix="lh-suite-worker-")
        # Its large files (an ONNX form over 2 GiB), removed with it.
        self.scratch = tempfile.mkdtemp(prefix="lh-suite-worker-")
        environment = dict(os.environ, **{SCRATCH_VARIABLE: self.scratch})
        # Every compiler on the same number of threads: OpenMP (lighthouse's
        # code), and the libraries that read these at load time.
        for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            environment[variable] = str(threads)
        self.process, read_end = start_worker(
            ["-m", "lighthouse.suite.worker", "--threads", str(threads)],
            "--fd",
            self.log,
            environment,
        )
        self.events = read_end
        os.set_blocking(read_end, False)
        self.buffer = b""
        self.selector = selector
        selector.register(read_end, selectors.EVENT_READ, self)
        self.task: Optional[Task] = None
        self.current: Optional[str] = None  # The compiler at work.
        self.deadline = float("inf")
        self.log_offset = 0
        self.tail = ""  # The end of its output for the task at hand, once stopped.

    def send(self, task: Task, timing: Optional[dict], timeout: float) -> None:
        self.task = task
        if task.started is None:
            task.started = time.monotonic()
        self.current = None
        self.deadline = time.monotonic() + timeout  # Building the case counts too.
        self.log_offset = self.log.seek(0, os.SEEK_END)
        self.process.stdin.write((json.dumps(task.request(timing)) + "\n").encode())
        self.process.stdin.flush()

    def read_events(self) -> Optional[List[dict]]:
        """The complete events that arrived; None when the worker is gone."""
        try:
            data = os.read(self.events, 1 << 16)
        except BlockingIOError:
            return []
        if not data:
            return None
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    def stop(self, kill: bool) -> Optional[int]:
        """Ends the worker (and whatever it started); returns its exit status."""
        self.selector.unregister(self.events)
        os.close(self.events)
        status = end_worker(self.process, kill)
        self.tail = output_tail(self.log, self.log_offset)
        self.log.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        return status


class WorkerPool:
    """Worker processes kept from one `run` to the next, so that each case
    does not pay for starting one (a Ray node's runner takes a case at a
    time): the idle ones, and the selector their event pipes are registered
    with."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.idle: List[_Worker] = []

    def close(self) -> None:
        for worker in self.idle:
            worker.stop(kill=False)
        self.idle.clear()


def _loss_record(
    status: str,
    worker: _Worker,
    returncode: Optional[int],
    options: RunOptions,
    when: str,
    resident: Optional[int] = None,
    limit: Optional[int] = None,
) -> dict:
    """The record of a worker that crashed (`returncode`), hung, or was
    killed holding `resident` bytes, over the memory `limit`, `when` ("while
    timed"...), with the line of its output that says why."""
    record = {"status": status, "stderr_tail": worker.tail}
    if status == "timeout":
        message = f"no answer within {options.timeout:g} s {when}; the worker was killed"
    elif resident is not None:
        record["resident_bytes"] = resident
        message = (
            f"the worker was killed {when}: it held {resident / 2**30:.1f} GiB, over "
            f"the limit of {limit / 2**30:.1f} GiB (lh-suite run --memory)"
        )
    elif returncode is not None and returncode < 0:
        record["signal"] = signal.Signals(-returncode).name
        message = f"the worker died of {record['signal']} {when}"
    else:
        record["exit_code"] = returncode
        message = f"the worker exited with status {returncode} {when}"
    why = last_words(worker.tail)
    record["message"] = message + (f": {why}" if why else "")
    return record


def run(
    tasks: Iterable[Task],
    options: RunOptions,
    writer: ResultsWriter,
    progress: Progress,
    pool: Optional[WorkerPool] = None,
) -> None:
    """Runs `tasks` on `options.jobs` workers; writes each case's records to
    `writer` when the case is complete. The workers are `pool`'s, which
    keeps those left idle, or the run's own, stopped at its end."""
    timing = options.timing()
    memory = options.memory if options.memory is not None else default_memory_limit(options.jobs)
    memory_read = float("-inf")  # When the workers' memory was read last.
    pending = collections.deque(tasks)
    kept = pool is not None
    pool = pool or WorkerPool()
    selector, idle = pool.selector, pool.idle
    workers: List[_Worker] = list(idle)

    def finish(task: Task) -> None:
        task.seconds = time.monotonic() - task.started
        records = task.records()
        for record in records:
            writer.write(record)
        progress.advance(records)

    def lose(
        worker: _Worker, status: str, returncode: Optional[int], resident: Optional[int] = None
    ) -> None:
        """The worker crashed, hung or held too much memory (`resident`):
        record it for the compiler at work and hand what is left of the task
        to a new worker."""
        task = worker.task
        workers.remove(worker)
        timed = (
            worker.current is not None
            and task.results.get(worker.current, {}).get("status") == "pass"
        )
        if worker.current is None:
            task.invalid = _loss_record(
                status, worker, returncode, options, "while building the case", resident, memory
            )["message"]
            finish(task)
        else:
            record = _loss_record(
                status,
                worker,
                returncode,
                options,
                "while timed" if timed else "while compiling or checking",
                resident,
                memory,
            )
            if timed:  # Its correctness record stays, with what happened after.
                record = {**task.results[worker.current], **record}
            task.results[worker.current] = record
            task.lost.add(worker.current)
            if timed or not task.needs_another_worker(timing):
                # Crashes while timed are not retried: the others' checks
                # stand, untimed.
                finish(task)
            else:
                pending.appendleft(task)

    try:
        while pending or any(w.task for w in workers):
            while pending and (idle or len(workers) < options.jobs):
                worker = idle.pop() if idle else _Worker(options.threads, selector)
                if worker not in workers:
                    workers.append(worker)
                worker.send(pending.popleft(), timing, options.timeout)
            now = time.monotonic()
            wait = max(0.0, min(w.deadline for w in workers if w.task) - now)
            for key, _ in selector.select(timeout=min(wait, 1.0)):
                worker = key.data
                events = worker.read_events()
                if events is None:
                    status = worker.stop(kill=True)
                    lose(worker, "crash", status)
                    continue
                for event in events:
                    if _apply(worker, event, options, timing) == "done":
                        task, worker.task = worker.task, None
                        worker.current, worker.deadline = None, float("inf")
                        finish(task)
                        idle.append(worker)
            now = time.monotonic()
            for worker in [w for w in workers if w.task and w.deadline < now]:
                worker.stop(kill=True)
                lose(worker, "timeout", None)
            # Read once a second, not at every event: a scan of /proc takes
            # milliseconds of the cores the timed calls run on.
            if memory and now >= memory_read + 1.0:
                memory_read = now
                for worker in [w for w in workers if w.task]:
                    resident = resident_bytes(worker.process.pid)
                    if resident > memory:
                        worker.stop(kill=True)
                        lose(worker, "crash", None, resident)
            progress.tick()
    finally:
        for worker in workers:
            if worker.task or not kept:
                worker.stop(kill=bool(worker.task))


def _apply(worker: _Worker, event: dict, options: RunOptions, timing: Optional[dict]) -> str:
    """Takes in an event of the worker's; returns its kind."""
    task = worker.task
    kind = event.pop("event")
    compiler = event.pop("compiler", None)
    if kind == "start":
        worker.current = compiler
        worker.deadline = time.monotonic() + options.timeout
    elif kind == "result":
        task.results[compiler] = event
        worker.current = None
    elif kind == "turn":
        worker.current = compiler
        # Timed turns share the case's budget; a call may take a timeout.
        if timing:
            worker.deadline = time.monotonic() + options.timeout
    elif kind == "timed":
        task.results[compiler].update(event)
    elif kind == "invalid":
        task.invalid = event["message"]
    return kind
