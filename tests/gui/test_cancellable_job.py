"""CancellableJob: the cancel flag and throttled progress every window job shares."""

from __future__ import annotations

import pytest

from workbench.core.progress import Cancelled
from workbench.gui import jobs
from workbench.gui.jobs import CancellableJob


class _Progress:
    def __init__(self) -> None:
        self.sent: list[tuple[str, int, int | None]] = []

    def emit(self, stage: str, done: int, total: int | None) -> None:
        self.sent.append((stage, done, total))


class _Job(CancellableJob):
    def __init__(self) -> None:
        self.signals = type("Signals", (), {"progress": _Progress()})()
        self._begin_reporting()


def test_reports_are_thinned_but_a_new_stage_and_a_stages_end_always_go(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(jobs.time, "monotonic", lambda: now[0])
    job = _Job()
    for done in range(10):  # all within one interval
        job._progress("reading", done, 10)
    job._progress("reading", 10, 10)
    job._progress("matching", 0, None)
    now[0] += 2 * jobs.EMIT_INTERVAL
    job._progress("matching", 5, None)
    assert job.signals.progress.sent == [("reading", 0, 10), ("reading", 10, 10),
                                         ("matching", 0, None), ("matching", 5, None)]


def test_a_cancelled_job_stops_at_its_next_report():
    job = _Job()
    job._progress("reading", 1, 10)
    assert not job.cancel_requested
    job.cancel()
    assert job.cancel_requested
    with pytest.raises(Cancelled):
        job._progress("reading", 2, 10)
