"""Worker processes of lighthouse's own: started in a session of their own
(so that a whole process group ends with them), announcing their events on
a pipe, and ended by closing their input or by killing the group. The test
bench's case workers and the fuzzer's run through these."""

import os
import signal
import subprocess
import sys

__all__ = ["end_process_group", "start_worker"]


def start_worker(arguments: list, fd_option: str, log, environment: dict):
    """Starts `python -m <arguments>` in a session of its own (so that its
    whole process group can be ended), its output into `log`, with the write
    end of a new pipe passed as `fd_option <fd>`; returns the process and the
    pipe's read end, on which it announces its events."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", *arguments, fd_option, str(write_end)],
        stdin=subprocess.PIPE,
        stdout=log,
        stderr=subprocess.STDOUT,
        pass_fds=(write_end,),
        env=environment,
        start_new_session=True,
    )
    os.close(write_end)
    return process, read_end


def end_process_group(process: subprocess.Popen, kill: bool) -> int:
    """Ends a worker that leads a process group of its own: kills the group,
    or closes the worker's input for it to end by itself, within 30 s before
    the group is killed. Returns the exit status."""
    if kill:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait()
