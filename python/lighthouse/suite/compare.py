"""Comparing two results files case by case: what broke and what was fixed,
what got slower or faster beyond the timing noise, which failures changed,
and which cases came or went.

    _, old = read_results("before.jsonl")
    _, new = read_results("after.jsonl")
    result = compare_results(old, new, baseline="eager")
    print(render_comparison_text(result))
    sys.exit(1 if result.has_regressions else 0)
"""

import collections
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from .report.blocks import (
    Block,
    Cell,
    Heading,
    Paragraph,
    Table,
    format_count,
    format_ms,
    to_markdown,
    to_text,
)
from .report import call_seconds, examples_text

__all__ = [
    "Change",
    "Comparison",
    "NOISE_SPREADS",
    "compare_results",
    "render_comparison_markdown",
    "render_comparison_text",
]

#: A time moves beyond the noise when it moves by more than this many times
#: the records' combined call spread (when that exceeds the fixed band). A
#: call spread is the interquartile range of the calls over their median: with
#: 1, a new median that moved by it lies beyond the old run's quartile on its
#: side, that is most new calls are slower (or faster) than three quarters of
#: the old ones: a shift, not jitter. Less would flag the jitter itself (half
#: the calls of an unchanged compiler lie outside the median's half-IQR); the
#: standard error of a median of many calls would be far smaller than the
#: spread, but it does not cover what changes between runs (frequency, cache
#: and memory placement), which the within-run spread approaches better.
NOISE_SPREADS = 1.0

#: A failure's message is cut to this many characters.
MESSAGE_CHARS = 300

#: Record keys: (corpus, case, compiler).
Key = Tuple[str, str, str]


@dataclass
class Change:
    """A case and compiler whose outcome differs between the runs.

    Attributes:
      corpus, case, compiler: which.
      kind: "broken" (passed, no longer does), "fixed" (passes now),
        "slower", "faster", or "changed" (another status, neither passing or
        one of them invalid).
      old_status, new_status: the statuses in the old and the new run.
      message: of a failure, the exception's class and the first line of the
        new record's message (of the old one's for a fixed case).
      old_time, new_time: for slower and faster, the median call time in each
        run, in seconds or, when `relative`, as a fraction of the baseline's.
      factor: new_time / old_time.
      band: the relative noise band the factor was held against.
      relative: whether the times are relative to the baseline's.
    """

    corpus: str
    case: str
    compiler: str
    kind: str
    old_status: str
    new_status: str
    message: str = ""
    old_time: Optional[float] = None
    new_time: Optional[float] = None
    factor: Optional[float] = None
    band: Optional[float] = None
    relative: bool = False


@dataclass
class Comparison:
    """What changed from an old results file to a new one.

    Attributes:
      band: the smallest relative change of a call time that counts.
      baseline: the compiler call times were taken relative to in each run;
        None when raw seconds were compared.
      baseline_note: why a requested baseline was not used, or what it left
        out.
      regressions: broken, then slower cases, the worst first.
      improvements: fixed, then faster cases, the best first.
      status_changes: failures that fail otherwise, and changes to or from
        `invalid` (they tell of the case, not the compiler).
      new_records, removed_records: the records of case and compiler pairs
        only in the new or only in the old run.
      passes: per (corpus, compiler), the passes in the old and the new run.
      compared: the case and compiler pairs in both runs.
      timed: of those, the pairs whose call times were compared.
    """

    band: float
    baseline: Optional[str]
    baseline_note: str
    regressions: List[Change] = field(default_factory=list)
    improvements: List[Change] = field(default_factory=list)
    status_changes: List[Change] = field(default_factory=list)
    new_records: List[dict] = field(default_factory=list)
    removed_records: List[dict] = field(default_factory=list)
    passes: Dict[Tuple[str, str], Tuple[int, int]] = field(default_factory=dict)
    compared: int = 0
    timed: int = 0

    @property
    def has_regressions(self) -> bool:
        return bool(self.regressions)


def _key(record: dict) -> Key:
    return record["corpus"], record["case"], record["compiler"]


def _references(
    key: Key, old: Dict[Key, dict], new: Dict[Key, dict], baseline: str
) -> Optional[List[dict]]:
    """The baseline's records of the pair's case in both runs, if timed in both."""
    references = [runs.get((key[0], key[1], baseline)) for runs in (old, new)]
    timed = None not in references and None not in map(call_seconds, references)
    return references if timed else None


def _speed_change(
    key: Key,
    old: Dict[Key, dict],
    new: Dict[Key, dict],
    band: float,
    references: Optional[List[dict]],
) -> Optional[Change]:
    """The change of a pair timed in both runs, if beyond the noise; relative
    to the baseline's `references` in each run when given."""
    pair = [old[key], new[key]]
    times = [call_seconds(r) for r in pair]
    if references is not None:
        times = [t / call_seconds(r) for t, r in zip(times, references)]
        pair += references
    # Independent noises add in quadrature; a ratio to the baseline carries
    # the baseline's noise in both runs too.
    spread = math.sqrt(sum((r.get("call_spread") or 0.0) ** 2 for r in pair))
    noise = max(band, NOISE_SPREADS * spread)
    factor = times[1] / times[0]
    kind = "slower" if factor > 1 + noise else "faster" if factor < 1 / (1 + noise) else None
    if kind is None:
        return None
    return Change(
        *key,
        kind,
        "pass",
        "pass",
        old_time=times[0],
        new_time=times[1],
        factor=factor,
        band=noise,
        relative=references is not None,
    )


def _first_line(record: dict) -> str:
    line = next(
        (line.strip() for line in (record.get("message") or "").splitlines() if line.strip()), ""
    )
    error_class = record.get("error_class")
    return (f"{error_class}: {line}" if error_class else line)[:MESSAGE_CHARS]


def _timed_anywhere(records: Dict[Key, dict], compiler: str) -> bool:
    return any(k[2] == compiler and call_seconds(r) is not None for k, r in records.items())


def compare_results(
    old_records: Sequence[dict],
    new_records: Sequence[dict],
    *,
    band: float = 0.05,
    baseline: Optional[str] = None,
) -> Comparison:
    """Compares the case records of two runs, pair by pair (case and compiler).

    Args:
      old_records, new_records: the case records (`read_results`'s second list).
      band: the smallest relative change of a median call time that counts;
        a pair's band is wider when its calls spread more (`NOISE_SPREADS`).
      baseline: a compiler timed in both runs, to compare each compiler's call
        time as a fraction of the baseline's on the same case in the same run:
        robust to a machine faster or slower on another day. The baseline's
        own times, and cases it was not timed on in both runs, are then not
        compared. Ignored (and said so) when it was not timed in both runs.

    Returns:
      A `Comparison`.
    """
    old = {_key(r): r for r in old_records}
    new = {_key(r): r for r in new_records}
    note = ""
    if baseline is not None and not (
        _timed_anywhere(old, baseline) and _timed_anywhere(new, baseline)
    ):
        note = f"{baseline} was not timed in both runs: raw call times are compared."
        baseline = None
    result = Comparison(band, baseline, note)
    untimed_reference = 0
    for key, record in new.items():
        if key not in old:
            result.new_records.append(record)
            continue
        result.compared += 1
        before, after = old[key]["status"], record["status"]
        if before == after == "pass":
            if key[2] == baseline or None in (call_seconds(old[key]), call_seconds(record)):
                continue
            references = None
            if baseline is not None:
                references = _references(key, old, new, baseline)
                if references is None:
                    untimed_reference += 1
                    continue
            result.timed += 1
            change = _speed_change(key, old, new, band, references)
            if change is not None:
                (result.regressions if change.kind == "slower" else result.improvements).append(
                    change
                )
        elif before != after:
            change = Change(
                *key, "changed", before, after, _first_line(old[key] if after == "pass" else record)
            )
            if "invalid" in (before, after):
                result.status_changes.append(change)
            elif before == "pass":
                change.kind = "broken"
                result.regressions.append(change)
            elif after == "pass":
                change.kind = "fixed"
                result.improvements.append(change)
            else:
                result.status_changes.append(change)
    result.removed_records = [r for k, r in old.items() if k not in new]
    if baseline is not None:
        result.baseline_note = (
            f"{baseline}'s own call times are not compared"
            + (
                f"; nor those of {untimed_reference} pairs whose case {baseline} was not "
                "timed on in both runs"
                if untimed_reference
                else ""
            )
            + "."
        )

    passes = collections.defaultdict(lambda: [0, 0])
    for index, records in enumerate((old, new)):
        for (corpus, _, compiler), record in records.items():
            passes[(corpus, compiler)][index] += record["status"] == "pass"
    result.passes = {key: tuple(counts) for key, counts in passes.items()}

    order = {"broken": 0, "fixed": 0, "slower": 1, "faster": 1}
    result.regressions.sort(key=lambda c: (order[c.kind], -(c.factor or 0)))
    result.improvements.sort(key=lambda c: (order[c.kind], c.factor or 0))
    return result


def _time(change: Change, value: float) -> str:
    return f"{value:.3g}" if change.relative else format_ms(value) + " ms"


def _change_row(change: Change, baseline: Optional[str]) -> List[Cell]:
    if change.factor is not None:
        what = (
            f"{change.factor:.2f}x slower"
            if change.kind == "slower"
            else f"{1 / change.factor:.2f}x faster"
        )
        unit = f" of {baseline}'s time" if change.relative else ""
        detail = (
            f"{_time(change, change.old_time)} -> {_time(change, change.new_time)}"
            f"{unit} (band {100 * change.band:.0f}%)"
        )
    else:
        what, detail = f"{change.old_status} -> {change.new_status}", change.message
    return [Cell(change.corpus), Cell(change.case), Cell(change.compiler), Cell(what), Cell(detail)]


def _changes_table(changes: Sequence[Change], baseline: Optional[str]) -> Table:
    return Table(
        [Cell(h) for h in ("corpus", "case", "compiler", "change", "detail")],
        [_change_row(c, baseline) for c in changes],
        detail_below=True,
    )


def _records_table(records: Sequence[dict]) -> Table:
    groups: Dict[Tuple[str, str], List[str]] = {}
    for record in records:
        groups.setdefault((record["corpus"], record["compiler"]), []).append(record["case"])
    return Table(
        [Cell(h) for h in ("corpus", "compiler", "cases", "examples")],
        [
            [
                Cell(corpus),
                Cell(compiler),
                Cell(format_count(len(cases))),
                Cell(examples_text(cases)),
            ]
            for (corpus, compiler), cases in groups.items()
        ],
        numeric=[2],
    )


def _comparison_blocks(result: Comparison) -> List[Block]:
    if result.baseline:
        times = (
            f"Call times are compared relative to {result.baseline} in each run (a "
            f"compiler's time over {result.baseline}'s on the same case), so that a "
            "machine faster or slower on one day does not count; " + result.baseline_note
        )
    else:
        times = "Call times are compared in seconds. " + result.baseline_note
    blocks: List[Block] = [
        Heading(1, "Comparison of two results files"),
        Paragraph(
            f"{len(result.regressions)} regressions, {len(result.improvements)} "
            f"improvements, {len(result.status_changes)} other status changes among "
            f"{format_count(result.compared)} case and compiler pairs in both runs "
            f"({format_count(result.timed)} of them timed in both); "
            f"{format_count(len(result.new_records))} only in the new run, "
            f"{format_count(len(result.removed_records))} only in the old one."
        ),
        Paragraph(times.strip()),
        Paragraph(
            f"A time counts as changed beyond {100 * result.band:g}%, or beyond "
            f"{NOISE_SPREADS:g} times the pair's combined call spread (interquartile "
            "range over median) when that is wider."
        ),
    ]
    if result.passes:
        rows = [
            [
                Cell(corpus),
                Cell(compiler),
                Cell(format_count(before)),
                Cell(format_count(after)),
                Cell(f"{after - before:+,}"),
            ]
            for (corpus, compiler), (before, after) in result.passes.items()
        ]
        blocks += [
            Heading(2, "Passes"),
            Table(
                [Cell(h) for h in ("corpus", "compiler", "old", "new", "change")],
                rows,
                numeric=[2, 3, 4],
            ),
        ]
    for title, changes in (
        ("Regressions", result.regressions),
        ("Improvements", result.improvements),
        ("Other status changes", result.status_changes),
    ):
        blocks.append(Heading(2, f"{title} ({len(changes)})"))
        blocks.append(_changes_table(changes, result.baseline) if changes else Paragraph("None."))
    for title, records in (
        ("Only in the new run", result.new_records),
        ("Only in the old run", result.removed_records),
    ):
        if records:
            blocks += [
                Heading(2, f"{title} ({format_count(len(records))})"),
                _records_table(records),
            ]
    return blocks


def render_comparison_text(result: Comparison) -> str:
    """The comparison as plain ASCII text at most 100 columns wide."""
    return to_text(_comparison_blocks(result))


def render_comparison_markdown(result: Comparison) -> str:
    """The comparison as GitHub-flavored Markdown."""
    return to_markdown(_comparison_blocks(result))
