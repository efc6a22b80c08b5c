"""torch-mlir's process: the worker that runs torch-mlir's passes, so that a
crash or a hang in them (third-party C++ on another MLIR) ends this process,
not the caller's (`process.py` starts and talks to it).

    python .../lighthouse/ingress/torch_mlir/worker.py --fd N

The worker imports torch-mlir's bindings and nothing else of note (neither
torch nor lighthouse), so that it starts in a fraction of a second.

A request on its standard input is a JSON line `{"pipelines": [...],
"length": L}` then L bytes of IR text (UTF-8). On file descriptor N it writes
JSON lines: `{"ready": true}` once (or `{"unavailable": module}` when
torch-mlir is missing), `{"step": k}` before each step of a request (0:
parsing, 1 to n: the pipelines, n + 1: printing), so that the caller knows
where it died, then the answer (`lower`'s, its text sent as with requests).

This file runs as a script: it imports nothing of lighthouse.
"""

import argparse
import functools
import json
import os
import re
import signal
import sys
import traceback
from typing import Callable, List


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


def write_message(stream, message: dict) -> None:
    """A JSON line, then the bytes of its "text" if it has one."""
    message = dict(message)
    payload = message.pop("text", "").encode()
    if payload:
        message["length"] = len(payload)
    stream.write(json.dumps(message).encode() + b"\n")
    stream.write(payload)
    stream.flush()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="worker.py")
    parser.add_argument("--fd", type=int, required=True)
    args = parser.parse_args(argv)
    # The caller stops a lowering by ending this process; Ctrl-C in a terminal
    # reaches the whole process group and is the caller's to handle.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(args.fd, "wb")
    try:
        bindings()
    except ImportError as error:
        write_message(answers, {"unavailable": error.name or "torch_mlir", "message": str(error)})
        return
    write_message(answers, {"ready": True})
    requests = sys.stdin.buffer
    for line in requests:
        request = json.loads(line)
        text = requests.read(request.get("length", 0)).decode()
        try:
            answer = lower(
                text,
                request["pipelines"],
                lambda step: write_message(answers, {"step": step}),
            )
        except Exception:
            answer = {"status": "raised", "message": traceback.format_exc()}
        write_message(answers, answer)


if __name__ == "__main__":
    # Run as a script, Python puts this file's folder first on the path; its
    # torch.py and onnx.py would stand for torch and ONNX.
    del sys.path[0]
    main()
