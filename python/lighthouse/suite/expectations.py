"""Expected results, checked into a project next to its tests: one file per
corpus and compiler (`<corpus>.<compiler>.txt`), a line per case:

    pass  test_abs
    fail  test_scatter_elements  compile-error: ExchangeError (tm_tensor.scatter)  # a note
    skip  test_string_concat     unsupported: takes torch forms; the case offers none

A failure's cause is what the run recorded; after `  # ` a person may add a
note (why, what would fix it). A run checked against them (`lh-suite run
--expect DIR`) fails when a case expected to pass does not; a case that
passes against expectation, or is not listed, is reported without failing.
`lh-suite expect RESULTS --into DIR` writes the files from a run: causes
anew, notes kept while the case does not pass.
"""

import os
import re
from typing import Dict, Iterable, List, NamedTuple, Tuple

from .records import last_words

__all__ = [
    "Check",
    "Expectation",
    "check",
    "file_name",
    "read_expectations",
    "reason_of",
    "write_expectations",
]

_LOCATION = re.compile(r'^\s*"[^"]*":(\d+:\d+:)?\s*|^\s*loc\([^)]*\):?\s*')
_LINE = re.compile(r"^(pass|fail|skip)\s+(\S+)(?:\s+(.*))?$")
#: Between a cause and a note.
_NOTE = "  # "


class Expectation(NamedTuple):
    """A case's line: `kind` pass, fail or skip; the recorded `cause` of a
    failure or skip; a person's `note`."""

    kind: str
    cause: str = ""
    note: str = ""


def file_name(corpus: str, compiler: str) -> str:
    """The expectations file of a corpus and compiler (`:` is not for file names)."""
    return f"{corpus}.{compiler.replace(':', '-')}.txt"


def reason_of(record: dict) -> str:
    """A failure's reason in one line: the status, then what names the cause."""
    status = record["status"]
    message = (record.get("message") or "").strip()
    if status in ("crash", "timeout"):
        # The signal, and what the process said last ("LLVM ERROR: ...").
        detail = " ".join(
            filter(
                None, [record.get("signal") or message, last_words(record.get("stderr_tail", ""))]
            )
        )
    else:
        detail = record.get("error_class") or ""
        ops = record.get("ops") or []
        if ops:
            detail += f" ({', '.join(ops[:3])})"
        elif message:
            # A first line that announces what follows ("... failed:") with
            # the first diagnostic, its location left out.
            lines = [line.strip() for line in message.splitlines() if line.strip()]
            first = lines[0]
            if first.endswith(":"):
                diagnostic = next((line for line in lines[1:] if "error:" in line), "")
                first += " " + _LOCATION.sub("", diagnostic.partition("error:")[2]).strip()
            detail = f"{detail} {first}".strip()
    return f"{status}: {detail}"[:200].strip()


def read_expectations(path: str) -> Dict[str, Expectation]:
    """Case -> `Expectation` from an expectations file.

    Raises:
      ValueError: a line is not of the form `<pass|fail|skip> <case> [cause]
        [  # note]`.
    """
    expected = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            text, _, note = text.partition(_NOTE)
            match = _LINE.match(text.rstrip())
            if not match:
                raise ValueError(
                    f"{path}:{number}: expected '<pass|fail|skip> <case> "
                    f"[cause] [  # note]', got {line.strip()!r}"
                )
            kind, case, cause = match.groups()
            expected[case] = Expectation(kind, cause or "", note.strip())
    return expected


def _kind(record: dict) -> str:
    return {"pass": "pass", "unsupported": "skip"}.get(record["status"], "fail")


def write_expectations(records: Iterable[dict], folder: str) -> List[str]:
    """Writes or updates the expectations files of the corpora and compilers in
    `records`; returns the paths written."""
    by_file: Dict[str, List[dict]] = {}
    for record in records:
        if record["status"] != "invalid":
            by_file.setdefault(file_name(record["corpus"], record["compiler"]), []).append(record)
    os.makedirs(folder, exist_ok=True)
    written = []
    for name, group in sorted(by_file.items()):
        path = os.path.join(folder, name)
        entries = read_expectations(path) if os.path.isfile(path) else {}
        for record in group:
            kind = _kind(record)
            note = entries.get(record["case"], Expectation("")).note
            entries[record["case"]] = (
                Expectation("pass")
                if kind == "pass"
                else Expectation(kind, reason_of(record), note)
            )
        corpus, compiler = group[0]["corpus"], group[0]["compiler"]
        counts = {
            k: sum(1 for e in entries.values() if e.kind == k) for k in ("pass", "fail", "skip")
        }
        with open(path, "w") as f:
            f.write(
                f"# Expected results of {compiler} on the {corpus} corpus: "
                f"{counts['pass']} pass, {counts['fail']} fail, {counts['skip']} skip.\n"
                "# Written by `lh-suite expect` from a run; a note may follow a cause "
                "after '  # '.\n"
            )
            width = max(len(case) for case in entries)
            for case in sorted(entries):
                kind, cause, note = entries[case]
                line = f"{kind:4}  {case:{width}}  {cause}".rstrip()
                f.write(line + (f"{_NOTE}{note}" if note else "") + "\n")
        written.append(path)
    return written


class Check:
    """A run against expectations: cases that should have passed and did not
    (`failures`, which fail the check), that passed unexpectedly, and that are
    not listed."""

    def __init__(self):
        self.failures: List[Tuple[dict, str]] = []
        self.unexpected_passes: List[dict] = []
        self.unlisted: List[dict] = []

    @property
    def ok(self) -> bool:
        return not self.failures

    def render(self) -> str:
        lines = []
        for record, reason in self.failures:
            lines.append(
                f"UNEXPECTED {record['status'].upper()}: {record['corpus']} "
                f"{record['case']} on {record['compiler']}: {reason}"
            )
        for record in self.unexpected_passes:
            lines.append(
                f"unexpected pass: {record['corpus']} {record['case']} on "
                f"{record['compiler']} (update the expectations: lh-suite expect)"
            )
        if self.unlisted:
            lines.append(
                f"{len(self.unlisted)} case(s) not in the expectations files, e.g. "
                + ", ".join(f"{r['case']} on {r['compiler']}" for r in self.unlisted[:5])
            )
        lines.append(
            f"expectations: {len(self.failures)} unexpected failure(s), "
            f"{len(self.unexpected_passes)} unexpected pass(es)"
        )
        return "\n".join(lines)


def check(records: Iterable[dict], folder: str) -> Check:
    """Checks `records` against the expectations files in `folder`."""
    result = Check()
    loaded: Dict[str, Dict[str, Expectation]] = {}
    for record in records:
        if record["status"] == "invalid":
            continue
        path = os.path.join(folder, file_name(record["corpus"], record["compiler"]))
        if path not in loaded:
            loaded[path] = read_expectations(path) if os.path.isfile(path) else {}
        kind = loaded[path].get(record["case"], Expectation(None)).kind
        if kind is None:
            result.unlisted.append(record)
        elif kind == "pass" and record["status"] != "pass":
            result.failures.append((record, reason_of(record)))
        elif kind != "pass" and record["status"] == "pass":
            result.unexpected_passes.append(record)
    return result
