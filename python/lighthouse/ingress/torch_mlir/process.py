"""Starts torch-mlir's process (`worker.py`) and talks to it: started on first
use, kept for the next lowerings, replaced when it dies, and stopped when it
goes past its time limit."""

import atexit
import json
import os
import select
import signal
import sys
import tempfile
import threading
import time
from typing import List, Optional

from ..._process import end_worker, fatal_line, output_tail, start_worker
from . import worker as _script
from .worker import write_message

__all__ = ["lower_in_worker", "start", "worker_pid"]


class _Worker:
    """A worker process, the pipe of its answers, and the file of its output."""

    def __init__(self):
        self.output = tempfile.TemporaryFile(prefix="lighthouse-lowering-")
        environment = dict(os.environ)
        # The caller's module path, so that the worker finds the same torch-mlir.
        environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if isinstance(p, str))
        # Run as a script, so that it imports nothing of lighthouse; in the
        # caller's process group, so that what ends the caller's group (a
        # terminal closed, a CI job's time limit) ends it too, even in a
        # hanging pass.
        try:
            self.process, self.answers = start_worker(
                [os.path.abspath(_script.__file__)],
                "--fd",
                self.output,
                environment,
                new_session=False,
            )
        except OSError:
            self.output.close()
            raise
        self.buffer = bytearray()
        self.offset = 0
        self.ready = False
        self.timed_out = False

    def read_message(self, deadline: float) -> Optional[dict]:
        """The next message, its text read too; None if the worker ended or
        `deadline` (of time.monotonic) passed, which `timed_out` tells apart."""
        while b"\n" not in self.buffer:
            if not self.fill(deadline):
                return None
        line, _, rest = bytes(self.buffer).partition(b"\n")
        self.buffer = bytearray(rest)
        message = json.loads(line)
        length = message.pop("length", 0)
        while len(self.buffer) < length:
            if not self.fill(deadline):
                return None
        if length:
            message["text"] = self.buffer[:length].decode()
            del self.buffer[:length]
        return message

    def fill(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.answers], [], [], remaining)[0]:
            self.timed_out = True
            return False
        data = os.read(self.answers, 1 << 20)
        self.buffer += data
        return bool(data)

    def lower(self, text: str, pipelines: List[str], deadline: float) -> dict:
        """The worker's answer; `{"status": "lost", "step": k}` when it died or
        passed `deadline` at step k (-1: starting), `{"status": "unavailable",
        ...}` when it has no torch-mlir."""
        self.offset = self.output.seek(0, os.SEEK_END)
        step = -1
        if not self.ready:
            hello = self.read_message(deadline)
            if hello is None:
                return {"status": "lost", "step": step}
            if "unavailable" in hello:
                return {"status": "unavailable", **hello}
            self.ready = True
        try:
            write_message(self.process.stdin, {"pipelines": pipelines, "text": text})
        except BrokenPipeError:
            return {"status": "lost", "step": step}
        while True:
            message = self.read_message(deadline)
            if message is None:
                return {"status": "lost", "step": step}
            if "step" not in message:
                return message
            step = message["step"]

    def stop(self) -> None:
        """Kills the worker: it holds nothing worth a graceful end. Once."""
        if self.output.closed:
            return
        end_worker(self.process, kill=True, group=False)
        os.close(self.answers)
        self.output.close()


_lock = threading.Lock()
_worker: Optional[_Worker] = None


def _after_fork_in_child() -> None:
    # The worker is the parent's: a forked child starts its own when it needs one.
    global _worker, _lock
    _lock = threading.Lock()
    _worker = None


def _stop_at_exit() -> None:
    # Without the lock: a daemon thread may hold it, lowering, as the caller exits.
    worker = _worker
    if worker is not None:
        worker.process.kill()
        worker.process.wait()


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(_stop_at_exit)


def start() -> None:
    """Starts the worker if none runs, without waiting for it: its start-up
    then overlaps what the caller does before lowering."""
    global _worker
    # A busy lock is a lowering under way, in a worker that runs.
    if _lock.acquire(blocking=False):
        try:
            if _worker is None:
                _worker = _Worker()
        finally:
            _lock.release()


def lower_in_worker(text: str, pipelines: List[str], time_limit: float) -> dict:
    """`lower` in the worker process, started if there is none (in
    `time_limit` seconds too). Returns `lower`'s answer; when the worker died
    or went past the time limit (then it is killed) `{"status": "lost", "step":
    k, "timed_out": bool, "signal": name or None, "exit_code": code or None,
    "fatal": the line of its output that says why, or None}`; `{"status":
    "raised", "message": traceback}` for an
    exception on torch-mlir's Python side; `{"status": "unavailable",
    "unavailable": module, "message": ...}` without torch-mlir.
    """
    global _worker
    deadline = time.monotonic() + time_limit
    with _lock:
        while True:
            if _worker is None:
                _worker = _Worker()
            worker = _worker
            reused = worker.ready
            try:
                answer = worker.lower(text, pipelines, deadline)
            except BaseException:
                # Cut mid-exchange (Ctrl-C...): the next lowering starts afresh.
                _worker = None
                worker.stop()
                raise
            if not (reused and answer["status"] == "lost" and answer["step"] < 0):
                break
            # Dead before it read the request (killed from outside between
            # lowerings): not this model's doing, so a new worker takes it.
            _worker = None
            worker.stop()
        output = output_tail(worker.output, worker.offset)
        if answer["status"] not in ("lost", "unavailable"):
            if output:
                sys.stderr.write(output)
            return answer
        _worker = None
        worker.stop()
        if answer["status"] == "unavailable":
            return answer
        code = worker.process.returncode
        return {
            **answer,
            "timed_out": worker.timed_out,
            "signal": _signal_name(-code) if code < 0 and not worker.timed_out else None,
            "exit_code": code if code >= 0 else None,
            "fatal": fatal_line(output, last_line=True),
        }


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # A real-time signal, say.
        return f"signal {number}"


def worker_pid() -> Optional[int]:
    """The process id of the current worker, if one runs."""
    return _worker.process.pid if _worker is not None else None
