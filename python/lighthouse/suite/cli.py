"""lh-suite: lighthouse's compiler test bench on the command line."""

import argparse
import os
import sys
import warnings
from typing import Dict, List, Optional


DESCRIPTION = """\
Run corpora of other people's workloads through compilers side by side:
correctness against a reference, crashes and hangs (each case runs in a worker
process that is replaced when it dies), compile time and call latency.

  lh-suite list                         the installed corpora and compilers
  lh-suite run --corpus onnx-node --compiler lighthouse:default,onnxruntime \\
               --sample 100 -o node.jsonl
  lh-suite run ... --shard 2/4 -o node-2.jsonl    (one of 4 machines)
  lh-suite merge node-*.jsonl -o node.jsonl
  lh-suite report node.jsonl --html node.html
  lh-suite compare before.jsonl after.jsonl
  lh-suite expect node.jsonl --into test/conformance
  lh-suite record node.jsonl --db history.sqlite
  lh-suite history --db history.sqlite --html history.html --check
  lh-suite fuzz --mlir 20000 --onnx 3000 --seed 1 -o fuzz.jsonl

Corpora and compilers are plugins (entry point groups `lighthouse.corpora`
and `lighthouse.compilers`): a package adds its own without touching
lighthouse (docs/testing-compilers.md).
"""

RUN_EPILOG = """\
Compilers of one case take turns in interleaved rounds on the same inputs
and on the same number of threads (--threads); timings are medians. With
--jobs above 1, cases run side by side and timings are of a loaded machine:
use --jobs 1 (the default) for timings, more for correctness only. With
--executor ray, a case reserves --threads CPUs of its node, so that a node
of that many cores runs one at a time; without --threads, one CPU, and it
runs on as many threads as its node has cores.
Exit status: 0, or 1 when --expect finds a case that should pass and did not.
"""


def _split(values: Optional[List[str]]) -> List[str]:
    return [item for value in values or [] for item in value.split(",") if item]


def _add_corpus_options(parser: argparse.ArgumentParser) -> Dict[str, type]:
    """`--<corpus>-<option>` for every option of every installed corpus."""
    from .plugins import corpus_classes

    classes = corpus_classes()
    for name, corpus_class in classes.items():
        if not corpus_class.options:
            continue
        group = parser.add_argument_group(f"options of the {name} corpus")
        for option, spec in corpus_class.options.items():
            group.add_argument(
                f"--{name}-{option}",
                dest=f"corpus:{name}:{option}",
                type=spec.type,
                default=None,
                metavar=option.upper(),
                help=spec.help,
            )
    return classes


def _corpus_options(args: argparse.Namespace, corpus: str) -> dict:
    prefix = f"corpus:{corpus}:"
    return {
        key[len(prefix) :]: value
        for key, value in vars(args).items()
        if key.startswith(prefix) and value is not None
    }


def _non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def command_run(args: argparse.Namespace) -> int:
    from . import expectations
    from .plugins import compiler_names, create_compiler, create_corpus
    from .._progress import Progress
    from .records import ResultsWriter, read_results, run_record
    from .runner import RunOptions, Task, run, select_cases
    from .shards import case_durations, parse_shard, shard_of

    corpora = _split(args.corpus)
    compilers = _split(args.compiler) or compiler_names()
    for spec in compilers:
        create_compiler(spec)  # An unknown name is an error before anything runs.
    distributed = args.executor == "ray"
    if args.address and not distributed:
        raise ValueError("--address is the Ray cluster's: give it with --executor ray")
    # On a cluster, each node's cores unless given (0).
    threads = args.threads or (0 if distributed else os.cpu_count() or 1)
    jobs = max(1, min(args.jobs, os.cpu_count() or 1))
    if jobs != args.jobs and not distributed:
        _log(f"lh-suite: --jobs {args.jobs} lowered to {jobs}, the number of cores")
    shard = parse_shard(args.shard) if args.shard else None
    if args.durations and not shard:
        raise ValueError("--durations balances shards: give it with --shard I/N")
    durations = case_durations(read_results(args.durations)[1]) if args.durations else None
    tasks, corpus_options = [], {}
    for name in corpora:
        options = corpus_options[name] = _corpus_options(args, name)
        corpus = create_corpus(name, **options)
        corpus.prepare(_log)
        cases = select_cases(corpus.cases(), args.only, args.sample, args.seed)
        tasks += [Task(name, options, info, compilers) for info in cases]
    if shard:
        shards = shard_of([(t.corpus, t.info.name) for t in tasks], shard[1], durations)
        tasks = [t for t in tasks if shards[(t.corpus, t.info.name)] == shard[0] - 1]
        _log(
            f"lh-suite: shard {args.shard}"
            + (f", balanced by {args.durations}" if durations else "")
        )
    done = set()
    if args.resume and os.path.isfile(args.output):
        done = {(r["corpus"], r["case"]) for r in read_results(args.output)[1]}
        tasks = [t for t in tasks if (t.corpus, t.info.name) not in done]
    timed = not args.no_timing
    where = (
        f"on the Ray cluster {args.address or 'of this machine'}, "
        + (f"{threads} threads a case" if threads else "each node's cores as threads")
        if distributed
        else f"{threads} threads, {jobs} job(s)"
    )
    _log(
        f"lh-suite: {len(tasks)} cases x {len(compilers)} compilers "
        f"({', '.join(compilers)}), {where}" + ("" if timed else ", untimed") + f" -> {args.output}"
    )
    options = RunOptions(
        threads=threads,
        timeout=args.timeout,
        jobs=jobs,
        rounds=args.rounds if timed else None,
        budget=args.budget,
        memory=None if args.memory is None else int(args.memory * 2**30),
    )
    # What must agree for results to be of one run (lh-suite merge).
    settings = {
        "only": args.only,
        "sample": args.sample,
        "seed": args.seed,
        "timeout": args.timeout,
        "rounds": args.rounds if timed else None,
        "budget": args.budget if timed else None,
        "memory": args.memory,
        "corpus_options": corpus_options,
        "executor": args.executor,
    }
    writer = ResultsWriter(
        args.output,
        run_record(corpora, compilers, threads, sys.argv, timed, settings, shard),
        append=bool(done),
    )
    try:
        if distributed:
            from .distributed import run_on_ray

            run_on_ray(tasks, options, writer, Progress(len(tasks)), args.address)
        else:
            run(tasks, options, writer, Progress(len(tasks)))
    finally:
        writer.close()
    if args.expect:
        names = {t.info.name for t in tasks} | {case for _, case in done}
        records = [
            r for r in read_results(args.output)[1] if r["case"] in names and r["corpus"] in corpora
        ]
        checked = expectations.check(records, args.expect)
        print(checked.render())
        return 0 if checked.ok else 1
    return 0


def _read_all(paths: List[str]):
    from .records import read_results

    runs, records = [], []
    for path in paths:
        file_runs, file_records = read_results(path)
        runs += file_runs
        records += file_records
    return runs, records


def command_report(args: argparse.Namespace) -> int:
    from . import report

    runs, records = _read_all(args.results)
    for condition in args.where or []:
        tag, _, value = condition.partition("=")
        records = [r for r in records if str((r.get("tags") or {}).get(tag)) == value]
    summary = report.summarize(runs, records, baseline=args.baseline)
    print(report.render_text(summary))
    for path, render in ((args.markdown, report.render_markdown), (args.html, report.render_html)):
        if path:
            with open(path, "w") as f:
                f.write(render(summary))
            _log(f"lh-suite: wrote {path}")
    return 0


def command_merge(args: argparse.Namespace) -> int:
    from .records import ResultsWriter
    from .shards import merge_shards

    run, records = merge_shards(args.shards, force=args.force)
    writer = ResultsWriter(args.output, run)
    try:
        for record in records:
            writer.write(record)
    finally:
        writer.close()
    _log(f"lh-suite: {len(records)} records of {len(args.shards)} shards -> {args.output}")
    return 0


def command_record(args: argparse.Namespace) -> int:
    from .history import record

    for path, run_id in record(args.db, args.results, commit=args.commit):
        _log(
            f"lh-suite: {path} -> run {run_id} of {args.db}"
            if run_id is not None
            else f"lh-suite: {path} is recorded in {args.db} already"
        )
    return 0


def command_history(args: argparse.Namespace) -> int:
    from .history import check, load
    from .report.trends import render_check, render_dashboard, render_runs

    history = load(args.db, last=args.last)
    if not args.html and not args.check:
        print(render_runs(history))
    if args.html:
        with open(args.html, "w") as f:
            f.write(render_dashboard(history, baseline=args.baseline))
        _log(f"lh-suite: wrote {args.html} ({len(history.runs)} runs)")
    if not args.check:
        return 0
    regressions = check(history, window=args.window, band=args.band)
    print(render_check(history, regressions))
    return 1 if regressions else 0


def command_compare(args: argparse.Namespace) -> int:
    from . import compare

    old = _read_all([args.old])[1]
    new = _read_all([args.new])[1]
    result = compare.compare_results(old, new, band=args.band, baseline=args.baseline)
    render = compare.render_comparison_markdown if args.markdown else compare.render_comparison_text
    print(render(result))
    return 1 if result.has_regressions else 0


def command_expect(args: argparse.Namespace) -> int:
    from .expectations import write_expectations

    records = _read_all(args.results)[1]
    compilers = _split(args.compiler)
    if compilers:
        records = [r for r in records if r["compiler"] in compilers]
    for path in write_expectations(records, args.into):
        _log(f"lh-suite: wrote {path}")
    return 0


def command_list(args: argparse.Namespace) -> int:
    from .plugins import compiler_names, corpus_classes, create_corpus

    if args.what == "cases":
        if not args.corpus:
            raise SystemExit("lh-suite list cases: name a corpus (--corpus NAME)")
        corpus = create_corpus(args.corpus, **_corpus_options(args, args.corpus))
        corpus.prepare(_log)
        for info in corpus.cases():
            tags = " ".join(f"{k}={v}" for k, v in info.tags.items())
            print(f"{info.name}  {tags}")
        return 0
    if args.what in (None, "corpora"):
        print("corpora:")
        for name, corpus_class in corpus_classes().items():
            print(f"  {name:14} {corpus_class.description}")
    if args.what in (None, "compilers"):
        print("compilers:")
        for name in compiler_names():
            print(f"  {name}")
    return 0


def _add_baseline_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline",
        default="eager",
        help="the compiler speeds are relative to (default: %(default)s)",
    )


def _add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=os.environ.get("LH_SUITE_DB", "lh-suite-history.sqlite"),
        metavar="URL",
        help="a SQLite file or any SQLAlchemy database URL, e.g. "
        "postgresql://host/results (default: $LH_SUITE_DB, else %(default)s)",
    )


def parser(corpus_options: bool = True) -> argparse.ArgumentParser:
    """The command line; `corpus_options` adds every installed corpus's options
    to `run` and `list`, which imports the corpora (torch, for some)."""
    top = argparse.ArgumentParser(
        prog="lh-suite",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run_parser = commands.add_parser(
        "run",
        help="run corpora through compilers into a results file",
        description="Run corpora through compilers into a results file (JSON lines).",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run_parser.add_argument(
        "--corpus",
        action="append",
        required=True,
        metavar="NAME",
        help="a corpus (repeat, or separate with commas)",
    )
    run_parser.add_argument(
        "--compiler",
        action="append",
        metavar="NAME",
        help="a compiler, e.g. lighthouse:loops (repeat, or separate "
        "with commas; default: every installed one)",
    )
    run_parser.add_argument(
        "-o", "--output", default="lh-suite.jsonl", help="the results file (default: %(default)s)"
    )
    run_parser.add_argument("--only", metavar="REGEX", help="only the cases whose names match")
    run_parser.add_argument(
        "--sample", type=int, metavar="N", help="N cases of each corpus, spread over its operations"
    )
    run_parser.add_argument("--seed", type=int, default=0, help="of the sample")
    run_parser.add_argument(
        "--jobs", type=int, default=1, help="cases run at once, at most the cores (default: 1)"
    )
    run_parser.add_argument(
        "--threads", type=int, default=0, help="threads of every compiler (default: the cores)"
    )
    run_parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="for one compiler to compile and check one case (default: %(default)g)",
    )
    run_parser.add_argument(
        "--memory",
        type=_non_negative,
        metavar="GIB",
        help="resident memory of a worker (with the processes it started) past which it is "
        "killed and its case recorded as a crash (default: 3/4 of this machine's, or its "
        "control group's, shared by the jobs; 0: no limit)",
    )
    run_parser.add_argument("--no-timing", action="store_true", help="check correctness only")
    run_parser.add_argument(
        "--rounds", type=int, default=10, help="interleaved timing rounds (default: %(default)s)"
    )
    run_parser.add_argument(
        "--budget",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="timing stops after the round that passes this (default: %(default)g)",
    )
    run_parser.add_argument(
        "--resume", action="store_true", help="skip the cases already in the results file"
    )
    run_parser.add_argument(
        "--expect", metavar="DIR", help="check against the expectations files in DIR"
    )
    run_parser.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where cases run: worker processes of this machine (--jobs), or on a Ray "
        "cluster, each in a worker process of its node (default: %(default)s)",
    )
    run_parser.add_argument(
        "--address",
        help="the Ray cluster's (default: a cluster of this machine, for the run)",
    )
    run_parser.add_argument(
        "--shard",
        metavar="I/N",
        help="run the I-th of N parts of the cases, the same parts on every machine",
    )
    run_parser.add_argument(
        "--durations",
        metavar="RESULTS",
        help="balance the shards by the case times of this earlier run (default: by name)",
    )
    if corpus_options:
        _add_corpus_options(run_parser)
    run_parser.set_defaults(handler=command_run)

    report_parser = commands.add_parser(
        "report",
        help="tables and plots of results",
        description="Summarize results files: pass rates, "
        "speed against a baseline, failures by op and cause.",
    )
    report_parser.add_argument("results", nargs="+", help="results files")
    _add_baseline_option(report_parser)
    report_parser.add_argument(
        "--where",
        action="append",
        metavar="TAG=VALUE",
        help="only the cases with this tag (e.g. dtypes=standard: "
        "onnx-node's tests of float, integer and bool tensors)",
    )
    report_parser.add_argument("--markdown", metavar="FILE", help="also write Markdown")
    report_parser.add_argument(
        "--html", metavar="FILE", help="also write a self-contained HTML page with plots"
    )
    report_parser.set_defaults(handler=command_report)

    compare_parser = commands.add_parser(
        "compare",
        help="regressions and improvements between two results files",
        description="Cases that passed and no longer do, or got slower beyond the noise "
        "of their timings; improvements; new cases. Exit status 1 on regressions.",
    )
    compare_parser.add_argument("old")
    compare_parser.add_argument("new")
    compare_parser.add_argument(
        "--band",
        type=float,
        default=0.05,
        help="the smallest relative change counted as slower or faster (default: %(default)g)",
    )
    compare_parser.add_argument(
        "--baseline", help="compare speeds relative to this compiler in each run"
    )
    compare_parser.add_argument("--markdown", action="store_true", help="print Markdown")
    compare_parser.set_defaults(handler=command_compare)

    record_parser = commands.add_parser(
        "record",
        help="store results in a history database",
        description="Store the run of each results file, with its commit, version, "
        "machine, settings and case records, in a database (lh-suite history reads it).",
    )
    record_parser.add_argument("results", nargs="+")
    _add_db_option(record_parser)
    record_parser.add_argument(
        "--commit", help="the commit the runs tested (default: the one each run recorded)"
    )
    record_parser.set_defaults(handler=command_record)

    history_parser = commands.add_parser(
        "history",
        help="trends and regressions over the recorded runs",
        description="Render a dashboard of the recorded runs (--html) and check the latest "
        "against the noise of each case's recent history (--check: exit status 1 on "
        "regressions).",
    )
    _add_db_option(history_parser)
    history_parser.add_argument("--html", metavar="FILE", help="write the dashboard, one page")
    _add_baseline_option(history_parser)
    history_parser.add_argument("--last", type=int, metavar="N", help="only the last N runs")
    history_parser.add_argument(
        "--check", action="store_true", help="flag the latest run's cases out of their history"
    )
    history_parser.add_argument(
        "--window",
        type=int,
        default=10,
        metavar="N",
        help="the earlier runs of a case its noise is measured over (default: %(default)s)",
    )
    history_parser.add_argument(
        "--band",
        type=float,
        default=0.05,
        help="a time is flagged only this much above the slowest of its history "
        "(default: %(default)g)",
    )
    history_parser.set_defaults(handler=command_history)

    merge_parser = commands.add_parser(
        "merge",
        help="join the results of a run's shards into one results file",
        description="Join the results files of `run --shard I/N` for N = 1..N into one "
        "run; refuses shards of different versions, commits or settings, or missing ones.",
    )
    merge_parser.add_argument("shards", nargs="+", metavar="RESULTS")
    merge_parser.add_argument("-o", "--output", required=True, help="the merged results file")
    merge_parser.add_argument(
        "--force", action="store_true", help="merge shards that differ or are missing"
    )
    merge_parser.set_defaults(handler=command_merge)

    expect_parser = commands.add_parser(
        "expect",
        help="write expectations files from results",
        description="Write or update <corpus>.<compiler>.txt expectations files.",
    )
    expect_parser.add_argument("results", nargs="+")
    expect_parser.add_argument("--into", required=True, metavar="DIR")
    expect_parser.add_argument(
        "--compiler",
        action="append",
        metavar="NAME",
        help="only these compilers (default: all in the results)",
    )
    expect_parser.set_defaults(handler=command_expect)

    list_parser = commands.add_parser("list", help="installed corpora, compilers, cases")
    list_parser.add_argument("what", nargs="?", choices=("corpora", "compilers", "cases"))
    list_parser.add_argument("--corpus", help="the corpus whose cases to list")
    if corpus_options:
        _add_corpus_options(list_parser)
    list_parser.set_defaults(handler=command_list)

    from ..fuzz.cli import add_parser as add_fuzz_parser

    add_fuzz_parser(commands)
    return top


def main(argv=None) -> int:
    # A plugin that fails to load is a one-line warning, not a traceback.
    warnings.formatwarning = lambda message, *_, **__: f"lh-suite: warning: {message}\n"
    argv = sys.argv[1:] if argv is None else list(argv)
    # Only the commands with corpus options import the corpora: `report` and
    # `compare` start in 0.1 s instead of 1.4 s (torch's import).
    args = parser(corpus_options=bool(argv) and argv[0] in ("run", "list")).parse_args(argv)
    try:
        return args.handler(args)
    except (ValueError, FileNotFoundError, ImportError) as error:
        print(f"lh-suite: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
