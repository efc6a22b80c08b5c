"""The worker process: builds cases and runs compilers on them, announcing
each step on a pipe before taking it, so that when a compiler crashes or
hangs the runner knows whose it was, records it, and starts a new worker.

    python -m lighthouse.suite.worker --fd N --threads T

Requests arrive on standard input, one JSON object a line:
    {"corpus": ..., "options": {...}, "case": ..., "compilers": [...],
     "timing": {"rounds": R, "budget": S} or null}
Events go to file descriptor N, one JSON object a line: `start` (a compiler
begins compiling and checking), `result` (its record), `turn` (it takes a
timed turn), `timed` (its timings), `invalid` (the case cannot be built or
has no reference), `done`.
"""

import argparse
import copy
import itertools
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Dict, List

from .case import Case, Crashed, InvalidCase, Unsupported, to_numpy
from .check import compare_outputs
from .plugins import Compiler, create_compiler, create_corpus
from .timing import interleaved_seconds

#: Messages are cut to this many characters: enough for an MLIR diagnostic
#: with its notes, short enough that a results file of 10,000 failures stays small.
MESSAGE_CHARS = 2000

# An operation name as MLIR diagnostics and lighthouse's errors quote it:
# 'torch.aten.sum.dim_IntList', 'onnx.Attention', 'tm_tensor.sort'.
_QUOTED_OP = re.compile(r"'([a-z_][a-z0-9_]*\.[A-Za-z0-9_.]+)'")


def ops_in_message(message: str) -> List[str]:
    """Operation names a compile error mentions, first mention first."""
    return list(dict.fromkeys(_QUOTED_OP.findall(message)))[:5]


def _error_fields(error: BaseException) -> dict:
    message = str(error).strip() or repr(error)
    return {
        "error_class": type(error).__name__,
        "raised_in": _raised_in(error),
        "message": message[:MESSAGE_CHARS],
    }


def _raised_in(error: BaseException) -> str:
    """The top-level package whose code raised `error` ("lighthouse", "torch",
    "torch_mlir"), or the file's name outside any installed package: a
    compiler's error raised by a third party's code is one it let through."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    path = Path(frames[-1].filename)
    parts = path.parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts and parts.index(marker) + 1 < len(parts):
            return Path(parts[parts.index(marker) + 1]).stem
    return "lighthouse" if "lighthouse" in parts else path.name


def _at_sizes(inputs) -> str:
    """The prefix of a failure's message at other input sizes than the case's."""
    shapes = ("x".join(map(str, x.shape)) for x in inputs if hasattr(x, "shape"))
    return f"at input sizes {', '.join(shapes)}: "


class Worker:
    def __init__(self, channel, threads: int):
        self.channel = channel
        self.threads = threads
        self.corpora: Dict[tuple, object] = {}
        self.compilers: Dict[str, object] = {}

    def send(self, event: str, **fields) -> None:
        self.channel.write(json.dumps({"event": event, **fields}) + "\n")
        self.channel.flush()

    def compiler(self, spec: str) -> Compiler:
        """The compiler `spec`, set up once; an `Unsupported` if it cannot be."""
        if spec not in self.compilers:
            try:
                compiler = create_compiler(spec)
                compiler.setup(self.threads)
                self.compilers[spec] = compiler
            except Unsupported as error:
                self.compilers[spec] = error
        found = self.compilers[spec]
        if isinstance(found, Unsupported):
            raise found
        return found

    def handle(self, request: dict) -> None:
        key = (request["corpus"], json.dumps(request.get("options", {}), sort_keys=True))
        if key not in self.corpora:
            self.corpora[key] = create_corpus(request["corpus"], **request.get("options", {}))
        try:
            case = self.corpora[key].load(request["case"])
            expected = case.expected()
            for index in range(len(case.also_at)):
                case.expected_at(index)
        except InvalidCase as error:
            self.send("invalid", message=str(error)[:MESSAGE_CHARS])
            return
        except Exception as error:
            self.send(
                "invalid",
                message=f"the corpus could not build the case: {type(error).__name__}: {error}"[
                    :MESSAGE_CHARS
                ],
            )
            return
        runnable = {}
        for spec in request["compilers"]:
            self.send("start", compiler=spec)
            record, function = self.check(spec, case, expected)
            self.send("result", compiler=spec, **record)
            if function is not None:
                runnable[spec] = function
        timing = request.get("timing")
        if timing and runnable:
            timings = interleaved_seconds(
                runnable,
                rounds=timing["rounds"],
                budget=timing["budget"],
                before_turn=lambda spec: self.send("turn", compiler=spec),
            )
            for spec, measured in timings.items():
                self.send(
                    "timed",
                    compiler=spec,
                    call_seconds=measured["median"],
                    call_spread=measured["spread"],
                    calls=measured["calls"],
                )

    def check(self, spec: str, case: Case, expected) -> tuple:
        """Compiles and runs the case with one compiler; returns its record and,
        when the outputs match, a function that runs it again for timing."""
        try:
            compiler = self.compiler(spec)
            form = next((kind for kind in compiler.takes if case.offers(kind)), None)
            if form is None:
                raise Unsupported(
                    f"takes {', '.join(compiler.takes)} forms; the case offers none of them"
                )
            case.form(form)
        except Unsupported as error:
            return {"status": "unsupported", "message": str(error)[:MESSAGE_CHARS]}, None
        record = {"form": form}
        start = time.perf_counter()
        try:
            function = compiler.compile_case(case, form)
        except Unsupported as error:
            return {
                "status": "unsupported",
                "form": form,
                "message": str(error)[:MESSAGE_CHARS],
            }, None
        except Crashed as error:
            return {
                **record,
                "status": "crash",
                "signal": error.signal,
                "stage": compiler.stage,
                "message": str(error)[:MESSAGE_CHARS],
                "stderr_tail": str(error)[-MESSAGE_CHARS:],
            }, None
        except Exception as error:
            fields = _error_fields(error)
            ops = compiler.failed_ops(error) or ops_in_message(fields["message"])
            return {
                **record,
                **compiler.notes,
                "status": "compile-error",
                **fields,
                "ops": ops,
                "stage": compiler.stage,
            }, None
        record.update(compiler.notes)
        record["compile_seconds"] = time.perf_counter() - start
        inputs = copy.deepcopy(case.inputs)
        # The compiled code at the case's inputs, then at its other sizes.
        checks = itertools.chain(
            [(inputs, expected, "")],
            (
                (copy.deepcopy(given), case.expected_at(index), _at_sizes(given))
                for index, given in enumerate(case.also_at)
            ),
        )
        for given, want, at in checks:
            start = time.perf_counter()
            try:
                outputs = to_numpy(function(given))
            except Exception as error:
                fields = _error_fields(error)
                fields["message"] = (at + fields["message"])[:MESSAGE_CHARS]
                return {**record, "status": "run-error", **fields}, None
            seconds = time.perf_counter() - start
            comparison = compare_outputs(outputs, want, case.rtol, case.atols(want))
            if given is inputs:
                record.update(
                    first_call_seconds=seconds,
                    max_abs_error=comparison.max_abs_error,
                    max_rel_error=comparison.max_rel_error,
                )
            if not comparison.ok:
                return {**record, "status": "mismatch", "message": at + comparison.message}, None
        return {**record, "status": "pass"}, lambda: function(inputs)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="lighthouse.suite.worker")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args(argv)
    channel = os.fdopen(args.fd, "w")
    worker = Worker(channel, args.threads)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            worker.handle(request)
        except Exception:
            # A bug of the suite or a plugin outside any compiler's step.
            worker.send("invalid", message=traceback.format_exc()[-MESSAGE_CHARS:])
        worker.send("done")


if __name__ == "__main__":
    main()
