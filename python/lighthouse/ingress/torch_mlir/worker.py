"""torch-mlir's passes in a process of their own, so that a crash or a hang in
them (third-party C++ on another MLIR) ends that process, not the caller's.

    python .../lighthouse/ingress/_lowering_worker.py --fd N

The worker imports torch-mlir's bindings and nothing else of note (neither
torch nor lighthouse), so that it starts in a fraction of a second; it is
started on first use, kept for the next lowerings, and replaced when it dies.

A request on its standard input is a JSON line `{"pipelines": [...],
"length": L}` then L bytes of IR text (UTF-8). On file descriptor N it writes
JSON lines: `{"ready": true}` once (or `{"unavailable": module}` when
torch-mlir is missing), `{"step": k}` before each step of a request (0:
parsing, 1 to n: the pipelines, n + 1: printing), so that the caller knows
where it died, then the answer (`lower`'s, its text sent as with requests).

This file runs as a script: it imports nothing of lighthouse.
"""

import argparse
import atexit
import functools
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from typing import Callable, List, Optional

#: Of a dead worker's output, the end kept to say why it died.
OUTPUT_TAIL_CHARS = 3000

#: A line of a crash report that gives the cause, e.g. "LLVM ERROR: Unhandled
#: type in getScalarTypeForType: si4" or "...: Assertion `...' failed.".
_FATAL = re.compile(
    r"^.*(LLVM ERROR|Assertion .* failed|UNREACHABLE|terminate called|Fatal Python error).*$",
    re.MULTILINE,
)


@functools.lru_cache(maxsize=None)
def bindings():
    """torch-mlir's ir, passmanager and torch dialect modules."""
    import torch_mlir.dialects.torch as torch_dialect
    import torch_mlir.ir as tm_ir
    import torch_mlir.passmanager as tm_passmanager

    return tm_ir, tm_passmanager, torch_dialect


#: A pipeline whose passes depend on torch-mlir's torch_c dialect.
_LOADS_TORCH_C = "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)"


def lower(text: str, pipelines: List[str], announce: Callable[[int], None] = lambda step: None):
    """Parses `text` in a torch-mlir context and runs `pipelines` on it.

    Returns `{"status": "lowered", "text": ...}` (the result in the generic op
    form, with locations and resources), `{"status": "unparsed",
    "diagnostics": ...}`, or `{"status": "failed", "stage": k, "diagnostics":
    ...}` for the pipeline at index k.
    """
    tm_ir, tm_passmanager, torch_dialect = bindings()
    with tm_ir.Context() as context:
        torch_dialect.register_dialect(context)
        if '"torch_c.' in text:
            # torch-mlir's bindings register its torch dialect only; the
            # pipeline that lowers torch_c's casts loads it, run on nothing.
            tm_passmanager.PassManager.parse(_LOADS_TORCH_C).run(
                tm_ir.Module.parse("module {}").operation
            )
        announce(0)
        try:
            module = tm_ir.Module.parse(text)
        except tm_ir.MLIRError as error:
            return {"status": "unparsed", "diagnostics": str(error)}
        for stage, pipeline in enumerate(pipelines):
            announce(stage + 1)
            try:
                tm_passmanager.PassManager.parse(pipeline).run(module.operation)
            except tm_ir.MLIRError as error:
                diagnostics = str(error)
                answer = {"status": "failed", "stage": stage, "diagnostics": diagnostics}
                if "error: unknown: " in diagnostics:
                    answer["placed"] = placed_by_users(module, diagnostics)
                return answer
            left = operators_left(module)
            if left:
                return {"status": "failed", "stage": stage, "diagnostics": left}
        announce(len(pipelines) + 1)
        lowered = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    return {"status": "lowered", "text": lowered}


def operators_left(module) -> str:
    """Diagnostics, in the form of a conversion's, for the `torch.operator`
    ops left in `module`: the ONNX conversion passes leave an op they have no
    pattern for (onnx.CumProd) as it was, and the next pipeline would fail
    on its operands instead (a `torch.vtensor.literal`), naming neither.
    A walk in C++ (`Operation.walk`): iterating blocks in Python builds the
    Python class of every op, and the first linalg op imports linalg's
    OpDSL, 0.2 s of a 0.35 s lowering of the smallest test model."""
    tm_ir = bindings()[0]
    left = []

    def visit(op):
        if op.name == "torch.operator":
            name = _NAME_LOCATION.match(str(op.location))
            where = f'"{name.group(1)}"' if name else "unknown"
            asm = op.get_asm(
                print_generic_op_form=True, large_elements_limit=16, use_local_scope=True
            ).splitlines()[0]
            left.append(
                f"error: {where}: failed to legalize operation 'torch.operator' "
                f"that no conversion took: {asm}"
            )
        return tm_ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return "\n".join(left)


#: A value's name in printed IR (`%12`, `%arg0`, `%5#1`).
_VALUE_NAME = re.compile(r"%[\w$.-]+(?:#\d+)?")
#: The name of an op a diagnostic at an unknown location shows.
_SHOWN_UNLOCATED = re.compile(r'note: unknown: see current operation: [^\n]*?"([\w.]+)"\(')
#: The name of a name location (`loc("Conv_3")`) as printed.
_NAME_LOCATION = re.compile(r'^loc\("((?:[^"\\]|\\.)*)"')


def op_key(text: str) -> str:
    """An op's generic form with its values' names left out: the same for the
    op printed in a diagnostic and printed alone."""
    return _VALUE_NAME.sub("%", text).strip()


def placed_by_users(module, diagnostics: str) -> dict:
    """For each op without a location (the constants torch-mlir's folds make
    lose theirs) and without regions that `diagnostics` show, by `op_key`,
    the names of the locations of the ops that use its results, through
    users without a location too: an error at such an op is placed at the
    ONNX nodes it serves."""
    shown = set(_SHOWN_UNLOCATED.findall(diagnostics))
    placed = {}

    def names(op, seen: dict) -> list:
        found = []
        for result in op.results:
            for use in result.uses:
                user = use.owner.operation
                if id(user) in seen:
                    continue
                seen[id(user)] = user  # Kept, so that its id is not reused.
                name = _NAME_LOCATION.match(str(user.location))
                if name:
                    found.append(name.group(1))
                else:
                    found.extend(names(user, seen))
        return found

    def visit(op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if (
                        child.name in shown
                        and str(child.location) == "loc(unknown)"
                        and not len(child.regions)
                    ):
                        # Printed as a diagnostic prints it (elided large
                        # constants), so that the two keys are one.
                        key = op_key(
                            child.get_asm(
                                print_generic_op_form=True,
                                large_elements_limit=16,
                                use_local_scope=True,
                            )
                        )
                        known = placed.setdefault(key, [])
                        known.extend(n for n in names(child, {}) if n not in known)
                    visit(child)

    try:
        visit(module.operation)
    except Exception:  # noqa: BLE001 - placing is a best effort on another MLIR's API
        pass
    return placed


def _write_message(stream, message: dict) -> None:
    """A JSON line, then the bytes of its "text" if it has one."""
    message = dict(message)
    payload = message.pop("text", "").encode()
    if payload:
        message["length"] = len(payload)
    stream.write(json.dumps(message).encode() + b"\n")
    stream.write(payload)
    stream.flush()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="_lowering_worker.py")
    parser.add_argument("--fd", type=int, required=True)
    args = parser.parse_args(argv)
    # The caller stops a lowering by ending this process; Ctrl-C in a terminal
    # reaches the whole process group and is the caller's to handle.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(args.fd, "wb")
    try:
        bindings()
    except ImportError as error:
        _write_message(answers, {"unavailable": error.name or "torch_mlir", "message": str(error)})
        return
    _write_message(answers, {"ready": True})
    requests = sys.stdin.buffer
    for line in requests:
        request = json.loads(line)
        text = requests.read(request.get("length", 0)).decode()
        try:
            answer = lower(
                text,
                request["pipelines"],
                lambda step: _write_message(answers, {"step": step}),
            )
        except Exception:
            answer = {"status": "raised", "message": traceback.format_exc()}
        _write_message(answers, answer)


class _Worker:
    """A worker process, the pipe of its answers, and the file of its output."""

    def __init__(self):
        read_end, write_end = os.pipe()
        self.output = tempfile.TemporaryFile(prefix="lighthouse-lowering-")
        environment = dict(os.environ)
        # The caller's module path, so that the worker finds the same torch-mlir.
        environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if isinstance(p, str))
        # A new interpreter rather than a fork: the caller may hold torch's and
        # OpenMP's threads, which a fork does not carry over safely.
        try:
            self.process = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--fd", str(write_end)],
                stdin=subprocess.PIPE,
                stdout=self.output,
                stderr=subprocess.STDOUT,
                pass_fds=(write_end,),
                env=environment,
            )
        except OSError:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        self.answers = read_end
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
            _write_message(self.process.stdin, {"pipelines": pipelines, "text": text})
        except BrokenPipeError:
            return {"status": "lost", "step": step}
        while True:
            message = self.read_message(deadline)
            if message is None:
                return {"status": "lost", "step": step}
            if "step" not in message:
                return message
            step = message["step"]

    def output_since(self, offset: int) -> str:
        """What the worker printed since `offset` (its last characters)."""
        self.output.flush()
        self.output.seek(offset)
        return self.output.read().decode(errors="replace")[-OUTPUT_TAIL_CHARS:]

    def stop(self) -> None:
        """Kills the worker: it holds nothing worth a graceful end."""
        self.process.kill()
        try:
            self.process.stdin.close()
        except OSError:  # A request cut in the middle.
            pass
        self.process.wait()
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
                worker.stop()
                _worker = None
                raise
            if not (reused and answer["status"] == "lost" and answer["step"] < 0):
                break
            # Dead before it read the request (killed from outside between
            # lowerings): not this model's doing, so a new worker takes it.
            worker.stop()
            _worker = None
        output = worker.output_since(worker.offset)
        if answer["status"] not in ("lost", "unavailable"):
            if output:
                sys.stderr.write(output)
            return answer
        worker.stop()
        _worker = None
        if answer["status"] == "unavailable":
            return answer
        code = worker.process.returncode
        return {
            **answer,
            "timed_out": worker.timed_out,
            "signal": _signal_name(-code) if code < 0 and not worker.timed_out else None,
            "exit_code": code if code >= 0 else None,
            "fatal": fatal_message(output),
        }


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # A real-time signal, say.
        return f"signal {number}"


def worker_pid() -> Optional[int]:
    """The process id of the current worker, if one runs."""
    return _worker.process.pid if _worker is not None else None


def fatal_message(output: str) -> Optional[str]:
    """The line of a dead worker's output that says why it died: the first
    that gives a cause, else the last; None if it said nothing."""
    found = _FATAL.search(output)
    if found:
        return found.group(0).strip()
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else None


if __name__ == "__main__":
    # Run as a script, Python puts this file's folder first on the path; its
    # torch.py and onnx.py would stand for torch and ONNX.
    del sys.path[0]
    main()
