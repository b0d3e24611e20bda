"""Ended jobs of every kind are kept alive a while after their worker is done, in one list."""

from __future__ import annotations

import threading

from workbench.gui import jobs


class _Job:
    def __init__(self) -> None:
        self.done = threading.Event()


def test_a_job_is_let_go_only_when_done_and_past_the_grace_time(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(jobs.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(jobs, "_retired", [])
    running, finished = _Job(), _Job()
    finished.done.set()
    jobs.retire(running)
    jobs.retire(finished)
    clock[0] += jobs.JOB_GRACE_SECONDS + 1
    jobs.retire(_Job())  # each retire lets go of what is surely over
    kept = [job for job, _ in jobs._retired]
    assert running in kept  # its worker may still be in run()
    assert finished not in kept
    assert len(kept) == 2
