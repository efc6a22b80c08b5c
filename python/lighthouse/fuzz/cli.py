"""The command line: `lh-fuzz` (also `lh-suite fuzz`)."""

import argparse
import itertools
import json
import sys
import time

from .._progress import Progress
from .campaign import render_summary, run, summarize
from .mutants import make_mutant, mutants
from .programs import FAMILIES, make_program, programs
from .settings import DEFAULT_TIMEOUT

# ===----------------------------------------------------------------------=== #
# The command line: `lh-suite fuzz`
# ===----------------------------------------------------------------------=== #


DESCRIPTION = (
    "Mutants of MLIR programs and ONNX models, each parsed, compiled and "
    "called in a worker process, and differential programs (linalg ops compiled on "
    "the default and the loops pipelines, their results compared); crashes and hangs "
    "classified by signature against the known upstream MLIR crashes. Exit status 1 "
    "on a new crash or hang, a result that differs from loops', or one of an open "
    "lighthouse bug (KNOWN_LIGHTHOUSE)."
)


def main(argv=None) -> int:
    """`lh-fuzz`."""
    parser = argparse.ArgumentParser(prog="lh-fuzz", description=DESCRIPTION)
    add_arguments(parser)
    args = parser.parse_args(argv)
    return args.handler(args)


def add_parser(commands) -> None:
    """Adds `fuzz` to lh-suite's subcommands."""
    add_arguments(
        commands.add_parser(
            "fuzz",
            help="fuzz lighthouse's parser, compiler and call boundary",
            description=DESCRIPTION,
        )
    )


def add_arguments(parser) -> None:
    """The fuzzer's options, on `parser`."""
    parser.add_argument(
        "--mlir", type=int, default=1000, help="MLIR mutants (default: %(default)s)"
    )
    parser.add_argument("--onnx", type=int, default=200, help="ONNX mutants (default: %(default)s)")
    parser.add_argument(
        "--linalg",
        type=int,
        default=0,
        help="differential programs: linalg ops compiled on the default and the loops "
        "pipelines, their results compared (default: %(default)s)",
    )
    parser.add_argument(
        "--family",
        action="append",
        choices=sorted(FAMILIES),
        help="the differential programs' op families (repeatable; default: all, in turn)",
    )
    parser.add_argument("--seed", type=int, default=0, help="of the mutants (default: 0)")
    parser.add_argument("--start", type=int, default=0, help="the first mutant's index")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="for one stage of one mutant (default: %(default)g)",
    )
    parser.add_argument("-o", "--output", help="a JSON-lines file of every mutant's outcome")
    parser.add_argument(
        "--replay",
        action="append",
        metavar="KIND:INDEX",
        help="run these mutants only, printing each and its outcome (repeatable)",
    )
    parser.set_defaults(handler=command)


def command(args) -> int:
    if args.replay:
        for item in args.replay:
            kind, _, index = item.partition(":")
            if kind == "linalg":
                mutant = make_program(args.seed, int(index), args.family or tuple(FAMILIES))
            else:
                mutant = make_mutant(kind, args.seed, int(index))
            print(f"== {kind}:{index} from {mutant.seed_program}: {'; '.join(mutant.mutations)}")
            if kind in ("mlir", "linalg"):
                print(mutant.payload)
            record = run([mutant], seed=args.seed, timeout=args.timeout)[0]
            shown = {k: v for k, v in record.items() if k not in ("reproducer", "mutations")}
            print(json.dumps(shown, indent=2))
        return 0
    total = args.mlir + args.onnx + args.linalg
    print(
        f"lh-fuzz: {args.mlir} MLIR and {args.onnx} ONNX mutants, "
        f"{args.linalg} differential programs, seed {args.seed}"
        + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    output = open(args.output, "w") if args.output else None
    progress = Progress(total)
    started = time.monotonic()

    def on_record(record: dict) -> None:
        if output:
            output.write(json.dumps(record) + "\n")
            output.flush()
        progress.advance([record])

    try:
        records = run(
            itertools.chain(
                mutants(args.seed, args.mlir, args.onnx, args.start),
                programs(args.seed, args.linalg, args.start, args.family or tuple(FAMILIES)),
            ),
            seed=args.seed,
            timeout=args.timeout,
            on_record=on_record,
        )
    finally:
        if output:
            output.close()
    summary = summarize(records)
    print(render_summary(summary))
    print(f"{len(records)} cases in {time.monotonic() - started:.0f} s")
    return 1 if summary["new"] or summary["open"] else 0
