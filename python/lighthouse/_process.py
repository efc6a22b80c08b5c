"""Worker processes of lighthouse's own: started in a session of their own
(so that a whole process group ends with them), announcing their events on
a pipe, and ended by closing their input or by killing the group. torch-mlir's
lowering process, the test bench's case workers and the fuzzer's run through
these."""

import os
import re
import signal
import subprocess
import sys
from typing import Optional

__all__ = [
    "default_memory_limit",
    "end_worker",
    "fatal_line",
    "output_tail",
    "resident_bytes",
    "start_worker",
]

#: Of a dead worker's output, the end kept to say why it died.
OUTPUT_TAIL_CHARS = 3000

#: A line of a crash report that gives the cause: LLVM's fatal errors and
#: failed assertions, the C++ runtime's and the C library's aborts (a heap
#: found corrupted), Python's fatal errors.
_FATAL = re.compile(
    r"^.*(LLVM ERROR|Assertion .* failed|UNREACHABLE|terminate called|"
    r"corrupted|double free|free\(\)|malloc\(\)|realloc\(\)|munmap_chunk|"
    r"Fatal Python error).*$",
    re.MULTILINE,
)


def start_worker(arguments: list, fd_option: str, log, environment: dict, new_session: bool = True):
    """Starts `python <arguments>` (`-m module ...`, or a script), its output
    into `log`, with the write end of a new pipe passed as `fd_option <fd>`;
    returns the process and the pipe's read end, on which it announces its
    events. With `new_session`, in a session of its own, so that its whole
    process group, whatever it started, can be ended (`end_worker`);
    without, in the caller's process group, which the signals sent to the
    caller's group (a terminal's, a CI job's) reach too. A new interpreter
    rather than a fork: the caller may hold torch's and OpenMP's threads,
    which a fork does not carry over safely."""
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, *arguments, fd_option, str(write_end)],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=(write_end,),
            env=environment,
            start_new_session=new_session,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return process, read_end


def output_tail(log, offset: int, chars: int = OUTPUT_TAIL_CHARS) -> str:
    """The last `chars` characters a worker wrote to `log` from `offset` on."""
    log.flush()
    log.seek(offset)
    return log.read().decode(errors="replace")[-chars:]


def fatal_line(output: str, last_line: bool = False) -> Optional[str]:
    """The line of a dead worker's output that says why it died: the first
    that gives a cause, else (`last_line`) its last line; None if there is
    none."""
    found = _FATAL.search(output or "")
    if found:
        return found.group(0).strip()
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    return lines[-1] if last_line and lines else None


def end_worker(process: subprocess.Popen, kill: bool, group: bool = True) -> int:
    """Ends a worker started by `start_worker`: kills it (with its process
    group, which it leads when started with `new_session`), or closes its
    input for it to end by itself, within 30 s before it is killed. Returns
    the exit status."""

    def killed() -> None:
        try:
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        except ProcessLookupError:
            pass

    if kill:
        killed()
    try:
        process.stdin.close()
    except OSError:  # A request cut in the middle.
        pass
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        killed()
        return process.wait()


def resident_bytes(pid: int) -> int:
    """The resident memory of process `pid` and of every process it started,
    directly or not (torch-mlir's lowering process, a compiler's own
    processes, whatever session they lead), read from /proc; 0 where there
    is none (not Linux) or the process is gone."""
    parents, resident = {}, {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # The command name, in parentheses, may hold spaces.
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:  # Gone since the listing.
            continue
        parents[int(entry)] = int(fields[1])
        resident[int(entry)] = int(fields[21]) * page
    children = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += resident.get(current, 0)
        stack.extend(children.get(current, ()))
    return total


def default_memory_limit(workers: int = 1) -> Optional[int]:
    """Three quarters of the memory this process may use, in bytes (the
    machine's, or its control group's limit where lower), shared by
    `workers` workers; None where it is not known: a worker past it is
    killed before the kernel's out-of-memory killer picks a process, or the
    machine swaps to a halt (an exporter allocating tens of GB for one
    model)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    try:  # cgroup v2; "max" where there is no limit.
        with open("/sys/fs/cgroup/memory.max") as limit:
            text = limit.read().strip()
        if text.isdigit():
            total = min(total, int(text))
    except OSError:
        pass
    return total * 3 // 4 // max(workers, 1)
