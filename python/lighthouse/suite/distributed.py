"""Cases run on a Ray cluster (`lh-suite run --executor ray`): each case is a
Ray task that runs it on a node as the local executor runs it, in a worker
process of its own (a crash or hang there is a recorded status, and a new
worker goes on with the case's other compilers); its records come back to
the driver's results file and progress line as each case completes.

A case reserves `threads` of its node's CPUs when `--threads` is given (a
node with as many cores runs one case at a time: timings are of an unloaded
node), else one, and runs on as many threads as its node has cores. Each
record says on which machine and with how many threads it ran.
"""

import io
import os
import types
from typing import Iterable, List, Optional

from ..errors import require
from .._progress import Progress
from .records import ResultsWriter, case_record, machine
from .runner import RunOptions, Task, run
from .worker import MESSAGE_CHARS

__all__ = ["run_on_ray"]


def run_case(task: Task, options: RunOptions) -> List[dict]:
    """On a node: the case's records, run by one worker process of this
    node's (threads: `options.threads`, or the node's cores when 0)."""
    threads = options.threads or os.cpu_count() or 1
    local = RunOptions(threads, options.timeout, 1, options.rounds, options.budget)
    records: List[dict] = []
    run([task], local, types.SimpleNamespace(write=records.append), Progress(1, io.StringIO()))
    where = {"machine": machine(), "threads": threads}
    return [{**record, **where} for record in records]


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
        remote = ray.remote(num_cpus=options.threads or 1)(run_case)
        pending = {remote.remote(task, options): task for task in tasks}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for reference in done:
                task = pending.pop(reference)
                try:
                    records = ray.get(reference)
                except ray.exceptions.RayError as error:
                    # The node or its Ray worker was lost, not a compiler's worker.
                    message = f"the Ray task of the case failed: {type(error).__name__}: {error}"
                    records = [
                        case_record(
                            task, compiler, {"status": "crash", "message": message[:MESSAGE_CHARS]}
                        )
                        for compiler in task.compilers
                    ]
                for record in records:
                    writer.write(record)
                progress.advance(records)
            progress.tick()
    finally:
        ray.shutdown()
