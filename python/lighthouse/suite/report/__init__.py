"""Reports of a results file: the run, pass rates, speed against a baseline
compiler, latencies of timed cases, and failures grouped by operation and by
cause; as plain text (a terminal), Markdown (a pull request, an issue) or one
self-contained HTML page with its plots.

    runs, records = read_results("results.jsonl")
    summary = summarize(runs, records, baseline="eager")
    print(render_text(summary))

The three renderers share one outline (`_document`, of `_blocks`), so that
they tell the same numbers; the HTML page adds plots (`_svg`) and every
failure with its message.
"""

import collections
import html
import math
import re
import statistics
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import svg as _svg
from .blocks import (
    Block,
    Cell,
    Details,
    Facts,
    Figure,
    Heading,
    Paragraph,
    Raw,
    Table,
    format_count,
    format_ms,
    format_percent,
    format_ratio,
    to_html,
    to_markdown,
    to_text,
)
from ..records import FAILED

__all__ = [
    "FailureGroup",
    "LatencyCell",
    "LatencyTable",
    "Outcomes",
    "Speedups",
    "Summary",
    "call_seconds",
    "examples_text",
    "geomean",
    "normalize_message",
    "render_html",
    "render_markdown",
    "render_text",
    "summarize",
]

#: Compilers' colors in the order they first appear: the Okabe-Ito palette
#: (told apart with the common color vision deficiencies), then a few more.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#8C564B",
    "#B8A800",
    "#17BECF",
    "#9467BD",
)
#: The baseline is gray: the reference the others are measured against.
BASELINE_COLOR = "#7A7A7A"
#: Latency tables with more rows only give their geometric means in text and
#: Markdown; the HTML page has them whole, collapsed.
LATENCY_ROWS = 60
#: Failure groups listed per compiler before the rest is collapsed (HTML) or
#: left to the HTML page (text, Markdown).
TOP_GROUPS = 12
#: Causes in the HTML page's plot of causes.
PLOT_CAUSES = 20
#: Example cases named per failure group.
EXAMPLES = 3
#: A speedup this far from 1 is colored as faster or slower in the HTML page.
SPEED_COLOR_BAND = 0.05


# ---------------------------------------------------------------------------
# The summary


def geomean(values: Iterable[float]) -> Optional[float]:
    """The geometric mean of positive `values`; None when there are none."""
    logs = [math.log(v) for v in values]
    return math.exp(math.fsum(logs) / len(logs)) if logs else None


def _fraction(part: int, whole: int) -> Optional[float]:
    return part / whole if whole > 0 else None


@dataclass
class Outcomes:
    """How the cases of a corpus went with a compiler: a count per status."""

    corpus: str
    compiler: str
    counts: collections.Counter = field(default_factory=collections.Counter)
    #: Per `op` tag of the valid cases: whether every one of them passed.
    ops: Dict[str, bool] = field(default_factory=dict)

    @property
    def ops_passing(self) -> str:
        """ "passing/all" of the ops whose every valid case passed, or "-"."""
        if not self.ops:
            return "-"
        return f"{format_count(sum(self.ops.values()))}/{format_count(len(self.ops))}"

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def failed(self) -> int:
        return sum(self.counts[s] for s in FAILED)

    @property
    def pass_rate(self) -> Optional[float]:
        """Passes among the cases the compiler takes: all but the invalid and
        the unsupported ones. None when it takes none."""
        return _fraction(
            self.counts["pass"], self.total - self.counts["invalid"] - self.counts["unsupported"]
        )

    @property
    def coverage(self) -> Optional[float]:
        """Passes among all valid cases, the unsupported ones counting as not
        passed. None when no case is valid."""
        return _fraction(self.counts["pass"], self.total - self.counts["invalid"])


@dataclass
class Speedups:
    """A compiler's speedups over the baseline on the cases of a corpus (of
    one family of them when `family` is set): the baseline's call time over
    the compiler's, on the cases both passed and were timed."""

    corpus: str
    compiler: str
    family: Optional[str] = None
    cases: List[str] = field(default_factory=list)
    ratios: List[float] = field(default_factory=list)

    @property
    def geomean(self) -> Optional[float]:
        return geomean(self.ratios)

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.ratios) if self.ratios else None

    @property
    def faster(self) -> int:
        """The number of cases faster than on the baseline."""
        return sum(r > 1 for r in self.ratios)


@dataclass
class LatencyCell:
    """A compiler on a timed case: its status, and when it was timed, its
    median call (`seconds`), the calls' relative spread and its speedup over
    the baseline (None for the baseline itself)."""

    status: str
    seconds: Optional[float] = None
    spread: Optional[float] = None
    speedup: Optional[float] = None


@dataclass
class LatencyTable:
    """The cases of a corpus some compiler was timed on, with a cell per
    compiler that has a record of the case. `baseline` is None when the
    baseline was not timed in the corpus (no speedups then)."""

    corpus: str
    compilers: List[str]
    baseline: Optional[str]
    rows: List[Tuple[str, Dict[str, LatencyCell]]]

    def geomean_speedup(self, compiler: str) -> Tuple[Optional[float], int]:
        """The geometric mean of the compiler's speedups, and of how many."""
        ratios = [
            cells[compiler].speedup
            for _, cells in self.rows
            if compiler in cells and cells[compiler].speedup is not None
        ]
        return geomean(ratios), len(ratios)

    def geomean_seconds(self, compiler: str) -> Optional[float]:
        """The geometric mean of the compiler's call times, only when it was
        timed on every case (else it would not compare with the others')."""
        seconds = [cells[compiler].seconds if compiler in cells else None for _, cells in self.rows]
        return None if None in seconds else geomean(seconds)


@dataclass
class FailureGroup:
    """Failures sharing an operation or a cause (`status` and `label`: the
    exception's class and its normalized message), with the cases of each
    compiler."""

    label: str
    status: str = ""
    cases: Dict[str, List[str]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(len(c) for c in self.cases.values())


@dataclass
class Summary:
    """What a report tells, computed once for every renderer.

    Attributes:
      baseline: the compiler speedups are measured against.
      runs: the run records.
      corpora, compilers: in the order of the run records, then of the cases.
      colors: each compiler's color in the plots and tables.
      outcomes: per (corpus, compiler).
      speedups: per (corpus, compiler), for corpora the baseline was timed in.
      family_speedups: per (corpus, compiler, family tag).
      unbaselined: corpora with timings but none of the baseline.
      latency: a table per corpus with timings.
      causes, ops: failures grouped by cause and by operation, most first.
      failures: the failed case records.
    """

    baseline: str
    runs: List[dict]
    corpora: List[str]
    compilers: List[str]
    colors: Dict[str, str]
    outcomes: Dict[Tuple[str, str], Outcomes]
    speedups: Dict[Tuple[str, str], Speedups]
    family_speedups: Dict[Tuple[str, str, str], Speedups]
    unbaselined: List[str]
    latency: List[LatencyTable]
    causes: List[FailureGroup]
    ops: List[FailureGroup]
    failures: List[dict]


# A message's variable parts, masked so that messages differing only in them
# group together; in this order, as shapes hold numbers and quotes hold both.
_MASKS = (
    (re.compile(r"\b(tensor|memref|vector)<[^<>]*>"), r"\1<*>"),
    # Quoted names; an apostrophe within a word ("can't") opens no quote.
    (re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"|`[^`\n]*`"), "'*'"),
    # Operation names, unquoted ("cannot lower: torch.aten.angle"): the
    # grouping by operation shows them.
    (
        re.compile(
            r"\b(?:torch|onnx|tm_tensor|linalg|tensor|arith|math|func|memref|scf|"
            r"vector|llvm)\.[A-Za-z_][\w.]*"
        ),
        "<op>",
    ),
    (re.compile(r"0x[0-9a-fA-F]+"), "0x*"),
    (re.compile(r"(?:[\w.\-]+)?(?:/[\w.\-]+){2,}"), "<path>"),
    # (2, 3), [2, 3], [?, 4], torch.Size([2, 3]), 2x3x4.
    (re.compile(r"[(\[]\s*(?:-?\d+|\?)(?:\s*[,x]\s*(?:-?\d+|\?))*\s*,?\s*[)\]]"), "<shape>"),
    (re.compile(r"\b\d+(?:x\d+)+\b"), "<shape>"),
    (re.compile(r"%[\w.#]+"), "%*"),
    # Numbers, but not those within names (float32, conv2d).
    (re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?!\w)"), "N"),
)
#: A normalized message keeps at most this many characters.
MESSAGE_PATTERN_CHARS = 160


def normalize_message(message: Optional[str]) -> str:
    """The first line of `message` with numbers, shapes, quoted names, paths
    and addresses masked, so that similar messages are the same."""
    line = next((line.strip() for line in (message or "").splitlines() if line.strip()), "")
    if not line:
        return "(no message)"
    for pattern, replacement in _MASKS:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())[:MESSAGE_PATTERN_CHARS]


def _ordered(items: Iterable[str]) -> List[str]:
    return list(dict.fromkeys(items))


def _tags(record: dict) -> dict:
    return record.get("tags") or {}


def call_seconds(record: dict) -> Optional[float]:
    """The median call time of a passing, timed record."""
    seconds = record.get("call_seconds")
    if record["status"] == "pass" and isinstance(seconds, (int, float)) and seconds > 0:
        return float(seconds)
    return None


def _failed_ops(record: dict) -> List[str]:
    op = _tags(record).get("op")
    return list(record.get("ops") or []) or ([str(op)] if op else ["(no operation named)"])


def _colors(compilers: Sequence[str], baseline: str) -> Dict[str, str]:
    others = [c for c in compilers if c != baseline]
    colors = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(others)}
    colors[baseline] = BASELINE_COLOR
    return colors


def _speedups(
    records: Sequence[dict], timed: Dict[Tuple[str, str, str], float], baseline: str
) -> Tuple[dict, dict]:
    """Speedups per (corpus, compiler) and per (corpus, compiler, family)."""
    speedups: Dict[Tuple[str, str], Speedups] = {}
    family_speedups: Dict[Tuple[str, str, str], Speedups] = {}
    for record in records:
        corpus, case, compiler = record["corpus"], record["case"], record["compiler"]
        seconds = timed.get((corpus, case, compiler))
        reference = timed.get((corpus, case, baseline))
        if compiler == baseline or seconds is None or reference is None:
            continue
        groups = [speedups.setdefault((corpus, compiler), Speedups(corpus, compiler))]
        family = _tags(record).get("family")
        if family is not None:
            key = (corpus, compiler, str(family))
            groups.append(family_speedups.setdefault(key, Speedups(*key)))
        for group in groups:
            group.cases.append(case)
            group.ratios.append(reference / seconds)
    return speedups, family_speedups


def _corpus_latency(
    corpus: str,
    records: Sequence[dict],
    compilers: Sequence[str],
    timed: Dict[Tuple[str, str, str], float],
    baseline: str,
) -> LatencyTable:
    """The latency table of the records of a corpus with timings."""
    rows: Dict[str, Dict[str, LatencyCell]] = {
        case: {}
        for case in _ordered(
            r["case"] for r in records if (corpus, r["case"], r["compiler"]) in timed
        )
    }
    baselined = False
    for record in records:
        case, compiler = record["case"], record["compiler"]
        if case not in rows:
            continue
        seconds = timed.get((corpus, case, compiler))
        reference = timed.get((corpus, case, baseline))
        baselined = baselined or reference is not None
        rows[case][compiler] = LatencyCell(
            record["status"],
            seconds,
            record.get("call_spread") if seconds else None,
            reference / seconds if seconds and reference and compiler != baseline else None,
        )
    present = {r["compiler"] for r in records}
    return LatencyTable(
        corpus,
        [c for c in compilers if c in present],
        baseline if baselined else None,
        list(rows.items()),
    )


def _failure_groups(failures: Sequence[dict]) -> Tuple[List[FailureGroup], List[FailureGroup]]:
    """The failures grouped by cause and by operation, the largest groups first."""
    causes: Dict[Tuple[str, str], FailureGroup] = {}
    ops: Dict[str, FailureGroup] = {}
    for record in failures:
        pattern = normalize_message(record.get("message"))
        error_class = record.get("error_class")
        label = f"{error_class}: {pattern}" if error_class else pattern
        groups = [
            causes.setdefault((record["status"], label), FailureGroup(label, record["status"]))
        ]
        groups += [ops.setdefault(op, FailureGroup(op)) for op in _failed_ops(record)]
        for group in groups:
            group.cases.setdefault(record["compiler"], []).append(record["case"])

    def most_first(groups: Iterable[FailureGroup]) -> List[FailureGroup]:
        return sorted(groups, key=lambda g: (-g.total, g.status, g.label))

    return most_first(causes.values()), most_first(ops.values())


def summarize(runs: Sequence[dict], records: Sequence[dict], baseline: str = "eager") -> Summary:
    """Computes what the reports tell of a results file.

    Args:
      runs: the run records (`read_results`'s first list).
      records: the case records.
      baseline: the compiler speedups are measured against. A corpus it was
        not timed in gets no speedups (it is listed in `unbaselined`).

    Returns:
      A `Summary`, for `render_text`, `render_markdown` or `render_html`.
    """
    corpora = _ordered(
        [c for run in runs for c in run.get("corpora", [])] + [r["corpus"] for r in records]
    )
    compilers = _ordered(
        [c for run in runs for c in run.get("compilers", [])] + [r["compiler"] for r in records]
    )
    outcomes: Dict[Tuple[str, str], Outcomes] = {}
    for record in records:
        key = (record["corpus"], record["compiler"])
        outcome = outcomes.setdefault(key, Outcomes(*key))
        outcome.counts[record["status"]] += 1
        op = _tags(record).get("op")
        if op is not None and record["status"] != "invalid":
            outcome.ops[str(op)] = outcome.ops.get(str(op), True) and record["status"] == "pass"
    timed = {}
    for record in records:
        seconds = call_seconds(record)
        if seconds is not None:
            timed[(record["corpus"], record["case"], record["compiler"])] = seconds
    speedups, family_speedups = _speedups(records, timed, baseline)
    latency = [
        _corpus_latency(
            corpus, [r for r in records if r["corpus"] == corpus], compilers, timed, baseline
        )
        for corpus in corpora
        if any(key[0] == corpus for key in timed)
    ]
    failures = [r for r in records if r["status"] in FAILED]
    causes, ops = _failure_groups(failures)
    return Summary(
        baseline=baseline,
        runs=list(runs),
        corpora=corpora,
        compilers=compilers,
        colors=_colors(compilers, baseline),
        outcomes=outcomes,
        speedups=speedups,
        family_speedups=family_speedups,
        unbaselined=[t.corpus for t in latency if t.baseline is None],
        latency=latency,
        causes=causes,
        ops=ops,
        failures=failures,
    )


def _speed_style(ratio: Optional[float]) -> str:
    if ratio is None:
        return ""
    return (
        "good"
        if ratio > 1 + SPEED_COLOR_BAND
        else "bad"
        if ratio < 1 / (1 + SPEED_COLOR_BAND)
        else ""
    )


def examples_text(cases: Sequence[str]) -> str:
    more = f" (+{len(cases) - EXAMPLES} more)" if len(cases) > EXAMPLES else ""
    return ", ".join(cases[:EXAMPLES]) + more


def _in_compiler_order(summary: Summary, corpus: str, by_key: dict) -> list:
    """The values of `by_key` (keyed by corpus and compiler) of `corpus`, in the
    summary's order of compilers."""
    return [by_key[(corpus, c)] for c in summary.compilers if (corpus, c) in by_key]


def _compiler_cell(summary: Summary, compiler: str, note: str = "") -> Cell:
    return Cell(compiler, note, color=summary.colors.get(compiler))


def _run_blocks(summary: Summary) -> List[Block]:
    if not summary.runs:
        return [Paragraph("No run record: the results file has cases only.")]

    def value(run: dict, key: str) -> str:
        if key == "timed":
            timed = run.get("timed")
            return "?" if timed is None else "yes" if timed else "no"
        if key in ("corpora", "compilers"):
            return ", ".join(run.get(key, [])) or "-"
        if key == "command":
            return " ".join(run.get("argv", [])) or "-"
        return str(run.get(key, "?"))

    keys = (
        "started",
        "machine",
        "threads",
        "lighthouse",
        "python",
        "timed",
        "corpora",
        "compilers",
        "command",
    )
    # What every run shares once; what differs, a row per run.
    shared = [k for k in keys if len({value(run, k) for run in summary.runs}) == 1]
    blocks: List[Block] = [Facts([(k, value(summary.runs[0], k)) for k in shared])]
    varying = [k for k in keys if k not in shared]
    if varying:
        blocks.append(
            Table(
                [Cell("run")] + [Cell(k) for k in varying],
                [
                    [Cell(str(index + 1))] + [Cell(value(run, k)) for k in varying]
                    for index, run in enumerate(summary.runs)
                ],
                detail_below="command" in varying,
            )
        )
    return blocks


_OUTCOME_COLUMNS = ("pass",) + FAILED + ("unsupported", "invalid")
_OUTCOME_SHORT = ("pass", "mism", "comp", "run", "crash", "tout", "unsup", "inval")


def _outcome_blocks(summary: Summary) -> List[Block]:
    blocks: List[Block] = [
        Heading(2, "Pass rates", anchor="pass-rates"),
        Paragraph(
            "rate: passes among the cases a compiler takes (all but the invalid and the "
            "unsupported ones); of valid: passes among all valid cases, the unsupported ones "
            "counting as not passed; ops: the operations (the cases' op tag) whose every "
            "valid case passed, of those with a valid case."
        ),
    ]
    if not summary.outcomes:
        return blocks + [Paragraph("No case records.")]
    bars = {
        key: _svg.Bar(
            o.pass_rate,
            o.coverage or 0.0,
            f"{100 * o.pass_rate:.0f}%",
            f"{o.compiler} on {o.corpus}: {o.counts['pass']} passed, "
            f"{o.failed} failed, {o.counts['unsupported']} unsupported\n"
            f"rate {format_percent(o.pass_rate)}, "
            f"of valid {format_percent(o.coverage)}",
        )
        for key, o in summary.outcomes.items()
        if o.pass_rate is not None
    }
    if bars:
        key = [
            ("light: pass / supported cases", _svg.tint(BASELINE_COLOR, 0.6)),
            ("solid: pass / all valid cases", BASELINE_COLOR),
        ]
        blocks.append(
            Figure(
                _svg.grouped_bars(
                    summary.corpora,
                    summary.compilers,
                    summary.colors,
                    bars,
                    "pass rate",
                    1.0,
                    lambda t: f"{100 * t:.0f}%",
                    key,
                ),
                "Pass rate per corpus and compiler.",
            )
        )
    for corpus in summary.corpora:
        rows = _in_compiler_order(summary, corpus, summary.outcomes)
        if not rows:
            continue
        cases = max(o.total for o in rows)
        blocks.append(Heading(3, f"{corpus} ({format_count(cases)} cases)"))
        blocks.append(
            Table(
                [Cell("compiler")]
                + [Cell(s) for s in _OUTCOME_COLUMNS]
                + [Cell("rate"), Cell("of valid"), Cell("ops passing")],
                [
                    [_compiler_cell(summary, o.compiler)]
                    + [
                        Cell(format_count(o.counts[s]), style="muted" if not o.counts[s] else "")
                        for s in _OUTCOME_COLUMNS
                    ]
                    + [
                        Cell(format_percent(o.pass_rate)),
                        Cell(format_percent(o.coverage)),
                        Cell(o.ops_passing),
                    ]
                    for o in rows
                ],
                numeric=range(1, len(_OUTCOME_COLUMNS) + 4),
                short_headers=["compiler", *_OUTCOME_SHORT, "rate", "of valid", "ops"],
                short_key="(mism: mismatch, comp: compile-error, run: run-error, tout: timeout, "
                "unsup: unsupported, inval: invalid)",
            )
        )
    return blocks


def _speed_blocks(summary: Summary) -> List[Block]:
    base = summary.baseline
    blocks: List[Block] = [
        Heading(2, f"Speed relative to {base}", anchor="speed"),
        Paragraph(
            f"speedup: {base}'s median call time over the compiler's, on the cases both passed "
            f"and were timed; above 1x is faster than {base}. Means are geometric."
        ),
    ]
    for corpus in summary.unbaselined:
        blocks.append(Paragraph(f"{corpus}: {base} was not timed, so no speedups."))
    if not summary.speedups:
        return blocks + [Paragraph(f"No case was timed with both {base} and another compiler.")]
    blocks.append(
        Table(
            [
                Cell("corpus"),
                Cell("compiler"),
                Cell("cases"),
                Cell("geomean"),
                Cell("median"),
                Cell("min"),
                Cell("max"),
                Cell("faster"),
            ],
            [
                [
                    Cell(s.corpus),
                    _compiler_cell(summary, s.compiler),
                    Cell(format_count(len(s.ratios))),
                    Cell(format_ratio(s.geomean), style=_speed_style(s.geomean)),
                    Cell(format_ratio(s.median)),
                    Cell(format_ratio(min(s.ratios))),
                    Cell(format_ratio(max(s.ratios))),
                    Cell(f"{s.faster}/{len(s.ratios)}"),
                ]
                for s in summary.speedups.values()
            ],
            numeric=range(2, 8),
        )
    )
    for corpus in summary.corpora:
        rows = _in_compiler_order(summary, corpus, summary.speedups)
        if not rows:
            continue
        strip = [
            _svg.StripRow(
                s.compiler,
                summary.colors[s.compiler],
                [_svg.Dot(r, f"{case}: {format_ratio(r)}") for case, r in zip(s.cases, s.ratios)],
                s.geomean,
                f"geomean {format_ratio(s.geomean)}, n={len(s.ratios)}",
            )
            for s in rows
        ]
        blocks.append(
            Figure(
                _svg.strip_plot(
                    strip,
                    f"speedup over {base} ({base}'s time / the compiler's, log scale)",
                    1.0,
                    f"1x = {base}",
                ),
                f"{corpus}: speedup over {base} per case (a dot each; the black bar is the "
                "geometric mean).",
            )
        )
        families = _ordered(f for (c, _, f) in summary.family_speedups if c == corpus)
        if families:
            compilers = [s.compiler for s in rows]
            blocks.append(Heading(3, f"{corpus}: geometric mean speedup by family"))
            blocks.append(
                Table(
                    [Cell("family")] + [_compiler_cell(summary, c) for c in compilers],
                    [
                        [Cell(family)]
                        + [
                            _family_cell(summary.family_speedups.get((corpus, c, family)))
                            for c in compilers
                        ]
                        for family in sorted(families)
                    ],
                    numeric=range(1, len(compilers) + 1),
                )
            )
    return blocks


def _family_cell(speedups: Optional[Speedups]) -> Cell:
    if speedups is None:
        return Cell("-", style="muted")
    return Cell(
        format_ratio(speedups.geomean), f"n={len(speedups.ratios)}", _speed_style(speedups.geomean)
    )


def _latency_cell(cell: Optional[LatencyCell]) -> Cell:
    if cell is None:
        return Cell("")
    if cell.seconds is None:
        return Cell(cell.status, style="bad" if cell.status in FAILED else "muted")
    return Cell(
        format_ms(cell.seconds),
        format_ratio(cell.speedup) if cell.speedup else "",
        note_style=_speed_style(cell.speedup),
    )


def _latency_table(summary: Summary, table: LatencyTable, with_rows: bool) -> Table:
    seconds = [table.geomean_seconds(c) for c in table.compilers]
    footer = [
        [Cell("geomean ms")]
        + [Cell(format_ms(s)) if s else Cell("-", style="muted") for s in seconds]
    ]
    if table.baseline:
        speedups = []
        for compiler in table.compilers:
            speedup, count = table.geomean_speedup(compiler)
            note = f"n={count}" if count < len(table.rows) else ""
            speedups.append(
                Cell(format_ratio(speedup), note, _speed_style(speedup))
                if speedup
                else Cell("-", style="muted")
            )
        footer.append([Cell("geomean speedup")] + speedups)
    return Table(
        [Cell("case")]
        + [
            _compiler_cell(summary, c, "baseline" if c == table.baseline else "")
            for c in table.compilers
        ],
        [
            [Cell(case)] + [_latency_cell(cells.get(c)) for c in table.compilers]
            for case, cells in table.rows
        ]
        if with_rows
        else [],
        numeric=range(1, len(table.compilers) + 1),
        footer=footer,
    )


def _latency_blocks(summary: Summary) -> List[Block]:
    blocks: List[Block] = [Heading(2, "Latency of timed cases", anchor="latency")]
    if not summary.latency:
        return blocks + [Paragraph("No case was timed.")]
    for table in summary.latency:
        speed = (
            f"; after it, the speedup over {table.baseline} (its time over the compiler's)"
            if table.baseline
            else f" ({summary.baseline} was not timed here: no speedups)"
        )
        cases = format_count(len(table.rows))
        blocks.append(Heading(3, f"{table.corpus} ({cases} timed cases)"))
        blocks.append(
            Paragraph(
                f"Milliseconds per call, the median of the timed calls{speed}. A compiler's "
                "geometric mean time is given only when it was timed on every case, the "
                "geometric mean speedup over the cases it and the baseline were timed on (n "
                "when not all)."
            )
        )
        if len(table.rows) <= LATENCY_ROWS:
            blocks.append(_latency_table(summary, table, True))
        else:
            blocks.append(_latency_table(summary, table, False))
            blocks.append(
                Details(
                    f"All {cases} timed cases",
                    [_latency_table(summary, table, True)],
                    "(Every case is in the HTML report.)",
                )
            )
    return blocks


def _group_table(
    summary: Summary, compiler: str, groups: Sequence[FailureGroup], name: str
) -> Table:
    causes = name == "cause"
    return Table(
        [Cell("count")] + ([Cell("status")] if causes else []) + [Cell(name), Cell("examples")],
        [
            [Cell(format_count(len(g.cases[compiler])))]
            + ([Cell(g.status, style="nowrap")] if causes else [])
            + [Cell(g.label), Cell(examples_text(g.cases[compiler]))]
            for g in groups
        ],
        numeric=[0],
        detail_below=causes,
    )


def _failure_blocks(summary: Summary) -> List[Block]:
    blocks: List[Block] = [
        Heading(2, "Failures", anchor="failures"),
        Paragraph(
            "Grouped by cause (the status, the exception's class and the first line of its "
            "message with numbers, shapes and quoted names masked) and by operation (those a "
            "compile error names, else the case's op tag)."
        ),
    ]
    if not summary.failures:
        return blocks + [Paragraph("No failures.")]
    top = summary.causes[:PLOT_CAUSES]
    blocks.append(
        Figure(
            _svg.stacked_hbars(
                [
                    (
                        f"{g.status} · {g.label}",
                        f"{g.status}: {g.label} ({g.total})",
                        {c: len(cases) for c, cases in g.cases.items()},
                    )
                    for g in top
                ],
                summary.compilers,
                summary.colors,
                "failures",
            ),
            f"The {len(top)} most frequent causes of failure, by compiler.",
        )
    )
    for compiler in summary.compilers:
        mine = [r for r in summary.failures if r["compiler"] == compiler]
        if not mine:
            continue
        blocks.append(
            Heading(3, f"{compiler}: {format_count(len(mine))} failures", summary.colors[compiler])
        )
        for name, groups in (("cause", summary.causes), ("operation", summary.ops)):
            groups = sorted(
                (g for g in groups if compiler in g.cases), key=lambda g: -len(g.cases[compiler])
            )
            blocks.append(Paragraph(f"By {name} ({format_count(len(groups))}):"))
            blocks.append(_group_table(summary, compiler, groups[:TOP_GROUPS], name))
            if len(groups) > TOP_GROUPS:
                rest = len(groups) - TOP_GROUPS
                blocks.append(
                    Details(
                        f"{rest} more {name}s",
                        [_group_table(summary, compiler, groups[TOP_GROUPS:], name)],
                        f"({rest} more in the HTML report.)",
                    )
                )
        blocks.append(
            Details(
                f"All {format_count(len(mine))} failures with their messages",
                [Raw(_failure_list_html(mine))],
            )
        )
    return blocks


def _failure_list_html(records: Sequence[dict]) -> str:
    rows = []
    for record in records:
        message = record.get("message") or ""
        if record.get("error_class"):
            message = f"{record['error_class']}: {message}"
        tail = record.get("stderr_tail")
        output = (
            f"<details><summary>output</summary><pre>{html.escape(tail)}</pre></details>"
            if tail
            else ""
        )
        signal = f" ({html.escape(str(record['signal']))})" if record.get("signal") else ""
        rows.append(
            f"<tr><td>{html.escape(record['corpus'])}</td>"
            f"<td>{html.escape(record['case'])}</td>"
            f'<td class="bad">{html.escape(record["status"])}{signal}</td>'
            f"<td><pre>{html.escape(message)}</pre>{output}</td></tr>"
        )
    return (
        '<table class="data failures"><thead><tr><th>corpus</th><th>case</th>'
        "<th>status</th><th>message</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _document(summary: Summary) -> List[Block]:
    return (
        [Heading(1, "Compiler test bench report")]
        + _run_blocks(summary)
        + _outcome_blocks(summary)
        + _speed_blocks(summary)
        + _latency_blocks(summary)
        + _failure_blocks(summary)
    )


def render_text(summary: Summary) -> str:
    """The report as plain ASCII text at most 100 columns wide, for a terminal."""
    return to_text(_document(summary))


def render_markdown(summary: Summary) -> str:
    """The report as GitHub-flavored Markdown, without the plots and the
    per-case failure messages."""
    return to_markdown(_document(summary))


def render_html(summary: Summary) -> str:
    """The report as one self-contained HTML page: inline CSS and SVG plots,
    no scripts, nothing loaded from elsewhere. Its markup is also well-formed
    XML."""
    return to_html(_document(summary), "Compiler test bench report")
