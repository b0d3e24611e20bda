"""Progress reports as a line of text for a terminal or a log: units, a rate, time left.

The pipeline reports ``(stage, done, total)`` in each stage's own units: bytes for
``read``, pages for ``extract`` and ``match``, rows for ``save``. Reading and extraction
run at once (workers read and extract together), so they share one line:
``reading: 12.3 of 50.8 MB (24%), 340 pages extracted, 4.1 MB/s, about 9 s left``.

:class:`ProgressLine` keeps the state and makes the text; :class:`ProgressWriter` decides
when to write it: on a terminal one line rewritten in place (carriage return) and
cleared at the end; elsewhere (a log file) plain lines, one when the stage changes and
at most one every ``interval`` seconds within a stage. Both take a clock, so tests need
no real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

MB = 2**20
# What each stage is called on the line; "read" and "extract" are one stage there.
STAGE_NAMES = {"read": "reading", "extract": "reading", "filter": "filtering",
               "match": "matching", "cluster": "clustering", "save": "saving", "done": "done"}
# Each stage's unit, for the stages that count something other than bytes.
_UNITS = {"match": "pages", "save": "rows"}
# A rate and time left are shown only after this long: the first second's rate says
# more about start-up than about the work.
MIN_ELAPSED_FOR_RATE = 1.0


def stage_name(stage: str) -> str:
    return STAGE_NAMES.get(stage, stage)


def duration(seconds: float) -> str:
    """"45 s", "3 min", "1 h 5 min": as precise as a person waiting needs."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def megabytes(n: float) -> str:
    return f"{n / MB:,.1f}"


@dataclass(slots=True)
class _Count:
    done: int = 0
    total: int | None = None


@dataclass
class ProgressLine:
    """The latest progress of a run, as text."""

    clock: Callable[[], float] = time.monotonic
    stage: str = ""  # the name shown (read and extract: "reading")
    started: float = 0.0  # when the shown stage began
    read: _Count = field(default_factory=_Count)  # bytes
    pages: _Count = field(default_factory=_Count)  # pages extracted
    work: _Count = field(default_factory=_Count)  # any other stage's units
    # A cluster's tasks (workbench.cluster): reported as stage "tasks" beside the stage
    # they belong to, shown on its line; a new stage starts without them.
    tasks: _Count = field(default_factory=_Count)

    def update(self, stage: str, done: int, total: int | None) -> bool:
        """Take one report; whether the shown stage changed with it."""
        if stage == "tasks":
            self.tasks = _Count(done, total)
            return False
        name = stage_name(stage)
        changed = name != self.stage
        if changed:
            self.stage, self.started, self.work, self.tasks = name, self.clock(), _Count(), _Count()
        if stage == "read":
            self.read = _Count(done, total)
        elif stage == "extract":
            self.pages = _Count(done, total)
        else:
            self.work = _Count(done, total)
        return changed

    def text(self) -> str:
        line = self._text()
        if self.tasks.total and self.stage != "done":
            line += f", {self.tasks.done:,} of {self.tasks.total:,} tasks done"
        return line

    def _text(self) -> str:
        elapsed = self.clock() - self.started
        if self.stage == "reading":
            return self._reading(elapsed)
        if self.stage == "done":
            return "done"
        unit = _UNITS.get(self._stage_key(), "")
        if not unit or not (self.work.done or self.work.total):
            return f"{self.stage}..."
        count = self.work
        parts = [f"{self.stage}: {_of(count, unit)}"]
        parts += _rate_and_left(count.done, count.total, elapsed, f"{unit}/s", lambda n: f"{n:,.0f}")
        return ", ".join(parts)

    def _stage_key(self) -> str:
        return next((k for k, v in STAGE_NAMES.items() if v == self.stage), self.stage)

    def _reading(self, elapsed: float) -> str:
        read, pages = self.read, self.pages
        parts = []
        if read.total:
            share = min(1.0, read.done / read.total)
            parts.append(f"reading: {megabytes(read.done)} of {megabytes(read.total)} MB ({share:.0%})")
        elif read.done:
            parts.append(f"reading: {megabytes(read.done)} MB")
        else:
            parts.append("reading")
        extracted = (f"{pages.done:,} of {pages.total:,} pages extracted" if pages.total
                     else f"{pages.done:,} page{'' if pages.done == 1 else 's'} extracted")
        parts.append(extracted)
        if read.done:  # bytes say best how far reading is
            parts += _rate_and_left(read.done, read.total, elapsed, "MB/s", megabytes)
        elif pages.done:
            parts += _rate_and_left(pages.done, pages.total, elapsed, "pages/s", lambda n: f"{n:,.0f}")
        return ", ".join(parts)


def _of(count: _Count, unit: str) -> str:
    if count.total:
        share = min(1.0, count.done / count.total)
        return f"{count.done:,} of {count.total:,} {unit} ({share:.0%})"
    return f"{count.done:,} {unit}"


def _rate_and_left(done: int, total: int | None, elapsed: float, unit: str,
                   amount: Callable[[float], str]) -> list[str]:
    """"4.1 MB/s", "about 9 s left": only once the stage has run long enough to tell."""
    if elapsed < MIN_ELAPSED_FOR_RATE or done <= 0:
        return []
    rate = done / elapsed
    parts = [f"{amount(rate)} {unit}"]
    if total and done < total:
        parts.append(f"about {duration((total - done) / rate)} left")
    return parts


class ProgressWriter:
    """A progress callback that writes :class:`ProgressLine` text to a stream.

    ``tty``: one line rewritten in place, at most every ``tty_interval`` seconds (a
    terminal need not redraw a thousand times a second); else plain lines, at most one
    every ``interval`` seconds per stage plus one at each stage change.
    """

    def __init__(self, stream: TextIO, tty: bool, clock: Callable[[], float] = time.monotonic,
                 interval: float = 5.0, tty_interval: float = 0.2) -> None:
        self.stream = stream
        self.tty = tty
        self.line = ProgressLine(clock)
        self._clock = clock
        self._interval = tty_interval if tty else interval
        self._last_write = float("-inf")
        self._width = 0  # of the line on the terminal, to blank what a shorter one leaves
        self._pending = False  # a report came that was not written

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        # A log gets a stage's last state before the next stage's first ("reading: 50.8 of
        # 50.8 MB (100%) ..."), even when the interval would have skipped it.
        before = self.line.text() if self._pending and not self.tty else None
        changed = self.line.update(stage, done, total)
        now = self._clock()
        if changed and before is not None:
            self._write(before)
        if changed or now - self._last_write >= self._interval:
            self._last_write = now
            self._pending = False
            self._write(self.line.text())
        else:
            self._pending = True

    def _write(self, text: str) -> None:
        if self.tty:
            pad = " " * max(0, self._width - len(text))
            self.stream.write(f"\r{text}{pad}")
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """Clear the terminal line (a log keeps its lines)."""
        if self.tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
