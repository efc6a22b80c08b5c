"""A progress line for long runs: cases done of all, counts by status,
passes by compiler, and the time left at the pace so far."""

import collections
import sys
import time

__all__ = ["Progress"]


class Progress:
    """Redrawn in place on a terminal; on anything else (CI logs), a line at
    most every `interval` seconds and at the end."""

    def __init__(self, total: int, stream=None, interval: float = 30.0):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.interval = interval
        self.statuses = collections.Counter()
        self.passes = collections.Counter()
        self.counted = collections.Counter()
        self.started = time.monotonic()
        self.last_drawn = self.started

    def advance(self, records) -> None:
        self.done += 1
        for record in records:
            self.statuses[record["status"]] += 1
            if "compiler" not in record:
                continue  # A run of one compiler (lh-suite fuzz).
            # Out of the cases the compiler takes.
            self.counted[record["compiler"]] += record["status"] not in ("invalid", "unsupported")
            self.passes[record["compiler"]] += record["status"] == "pass"
        self.draw(force=self.done == self.total)

    def tick(self) -> None:
        self.draw(force=False)

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done) if self.done else 0
        statuses = " ".join(f"{s} {n}" for s, n in sorted(self.statuses.items()))
        compilers = " ".join(
            f"{c} {self.passes[c]}/{self.counted[c]}" for c in sorted(self.counted)
        )
        line = f"[{self.done}/{self.total}] {elapsed:.0f}s, ~{left:.0f}s left | {statuses}"
        return f"{line} | passed: {compilers}" if compilers else line

    def draw(self, force: bool) -> None:
        now = time.monotonic()
        if self.interactive:
            if force or now - self.last_drawn > 0.2:
                self.stream.write("\r\033[K" + self.line()[:240])
                if self.done == self.total:
                    self.stream.write("\n")
                self.stream.flush()
                self.last_drawn = now
        elif force or now - self.last_drawn > self.interval:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self.last_drawn = now
