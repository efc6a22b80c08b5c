"""Cases run on a Ray cluster (`lh-suite run --executor ray`): runners (Ray
actors) on the cluster's nodes take a case at a time and run it as the local
executor does, in a worker process of their node (a crash or hang there is a
recorded status, and a new worker goes on with the case's other compilers);
each case's records come back to the driver's results file and progress
line as it completes.

A runner reserves `threads` of its node's CPUs when `--threads` is given (a
node with as many cores runs one case at a time: timings are of an unloaded
node), else one, and runs cases on as many threads as its node has cores;
there are as many runners as the cluster has room for when the run starts.
Each record says on which machine and with how many threads it ran. A
runner keeps its worker process from case to case, as a local run does.
"""

import collections
import io
import os
import types
from typing import Iterable, List, Optional

from ..errors import require
from .._progress import Progress
from .records import ResultsWriter, case_record, machine
from .runner import RunOptions, Task, WorkerPool, run
from .worker import MESSAGE_CHARS

__all__ = ["run_on_ray"]


class NodeRunner:
    """On a node: runs a case at a time in a worker process of the node's
    (threads: `threads`, or the node's cores when 0), kept between cases."""

    def __init__(self, threads: int):
        self.threads = threads or os.cpu_count() or 1
        self.pool = WorkerPool()

    def run_case(self, task: Task, options: RunOptions) -> List[dict]:
        """The case's records, each with the machine and threads it ran on."""
        local = RunOptions(
            self.threads, options.timeout, 1, options.rounds, options.budget, options.memory
        )
        records: List[dict] = []
        sink = types.SimpleNamespace(write=records.append)
        run([task], local, sink, Progress(1, io.StringIO()), self.pool)
        where = {"machine": machine(), "threads": self.threads}
        return [{**record, **where} for record in records]

    def close(self) -> None:
        self.pool.close()


def _lost(task: Task, error: Exception) -> List[dict]:
    """The records of a case whose runner was lost (its node, or the Ray
    worker process of the runner), not a compiler's worker."""
    message = f"the case's Ray runner was lost: {type(error).__name__}: {error}"
    return [
        case_record(task, compiler, {"status": "crash", "message": message[:MESSAGE_CHARS]})
        for compiler in task.compilers
    ]


def run_on_ray(
    tasks: Iterable[Task],
    options: RunOptions,
    writer: ResultsWriter,
    progress: Progress,
    address: Optional[str] = None,
) -> None:
    """Runs `tasks` on the Ray cluster at `address` (None: a cluster of this
    machine alone, started for the run and stopped after it); writes each
    case's records to `writer` when the case is complete.

    Raises:
      ImportError: Ray is not installed (lighthouse[ray]).
      ValueError: no cluster answers at `address`.
    """
    ray = require("ray", "ray")
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    except ConnectionError as error:
        raise ValueError(f"--address {address}: no Ray cluster answers: {error}") from None
    try:
        cpus = options.threads or 1
        slots = max(1, int(ray.cluster_resources().get("CPU", 1) // cpus))
        runner_class = ray.remote(num_cpus=cpus)(NodeRunner)
        idle = [runner_class.remote(options.threads) for _ in range(slots)]
        pending = collections.deque(tasks)
        running = {}
        while pending or running:
            while pending and idle:
                runner = idle.pop()
                task = pending.popleft()
                running[runner.run_case.remote(task, options)] = (runner, task)
            if not running:
                raise RuntimeError("the Ray cluster lost every runner of the run")
            done, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
            for reference in done:
                runner, task = running.pop(reference)
                try:
                    records = ray.get(reference)
                    idle.append(runner)
                except ray.exceptions.RayError as error:
                    records = _lost(task, error)
                for record in records:
                    writer.write(record)
                progress.advance(records)
            progress.tick()
        ray.get([runner.close.remote() for runner in idle])
    finally:
        ray.shutdown()
