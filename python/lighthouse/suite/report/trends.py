"""The dashboard of a results history (`lh-suite history`): pass rates per
corpus and compiler over the runs, speed relative to a baseline compiler per
family over the runs, the cases that slowed down most and the newly failing
ones, and the runs, each linked from what came of it."""

import os
import statistics
from typing import Dict, List, Sequence, Tuple

from . import _colors, call_seconds, summarize
from . import svg as _svg
from .blocks import (
    Block,
    Cell,
    Facts,
    Figure,
    Heading,
    Paragraph,
    Table,
    format_count,
    format_ms,
    format_ratio,
    to_html,
    to_text,
)
from ..history import History, Regression, Run
from ..records import FAILED

__all__ = ["render_check", "render_dashboard", "render_runs"]

#: The tables list at most this many cases.
TABLE_ROWS = 25
#: A speed chart draws at most this many families (the most cases first).
CHART_FAMILIES = 10


def _run_cell(run: Run) -> Cell:
    return Cell(run.label, note=run.run.get("started", ""), link=f"#run-{run.id}")


def _by_run(history: History, baseline: str):
    """Per run, the report's summary of its records."""
    return [summarize([run.run], list(run.cases.values()), baseline) for run in history.runs]


def _pass_rate_blocks(history: History, summaries, colors) -> List[Block]:
    blocks: List[Block] = [Heading(2, "Pass rates", anchor="pass-rates")]
    labels = [run.label for run in history.runs]
    corpora = list(dict.fromkeys(c for s in summaries for c in s.corpora))
    for corpus in corpora:
        lines: Dict[str, Dict[int, float]] = {}
        for index, summary in enumerate(summaries):
            for (outcome_corpus, compiler), outcome in summary.outcomes.items():
                if outcome_corpus == corpus and outcome.pass_rate is not None:
                    lines.setdefault(compiler, {})[index] = 100 * outcome.pass_rate
        if lines:
            svg = _svg.line_chart(labels, lines, colors, "pass rate", lambda v: f"{v:g}%")
            blocks.append(Figure(svg, f"{corpus}: cases passed of those each compiler takes"))
    return blocks


def _speed_blocks(history: History, summaries, baseline: str) -> List[Block]:
    blocks: List[Block] = [Heading(2, f"Speed relative to {baseline}", anchor="speed")]
    labels = [run.label for run in history.runs]
    per_compiler: Dict[str, Dict[str, Dict[int, float]]] = {}
    sizes: Dict[Tuple[str, str], int] = {}
    for index, summary in enumerate(summaries):
        # The families of each corpus, or the corpus whole where it has none.
        groups = {**summary.speedups, **summary.family_speedups}
        for key, speedups in groups.items():
            corpus, compiler = key[:2]
            name = f"{corpus}: {key[2]}" if len(key) == 3 else corpus
            if len(key) == 2 and any(k[:2] == key for k in summary.family_speedups):
                continue
            if speedups.geomean is not None:
                per_compiler.setdefault(compiler, {}).setdefault(name, {})[index] = speedups.geomean
                sizes[(compiler, name)] = max(sizes.get((compiler, name), 0), len(speedups.ratios))
    if not per_compiler:
        blocks.append(Paragraph(f"No run timed both {baseline} and another compiler."))
    for compiler, families in per_compiler.items():
        kept = sorted(families, key=lambda f: (-sizes[(compiler, f)], f))[:CHART_FAMILIES]
        lines = {family: families[family] for family in sorted(kept)}
        colors = _colors(sorted(kept), baseline="")
        svg = _svg.line_chart(
            labels,
            lines,
            colors,
            f"{baseline}'s time over its",
            format_ratio,
            log=True,
            reference=1.0,
        )
        blocks.append(
            Figure(
                svg,
                f"{compiler}: {baseline}'s call time over {compiler}'s, geometric mean per "
                f"family (above 1x: faster than {baseline})",
            )
        )
    return blocks


def _slowed_down(history: History) -> List[Tuple[float, tuple, float, float, Run, Run]]:
    """The cases of the latest runs slower than the median of their earlier
    times on the same machine, most first: (ratio, key, median, latest
    seconds, the latest run, the run of the median's nearest time)."""
    results, earlier = history.latest()
    found = []
    for key, (latest, record) in results.items():
        seconds = call_seconds(record)
        before = [
            run
            for run in earlier
            if run.run.get("machine") == latest.run.get("machine")
            and key in run.cases
            and call_seconds(run.cases[key])
        ]
        if not seconds or not before:
            continue
        median = statistics.median(run.cases[key]["call_seconds"] for run in before)
        nearest = min(before, key=lambda run: abs(run.cases[key]["call_seconds"] - median))
        if seconds > median:
            found.append((seconds / median, key, median, seconds, latest, nearest))
    return sorted(found, key=lambda item: (-item[0], item[1]))[:TABLE_ROWS]


def _newly_failing(history: History) -> List[Tuple[tuple, dict, Run, Run]]:
    """The cases failing in the latest runs that passed in the run before that
    ran them: (key, latest record, the latest run, the run it passed in)."""
    results, earlier = history.latest()
    found = []
    for key, (latest, record) in sorted(results.items()):
        before = [run for run in earlier if key in run.cases]
        if record["status"] in FAILED and before and before[-1].cases[key]["status"] == "pass":
            found.append((key, record, latest, before[-1]))
    return found


def _case_cells(key: tuple) -> List[Cell]:
    corpus, case, compiler = key
    return [Cell(case, note=corpus), Cell(compiler)]


def _change_blocks(history: History) -> List[Block]:
    blocks: List[Block] = [Heading(2, "Slowed down most", anchor="slower")]
    slowed = _slowed_down(history)
    if slowed:
        blocks.append(
            Table(
                [
                    Cell("case"),
                    Cell("compiler"),
                    Cell("before (median, ms)"),
                    Cell("latest (ms)"),
                    Cell("latest / before"),
                ],
                [
                    _case_cells(key)
                    + [
                        Cell(format_ms(median), note=nearest.label, link=f"#run-{nearest.id}"),
                        Cell(format_ms(seconds), note=latest.label, link=f"#run-{latest.id}"),
                        Cell(f"{ratio:.2f}x", style="bad" if ratio > 1.05 else ""),
                    ]
                    for ratio, key, median, seconds, latest, nearest in slowed
                ],
                numeric=(2, 3, 4),
            )
        )
    else:
        blocks.append(Paragraph("No case of the latest runs is slower than it was before."))
    blocks.append(Heading(2, "Newly failing", anchor="failing"))
    failing = _newly_failing(history)
    if failing:
        blocks.append(
            Table(
                [
                    Cell("case"),
                    Cell("compiler"),
                    Cell("status"),
                    Cell("passed in"),
                    Cell("message"),
                ],
                [
                    _case_cells(key)
                    + [
                        Cell(
                            record["status"],
                            note=latest.label,
                            style="bad",
                            link=f"#run-{latest.id}",
                        ),
                        _run_cell(passed),
                        Cell((record.get("message") or "").strip().split("\n")[0][:200]),
                    ]
                    for key, record, latest, passed in failing[:TABLE_ROWS]
                ],
                detail_below=True,
            )
        )
    else:
        blocks.append(Paragraph("No case fails in the latest runs that passed in the run before."))
    return blocks


def _runs_table(history: History) -> Table:
    rows = []
    for run in reversed(history.runs):
        record = run.run
        statuses = sum(case["status"] == "pass" for case in run.cases.values())
        rows.append(
            [
                Cell(f"run {run.id}", anchor=f"run-{run.id}"),
                Cell((record.get("commit") or "-")[:12]),
                Cell(record.get("started") or "-"),
                Cell(record.get("lighthouse") or "-"),
                Cell(record.get("machine") or "-", note=f"{record.get('threads')} threads"),
                Cell(
                    ", ".join(record.get("compilers", [])),
                    note=", ".join(record.get("corpora", [])),
                ),
                Cell(f"{format_count(statuses)}/{format_count(len(run.cases))}"),
                Cell(os.path.basename(run.source), link="file://" + run.source),
            ]
        )
    return Table(
        [
            Cell(t)
            for t in (
                "run",
                "commit",
                "started",
                "lighthouse",
                "machine",
                "compilers",
                "passed",
                "results file",
            )
        ],
        rows,
        numeric=(6,),
    )


def render_dashboard(history: History, baseline: str = "eager") -> str:
    """The history as one self-contained HTML page."""
    if not history.runs:
        raise ValueError(f"{history.db}: no runs recorded (lh-suite record RESULTS --db ...)")
    summaries = _by_run(history, baseline)
    compilers = list(dict.fromkeys(c for s in summaries for c in s.compilers))
    colors = _colors(compilers, baseline)
    first, last = history.runs[0].run, history.runs[-1].run
    blocks: List[Block] = [
        Heading(1, "lh-suite history"),
        Facts(
            [
                ("database", history.db),
                ("runs", format_count(len(history.runs))),
                ("from", f"{first.get('started')} ({history.runs[0].label})"),
                ("to", f"{last.get('started')} ({history.runs[-1].label})"),
            ]
        ),
    ]
    blocks += _pass_rate_blocks(history, summaries, colors)
    blocks += _speed_blocks(history, summaries, baseline)
    blocks += _change_blocks(history)
    blocks += [Heading(2, "Runs", anchor="runs"), _runs_table(history)]
    return to_html(blocks, "lh-suite history")


def render_check(history: History, regressions: Sequence[Regression]) -> str:
    """What `history --check` found, as text."""
    if not history.runs:
        return f"{history.db}: no runs recorded"
    results, earlier = history.latest()
    latest = sorted({run.id: run for run, _ in results.values()}.values(), key=lambda r: r.id)
    head = (
        f"{len(regressions)} regression(s) in "
        + ", ".join(
            f"run {run.id} ({run.label}, started {run.run.get('started')})" for run in latest
        )
        + f" against the {len(earlier)} run(s) before"
    )
    return to_text([Paragraph(head)] + [Paragraph(r.describe()) for r in regressions])


def render_runs(history: History) -> str:
    """The recorded runs, as text."""
    return to_text([Paragraph(f"{history.db}: {len(history.runs)} run(s)"), _runs_table(history)])
