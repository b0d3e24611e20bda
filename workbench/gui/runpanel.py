"""The status area of a background run: stage, counts, progress bar, elapsed time, Cancel."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

STAGES = {
    "read": "Reading the archive",
    "extract": "Reading the archive",
    "filter": "Filtering signatures",
    "match": "Matching pages",
    "cluster": "Clustering",
    "save": "Saving to the project",
    "done": "Done",
}
# Share of the bar each stage fills (reading and extraction dominate).
_SPAN = {"read": (0, 80), "extract": (0, 80), "filter": (80, 82), "match": (82, 93),
         "cluster": (93, 95), "save": (95, 100), "done": (100, 100)}


def _mb(n: float) -> str:
    return f"{n / 2**20:,.1f} MB"


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


class RunPanel(QWidget):
    cancel_requested = Signal()
    # Emitted on the GUI thread once a progress report is shown: what tests and other
    # widgets wait on (a worker thread's own signal can be delivered after a waiter that
    # listened to it is gone, which crashed PySide6).
    progress_shown = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stage = QLabel()
        self.stage.setObjectName("runStage")
        self.detail = QLabel()
        self.detail.setObjectName("runCounts")
        # The counts grow as a run goes on (MB, pages, signatures, pairs, clusters, tasks):
        # as wide as its text, the label widened the window past the width it was given
        # (1,600 -> 1,753 px on the dev Gold Set). It takes the room left and is cut there,
        # whole in its tooltip.
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFixedWidth(220)
        self.bar.setTextVisible(True)
        self.elapsed = QLabel()
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("cancelRun")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        for w in (self.stage, self.bar, self.detail, self.elapsed, self.cancel):
            layout.addWidget(w, 1 if w is self.detail else 0)
        self.cancel.clicked.connect(self._cancel)
        self._timer = QTimer(self)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._tick)
        self._started = 0.0
        self._fraction = 0.0
        self._read_fraction: float | None = None
        self.counts: dict[str, int] = {}
        self._pages = 0
        self._read = (0, 0)
        self.tasks = (0, 0)  # a Dask run's tasks done and all (its "tasks" reports)
        self._stage = ""

    def start(self, what: str) -> None:
        self._started = time.monotonic()
        self._fraction = 0.0
        self._read_fraction = None
        self.counts = {}
        self._pages = 0
        self._read = (0, 0)
        self.tasks = (0, 0)
        self._stage = ""
        self.stage.setText(what)
        self.detail.setText("")
        self.bar.setValue(0)
        self.cancel.setEnabled(True)
        self.cancel.setText("Cancel")
        self._tick()
        self._timer.start()
        self.show()

    def stop(self) -> None:
        self._timer.stop()
        self.hide()

    def _cancel(self) -> None:
        self.cancel.setEnabled(False)
        self.cancel.setText("Cancelling…")
        self.cancel_requested.emit()

    def on_progress(self, stage: str, done, total) -> None:
        if stage == "tasks":  # beside the stage it comes with: neither a stage nor the bar's
            self.tasks = (done, total or 0)
            self._show_detail(self._stage, None, None)
            return
        self._stage = stage
        self.stage.setText(STAGES.get(stage, stage.title()))
        lo, hi = _SPAN.get(stage, (0, 100))
        if stage == "read" and total:
            self._read = (done, total)
            self._read_fraction = min(1.0, done / total)
            frac = self._read_fraction
        elif stage == "extract":
            self._pages = done
            frac = self._read_fraction or 0.0
        elif total:
            frac = min(1.0, done / total)
        else:
            frac = 0.0
        self._fraction = max(self._fraction, (lo + (hi - lo) * frac) / 100)
        self.bar.setValue(round(self._fraction * 1000))
        self.bar.setFormat(f"{self._fraction * 100:.0f} %")
        self._show_detail(stage, done, total)
        self.progress_shown.emit(stage)

    def _show_detail(self, stage: str, done, total) -> None:
        parts = []
        if self._read[1]:
            parts.append(f"{_mb(self._read[0])} of {_mb(self._read[1])}")
        pages = self.counts.get("pages", self._pages)
        if pages:
            parts.append(f"{pages:,} pages")
        if "signatures" in self.counts:
            parts.append(f"{self.counts['signatures']:,} signatures")
        if stage in ("read", "extract") and pages and time.monotonic() - self._started > 1:
            parts.append(f"{pages / (time.monotonic() - self._started):,.0f} pages/s")
        if stage == "match" and total:
            parts.append(f"matched {done:,} of {total:,}")
        if self.tasks[1]:
            parts.append(f"{self.tasks[0]:,} of {self.tasks[1]:,} tasks done")
        if "pairs" in self.counts:
            parts.append(f"{self.counts['pairs']:,} pairs")
        if "clusters" in self.counts:
            parts.append(f"{self.counts['clusters']:,} clusters")
        self.detail.setText(" · ".join(parts))
        self.detail.setToolTip(self.detail.text())  # whole, when a narrow window cuts it

    def on_counts(self, counts: dict) -> None:
        self.counts.update(counts)

    def _tick(self) -> None:
        spent = time.monotonic() - self._started
        text = f"{_clock(spent)} elapsed"
        if 0.05 < self._fraction < 1.0 and spent > 2:
            text += f", about {_clock(spent * (1 - self._fraction) / self._fraction)} left"
        self.elapsed.setText(text)
