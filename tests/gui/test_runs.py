"""Background runs: cancelling leaves the project consistent; the window stays responsive."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer

from tests.conftest import DEMO_ARCHIVE, shared_path
from tests.gui.conftest import RUN_TIMEOUT_MS


@pytest.fixture
def big_archive(tmp_path):
    """480 small pages: long enough (a second or more) to cancel a run in the middle."""
    root = tmp_path / "big-crawl"
    pages = sorted(DEMO_ARCHIVE.glob("*/*.html"))
    for copy in range(40):
        folder = root / f"site{copy:02d}"
        folder.mkdir(parents=True)
        for p in pages:
            data = p.read_text(encoding="utf-8").replace("</body>", f"<p>Copy {copy}.</p></body>")
            (folder / f"{p.parent.name}-{p.name}").write_text(data, encoding="utf-8")
    return root


def _enabled_actions(w) -> set[str]:
    return {name for name, action in w.actions_by_name.items() if action.isEnabled()}


def cancel_at_first_progress(qtbot, w):
    """Click Cancel once the run shows progress; return the job that was cancelled, once
    the window has ended it. No wall-clock bound (the machine may be loaded): the waits
    are hang guards only, and what is asserted is the state the cancel leaves."""
    with qtbot.waitSignal(w.run_panel.progress_shown, timeout=RUN_TIMEOUT_MS):
        pass
    assert w.run_panel.isVisible()
    job = w.job
    # run_cancelled is the window's own (GUI thread), emitted once the worker stopped.
    with qtbot.waitSignal(w.run_cancelled, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(w.run_panel.cancel, Qt.MouseButton.LeftButton)
    return job


def test_cancel_first_run_leaves_an_empty_consistent_project(qtbot, window, big_archive):
    w = window
    with qtbot.waitSignal(w.run_started, timeout=2000):
        assert w.open_archive(big_archive)
    # While the run is going, coding actions are off (the worker owns the write lane).
    assert not w.actions_by_name["undo"].isEnabled() and not w.actions_by_name["export"].isEnabled()
    job = cancel_at_first_progress(qtbot, w)
    # The run stopped: its worker is done and the window let go of it. The worker thread
    # sets ``done`` just after sending "cancelled", so the window may hear it first: a hang
    # guard, not a bound (it failed 2 runs in 3 under load as ``is_set()``).
    assert job is not None and job.done.wait(RUN_TIMEOUT_MS / 1000)
    assert w.job is None and not w.run_panel.isVisible()
    # No run saved; the project is as it was before the run, and consistent.
    assert w.project.current_run() is None
    assert w.project.integrity_problems() == []
    assert w.model.rowCount() == 0
    assert w.counts_label.text() == "No detection run yet"
    assert "cancelled" in w.statusBar().currentMessage()
    # The window is usable again: the actions the run had turned off are back, and there
    # is nothing to undo (the cancelled run left no step behind).
    enabled = _enabled_actions(w)
    assert {"rerun", "settings", "add_pages", "export", "next_uncoded"} <= enabled, enabled
    assert "undo" not in enabled and w.project.next_undo() is None
    # Running again after a cancel works.
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["rerun"].trigger()
    assert w.project.count_clusters() > 0


def test_cancel_rerun_keeps_the_previous_run_and_tags(qtbot, window, prompter, big_archive):
    w = window
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.open_archive(big_archive)
    run_id = w.project.current_run().id
    clusters = w.project.count_clusters()
    prompter.texts.append("unions")
    w.tag_actions.new_tag()
    tag = w.project.tag_by_name("unions")
    w.select_row(0)
    cid = w.selected_ids()[0]
    w.coding.toggle_tag(tag.id)
    w.actions_by_name["rerun"].trigger()
    cancel_at_first_progress(qtbot, w)
    assert w.project.current_run().id == run_id
    assert w.project.count_clusters() == clusters
    assert [t.name for t in w.project.cluster(cid).tags] == ["unions"]
    assert w.project.integrity_problems() == []
    assert w.selected_ids() == [cid]


def test_close_during_run_cancels_it(qtbot, window, big_archive):
    w = window
    w.open_archive(big_archive)
    with qtbot.waitSignal(w.run_panel.progress_shown, timeout=RUN_TIMEOUT_MS):
        pass
    job = w.job
    w.close()
    assert job.done.is_set() and w.project is None


def test_window_stays_responsive_during_goldset_run(qtbot, window):
    """The GUI thread keeps handling events while the Gold Set is detected.

    A 10 ms timer counts its ticks while a job is running; a run done on the GUI
    thread (or one that blocked it until the end) would leave none. How long the
    gaps are depends on the machine's load, so they are measured by
    ``benchmarks/bench_gui.py``, not asserted here.
    """
    gold = shared_path("goldset-dev")
    w = window
    w.workers = None  # the app's default: worker processes for parsing
    ticks_while_running: list[int] = []
    progress_before_finish: list[str] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.setTimerType(Qt.TimerType.PreciseTimer)

    def tick():
        if w.job is not None:
            ticks_while_running.append(1)

    timer.timeout.connect(tick)
    w.run_panel.progress_shown.connect(progress_before_finish.append)
    timer.start()
    with qtbot.waitSignal(w.run_finished, timeout=120_000):
        w.open_archive(gold)
    timer.stop()
    assert w.project.count_clusters() > 30
    assert len(progress_before_finish) >= 2, "progress was not shown while the run went on"
    assert len(ticks_while_running) >= 3, "the GUI thread handled no timer while the run went on"
