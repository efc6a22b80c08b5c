"""A crash's signature: the stage, where it happened (the parser of which op,
which pass and pattern: the MLIR mutant run again through lh-opt, or under
gdb) and why."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Optional

from .._process import fatal_line
from ..execution.libraries import LIBRARY_DIR
from .settings import MEMORY_LIMIT

# ===----------------------------------------------------------------------=== #
# Where a crash happened
# ===----------------------------------------------------------------------=== #

_PARSER_ENTRY = re.compile(r"^\d+\.\s+MLIR Parser: custom op parser '([^']+)'", re.MULTILINE)
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.*?)(?: \([^()]*\+0x[0-9a-f]+\))?$", re.MULTILINE)
# gdb's `bt`: "#0  0x00007f... in ns::Pattern::matchAndRewrite(...) const () from lib.so".
_GDB_FRAME = re.compile(r"^#\d+\s+0x[0-9a-f]+ in (.*?)(?: \(\) from .*| at .*)?$", re.MULTILINE)
_PASS_FRAME = re.compile(r"([A-Za-z_]\w*)::runOnOperation\(\)")
_PATTERN_FRAME = re.compile(r"([A-Za-z_]\w*)(?:<.*>)?::matchAndRewrite\(")
# Frames of the machinery between a fault and the code at fault.
_MACHINERY = re.compile(
    r"llvm::sys::|SignalHandler|__restore_rt|raise|abort|__pthread_kill|pthread_kill|"
    r"llvm::report_|report_bad_alloc|llvm_unreachable|__assert|SmallVectorBase|"
    r"grow_pod|reportFatal|^\?\?|^0x"
)
_OP_METHOD = re.compile(r"mlir::\w+::\w+Op::\w+$")
_GENERIC_PATTERNS = ("PatternApplicator", "RewritePattern", "OpRewritePattern")


def _function_name(frame: str) -> str:
    """`mlir::tensor::PadOp::fold(...) const` -> `mlir::tensor::PadOp::fold`."""
    name = frame.replace("(anonymous namespace)", "{anon}")
    name = name.split("(", 1)[0]
    while "<" in name:  # Template arguments, innermost first.
        shorter = re.sub(r"<[^<>]*>", "", name)
        if shorter == name:
            break
        name = shorter
    return name.replace("{anon}", "(anonymous namespace)").strip()


def stack_summary(output: str) -> dict:
    """What an LLVM stack dump says: the op whose parser ran, the pass, the
    rewrite pattern, and the first frame of code past the fault machinery."""
    found = {}
    parsers = _PARSER_ENTRY.findall(output)
    if parsers:
        found["parser"] = parsers[-1]
    frames = [m.group(1) for m in _FRAME.finditer(output)]
    frames += [m.group(1) for m in _GDB_FRAME.finditer(output)]
    for frame in frames:
        if "pass" not in found and _PASS_FRAME.search(frame):
            found["pass"] = _PASS_FRAME.search(frame).group(1)
        pattern = _PATTERN_FRAME.search(frame)
        if pattern and "pattern" not in found and pattern.group(1) not in _GENERIC_PATTERNS:
            found["pattern"] = pattern.group(1)
    names = [_function_name(f) for f in frames if f.strip() and not _MACHINERY.search(f)]
    names = [name for name in names if name]
    if names:
        found["site"] = names[0]
    # The method of an op at work (a parser, a verifier, a folder): what tells
    # one cause from another when the frames above it are generic helpers.
    method = next((n for n in names if _OP_METHOD.match(n)), None)
    if method:
        found["op_method"] = method
    return found


def limit_memory() -> None:
    """Gives a process the workers' address space, so that running a mutant
    again fails as it did in the worker instead of taking the machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _lh_opt() -> Optional[str]:
    path = os.path.join(LIBRARY_DIR, "lh-opt")
    return path if os.path.exists(path) else None


def diagnose_mlir(text: str, stage: str, timeout: float = 60.0) -> dict:
    """Runs an MLIR mutant that crashed lighthouse again through lh-opt (the
    parser, or lighthouse's default pipeline), whose stack dump names the
    op, pass and function at fault; {} when lh-opt does not crash on it (a
    crash in the JIT, say)."""
    binary = _lh_opt()
    if binary is None or stage not in ("parse", "compile"):
        return {}
    options = [] if stage == "parse" else ["--pass-pipeline=builtin.module(lighthouse-cpu)"]
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        done = subprocess.run(
            [binary, f.name, "-o", os.devnull, *options],
            capture_output=True,
            timeout=timeout,
            # In lh-opt's own process: its crash, not its child's report of one.
            env=dict(os.environ, OMP_NUM_THREADS="1", LIGHTHOUSE_OPT_IN_PROCESS="1"),
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        return {}
    finally:
        os.unlink(f.name)
    if done.returncode >= 0 and done.returncode not in (134, 139):
        # Some faults depend on what the process holds where an op reads out
        # of bounds: lh-opt survives what lighthouse's Python process does not.
        return _diagnose_in_python(text, stage, timeout) if stage == "compile" else {}
    output = done.stderr.decode(errors="replace")
    found = stack_summary(output)
    fatal = fatal_line(output)
    if fatal:
        found["fatal"] = fatal
    return found


_COMPILE_ONLY = """
import sys
from lighthouse.compiler import compile_module
compile_module(open(sys.argv[1]).read())
"""


def _diagnose_in_python(text: str, stage: str, timeout: float) -> dict:
    """Compiles an MLIR mutant in a Python process under gdb, if there is one,
    for the backtrace of a crash that lh-opt does not reproduce; {} else."""
    gdb = shutil.which("gdb")
    if gdb is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="lh-fuzz-") as folder:
        source = os.path.join(folder, "mutant.mlir")
        with open(source, "w") as f:
            f.write(text)
        try:
            done = subprocess.run(
                [gdb, "-q", "-batch", "-ex", "run", "-ex", "bt", "--args"]
                + [sys.executable, "-c", _COMPILE_ONLY, source],
                capture_output=True,
                timeout=timeout,
                env=dict(os.environ, OMP_NUM_THREADS="1"),
                preexec_fn=limit_memory,
            )
        except subprocess.TimeoutExpired:
            return {}
    output = done.stdout.decode(errors="replace")
    if "received signal" not in output:
        return {}
    found = stack_summary(output)
    return {**found, "diagnosed_with": "gdb"} if found else {}


def _normalized(line: str) -> str:
    """A fatal error's line with its numbers masked, so that one cause is one
    signature whatever sizes the mutant had."""
    return re.sub(r"\d+", "N", line)[:200]


def signature(record: dict) -> str:
    """`<kind> <stage>: <where>: <why>` of a crash or a hang."""
    where = []
    if record.get("parser"):
        where.append(f"parser of '{record['parser']}'")
    if record.get("pass"):
        where.append(f"pass {record['pass']}")
    if record.get("pattern"):
        where.append(f"pattern {record['pattern']}")
    if record.get("op_method"):
        where.append(f"in {record['op_method']}")
    elif record.get("site") and not where:
        where.append(f"in {record['site']}")
    if record["stage"] == "call":  # Nothing names the op at fault: the program does, roughly.
        where.append(f"a call of a {record['program']} mutant")
    if record.get("culprit"):
        # The pair crashes and the mutant alone does not: the earlier one left
        # the heap corrupted, or the two together make the fault show.
        where.append(f"only after a {record['culprit']['program']} mutant")
    elif record.get("reproduced") is False:
        where.append("not reproduced alone")
    if record.get("lowering_stage"):
        where.append(record["lowering_stage"])
    fatal = record.get("fatal") or ""
    if record["status"] == "hang":
        why = "no answer within the time limit"
    elif fatal and not (fatal.startswith("Fatal Python error") and record.get("signal")):
        why = _normalized(fatal)
    else:  # Python's words say no more than the signal.
        why = record.get("signal") or f"exit status {record.get('exit_code')}"
    return f"{record['kind']} {record['stage']}: {', '.join(where) or '-'}: {why}"
