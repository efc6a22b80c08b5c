"""The worker side: a mutant parsed, compiled and called in a process of its
own, its outcome announced on a pipe."""

import base64
import json
import os
import sys
import traceback
from typing import Optional

from .settings import EXPECTED_ERRORS, MAX_INPUT_ELEMENTS, MESSAGE_CHARS
from .triage import limit_memory

# ===----------------------------------------------------------------------=== #
# The worker process
# ===----------------------------------------------------------------------=== #


def _inputs(arguments, rng) -> Optional[list]:
    """Random arrays for a compiled function's arguments, dynamic sizes of 1
    to 3; None when one would be too large to make."""
    import numpy as np

    inputs = []
    for dtype, shape in arguments:
        shape = [int(rng.integers(1, 4)) if d is None else d for d in shape]
        if max(shape, default=0) > MAX_INPUT_ELEMENTS or (
            np.prod(shape, dtype=float) > MAX_INPUT_ELEMENTS
        ):
            return None
        if dtype.kind == "f":
            inputs.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            inputs.append(rng.integers(0, 2, shape).astype(dtype))
        else:  # Sizes and indices: a few out of range, which runtime checks must catch.
            inputs.append(rng.integers(-2, 7, shape).astype(dtype))
    return inputs


def _error(stage: str, error: BaseException) -> dict:
    name = type(error).__name__
    record = {
        "status": "rejected" if stage in ("parse", "load") else "error",
        "stage": stage,
        "error_class": name,
        "message": (str(error).strip() or repr(error))[:MESSAGE_CHARS],
    }
    expected = EXPECTED_ERRORS.get("compile" if stage == "load" else stage, ())
    if name not in expected:
        record["unexpected"] = True
        record["traceback"] = traceback.format_exc()[-MESSAGE_CHARS * 2 :]
    return record


def _call(compiled, inputs_seed: int, announce) -> dict:
    import numpy as np

    announce("call")
    inputs = _inputs(compiled.arguments, np.random.default_rng(inputs_seed))
    if inputs is None:
        return {"status": "ok", "called": False}
    try:
        outputs = compiled(*inputs)
        # Reading every element of every result: a result whose sizes claim
        # more than its buffer holds faults here, not in a later user's code.
        for output in outputs if isinstance(outputs, tuple) else (outputs,):
            np.asarray(output).sum()
    except Exception as error:
        return _error("call", error)
    return {"status": "ok", "called": True}


def _run_mlir(text: str, inputs_seed: int, timeout: float, announce) -> dict:
    from lighthouse import ir
    from lighthouse.compiler import compile_module
    from lighthouse.compiler.explain import PARSER_CRASHED, parse_text

    announce("parse")
    context = ir.Context()
    try:
        with context:
            module = parse_text(text)
    except Exception as error:
        record = _error("parse", error)
        # lighthouse parses text in a child process first: the parser's own
        # crashes end there.
        if str(error).startswith(PARSER_CRASHED):
            record["contained"] = True
        return record
    announce("compile")
    try:
        compiled = compile_module(module)
    except Exception as error:
        return _error("compile", error)
    return _call(compiled, inputs_seed, announce)


def _run_onnx(model: bytes, inputs_seed: int, timeout: float, announce) -> dict:
    import onnx

    import lighthouse
    from lighthouse.ingress import LoweringCrash

    announce("load")
    try:
        proto = onnx.ModelProto.FromString(model)
    except Exception as error:
        return _error("load", error)
    announce("compile")
    try:
        # Below the worker's own limit, so that a hang in torch-mlir's
        # process is told apart from one in lighthouse's.
        compiled = lighthouse.compile_onnx(proto, lowering_time_limit=max(1.0, timeout - 5))
    except LoweringCrash as error:
        record = {
            "stage": "lowering",
            "lowering_stage": error.stage,
            "message": str(error)[:MESSAGE_CHARS],
        }
        if error.time_limit is not None:
            return {**record, "status": "hang"}
        return {**record, "status": "crash", "signal": error.signal, "fatal": error.fatal}
    except Exception as error:
        return _error("compile", error)
    return _call(compiled, inputs_seed, announce)


def _program_inputs(arguments, shapes, rng) -> list:
    """Inputs of `shapes` for a program's arguments: floats that are
    multiples of 1/4 in [-2, 2] (their products and sums are exact, in any
    order, until they grow large), integers in [-9, 9]."""
    inputs = []
    for (dtype, _), shape in zip(arguments, shapes):
        if dtype.kind == "i":
            inputs.append(rng.integers(-9, 10, shape).astype(dtype))
        else:
            inputs.append((rng.integers(-8, 9, shape) / 4).astype(dtype))
    return inputs


def compare(expected, actual, terms: int) -> Optional[dict]:
    """Where the default pipeline's results (`actual`) differ from the loops
    pipeline's (`expected`) beyond what summing `terms` products in another
    order explains: None when they agree. Integers must be equal; floats
    within 16 units of their type's precision relatively, plus 4 units per
    term summed of the largest result absolutely; NaNs and infinities at the
    same places."""
    import numpy as np

    for position, (want, got) in enumerate(zip(expected, actual)):
        want, got = np.asarray(want), np.asarray(got)
        if want.shape != got.shape or want.dtype != got.dtype:
            return {
                "result": position,
                "why": f"{got.dtype}{list(got.shape)} where loops gives {want.dtype}{list(want.shape)}",
            }
        if want.size == 0:
            continue
        if want.dtype.kind in "iub":
            wrong = want != got
            tolerance = 0.0
        else:
            epsilon = float(np.finfo(want.dtype).eps)
            want64, got64 = want.astype(np.float64), got.astype(np.float64)
            finite = np.isfinite(want64)
            scale = float(np.abs(want64[finite]).max(initial=1.0))
            tolerance = 4 * epsilon * terms * scale
            with np.errstate(invalid="ignore"):
                off = np.abs(got64 - want64) > tolerance + 16 * epsilon * np.abs(want64)
            # Infinities and NaNs must be where the reference has them.
            wrong = np.where(
                finite, off, ~((want64 == got64) | (np.isnan(want64) & np.isnan(got64)))
            )
        if wrong.any():
            where = tuple(int(i) for i in np.argwhere(wrong)[0])
            return {
                "result": position,
                "mismatched": int(wrong.sum()),
                "elements": int(wrong.size),
                "first": list(where),
                "loops": str(want[where]),
                "default": str(got[where]),
                "tolerance": tolerance,
            }
    return None


def _run_program(request: dict, announce) -> dict:
    """A differential program: compiled on the loops pipeline (the reference)
    and on the default one, both called on the same inputs, their results
    compared."""
    import numpy as np

    from lighthouse import ir
    from lighthouse.compiler import compile_module
    from lighthouse.compiler.explain import parse_text

    announce("parse")
    context = ir.Context()
    try:
        with context:
            # One parse contained in lighthouse's child; the copy each
            # pipeline consumes is parsed again only once that one passed.
            modules = {"loops": parse_text(request["text"])}
            modules["default"] = ir.Module.parse(request["text"])
    except Exception as error:
        return {**_error("parse", error), "unexpected": True}
    compiled = {}
    for pipeline, stage in (("loops", "reference"), ("default", "compile")):
        announce(stage)
        try:
            compiled[pipeline] = compile_module(modules[pipeline], pipeline=pipeline)
        except Exception as error:
            record = _error("compile", error)
            if pipeline == "loops":  # Outside what lighthouse compiles at all.
                record.pop("unexpected", None)
                return {**record, "status": "rejected", "stage": stage}
            # The default pipeline refuses what the loops pipeline compiles.
            return {**record, "unexpected": True}
    results = {}
    for pipeline, stage in (("loops", "reference call"), ("default", "call")):
        announce(stage)
        inputs = _program_inputs(
            compiled[pipeline].arguments,
            request["shapes"],
            np.random.default_rng(request["inputs_seed"]),
        )
        try:
            outputs = compiled[pipeline](*inputs)
        except Exception as error:
            return {**_error("call", error), "stage": stage, "unexpected": True}
        results[pipeline] = outputs if isinstance(outputs, tuple) else (outputs,)
    mismatch = compare(results["loops"], results["default"], request["terms"])
    if mismatch:
        return {"status": "mismatch", "stage": "compare", **mismatch}
    return {"status": "ok", "called": True}


def worker_main(fd: int) -> None:
    """Runs the requests on standard input (JSON lines), announcing each
    stage on file descriptor `fd` before taking it, then the outcome."""
    import faulthandler

    # A Python traceback on a fault says which lighthouse call was at work.
    faulthandler.enable()
    limit_memory()
    channel = os.fdopen(fd, "w")

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    def announce(stage: str) -> None:
        send({"stage": stage})

    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["kind"] == "linalg":
                outcome = _run_program(request, announce)
            elif request["kind"] == "mlir":
                outcome = _run_mlir(
                    request["text"], request["inputs_seed"], request["timeout"], announce
                )
            else:
                outcome = _run_onnx(
                    base64.b64decode(request["model"]),
                    request["inputs_seed"],
                    request["timeout"],
                    announce,
                )
        except Exception:  # A bug of the fuzzer's own.
            outcome = {
                "status": "error",
                "stage": "fuzzer",
                "error_class": "FuzzerError",
                "unexpected": True,
                "message": traceback.format_exc()[-MESSAGE_CHARS:],
            }
        send({"outcome": outcome})
