"""Expected results, checked into a project next to its tests: one file per
corpus and compiler (`<corpus>.<compiler>.txt`), a line per case:

    pass  test_abs
    fail  test_attention_3d   compile-error: LoweringError (onnx.Attention)
    skip  test_string_concat  unsupported: takes torch forms; the case offers none

A run checked against them (`lh-suite run --expect DIR`) fails when a case
expected to pass does not; a case that passes against expectation, or is not
listed, is reported without failing. `lh-suite expect RESULTS --into DIR`
writes the files from a run, keeping the reason of a failure already listed
(reasons may be edited by hand).
"""

import os
import re
from typing import Dict, Iterable, List, Tuple

from .records import last_words

__all__ = ["Check", "check", "file_name", "read_expectations", "reason_of", "write_expectations"]

_LOCATION = re.compile(r'^\s*"[^"]*":(\d+:\d+:)?\s*|^\s*loc\([^)]*\):?\s*')
_LINE = re.compile(r"^(pass|fail|skip)\s+(\S+)(?:\s+(.*))?$")


def file_name(corpus: str, compiler: str) -> str:
    """The expectations file of a corpus and compiler (`:` is not for file names)."""
    return f"{corpus}.{compiler.replace(':', '-')}.txt"


def reason_of(record: dict) -> str:
    """A failure's reason in one line: the status, then what names the cause."""
    status = record["status"]
    message = (record.get("message") or "").strip()
    if status in ("crash", "timeout"):
        # The signal, and what the process said last ("LLVM ERROR: ...").
        detail = " ".join(filter(None, [record.get("signal") or message,
                                        last_words(record.get("stderr_tail", ""))]))
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


def read_expectations(path: str) -> Dict[str, Tuple[str, str]]:
    """Case -> (pass | fail | skip, reason) from an expectations file.

    Raises:
      ValueError: a line is not of the form `<pass|fail|skip> <case> [reason]`.
    """
    expected = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            match = _LINE.match(text)
            if not match:
                raise ValueError(f"{path}:{number}: expected '<pass|fail|skip> <case> "
                                 f"[reason]', got {text!r}")
            expected[match.group(2)] = (match.group(1), match.group(3) or "")
    return expected


def _kind(record: dict) -> str:
    return {"pass": "pass", "unsupported": "skip"}.get(record["status"], "fail")


def write_expectations(records: Iterable[dict], folder: str) -> List[str]:
    """Writes or updates the expectations files of the corpora and compilers in
    `records`; returns the paths written."""
    by_file: Dict[str, List[dict]] = {}
    for record in records:
        if record["status"] != "invalid":
            by_file.setdefault(file_name(record["corpus"], record["compiler"]),
                               []).append(record)
    os.makedirs(folder, exist_ok=True)
    written = []
    for name, group in sorted(by_file.items()):
        path = os.path.join(folder, name)
        entries = read_expectations(path) if os.path.isfile(path) else {}
        for record in group:
            kind = _kind(record)
            old_kind, old_reason = entries.get(record["case"], (None, ""))
            reason = "" if kind == "pass" else (
                old_reason if old_kind == kind and old_reason else reason_of(record))
            entries[record["case"]] = (kind, reason)
        corpus, compiler = group[0]["corpus"], group[0]["compiler"]
        counts = {k: sum(1 for v, _ in entries.values() if v == k)
                  for k in ("pass", "fail", "skip")}
        with open(path, "w") as f:
            f.write(f"# Expected results of {compiler} on the {corpus} corpus: "
                    f"{counts['pass']} pass, {counts['fail']} fail, {counts['skip']} skip.\n"
                    "# Written by `lh-suite expect`; reasons of failures may be edited.\n")
            width = max(len(case) for case in entries)
            for case in sorted(entries):
                kind, reason = entries[case]
                f.write(f"{kind:4}  {case:{width}}  {reason}".rstrip() + "\n")
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
            lines.append(f"UNEXPECTED {record['status'].upper()}: {record['corpus']} "
                         f"{record['case']} on {record['compiler']}: {reason}")
        for record in self.unexpected_passes:
            lines.append(f"unexpected pass: {record['corpus']} {record['case']} on "
                         f"{record['compiler']} (update the expectations: lh-suite expect)")
        if self.unlisted:
            lines.append(f"{len(self.unlisted)} case(s) not in the expectations files, e.g. "
                         + ", ".join(f"{r['case']} on {r['compiler']}"
                                     for r in self.unlisted[:5]))
        lines.append(f"expectations: {len(self.failures)} unexpected failure(s), "
                     f"{len(self.unexpected_passes)} unexpected pass(es)")
        return "\n".join(lines)


def check(records: Iterable[dict], folder: str) -> Check:
    """Checks `records` against the expectations files in `folder`."""
    result = Check()
    loaded: Dict[str, Dict[str, Tuple[str, str]]] = {}
    for record in records:
        if record["status"] == "invalid":
            continue
        path = os.path.join(folder, file_name(record["corpus"], record["compiler"]))
        if path not in loaded:
            loaded[path] = read_expectations(path) if os.path.isfile(path) else {}
        kind, _ = loaded[path].get(record["case"], (None, ""))
        if kind is None:
            result.unlisted.append(record)
        elif kind == "pass" and record["status"] != "pass":
            result.failures.append((record, reason_of(record)))
        elif kind != "pass" and record["status"] == "pass":
            result.unexpected_passes.append(record)
    return result
