"""The timeline draws a cluster's related rewrites (its related pages below τ) as
rewrites, and drops one the coder dismissed in the related list (issue 35, parts 2 and 4)."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from tests.figures.runs import page
from tests.gui.test_window import focus_table, row_of_size
from workbench.core.records import Cluster, Pair
from workbench.store import Project
from workbench.store.runs import related as store_related

CTRL = Qt.KeyboardModifier.ControlModifier


def _rewrites_run(tmp_path) -> Project:
    """Cluster A (pages 0-4) and B (5, 6) as in tests.figures.runs.story_run, page 7
    alone; below τ, page 2 (c.test) meets page 6 (b.test) at 0.30 and page 1 (b.test)
    meets page 7 (d.test) at 0.25: B and page 7 are A's related rewrites."""
    pages = [page(0, "a.test", "2024-05-03T09:00:00Z"), page(1, "b.test", "2024-05-01T08:00:00Z"),
             page(2, "c.test", "2024-05-02T10:00:00Z"), page(3, "a.test", "2024-05-05T12:00:00Z"),
             page(4, "c.test", "2024-05-04T12:00:00Z"), page(5, "a.test", "2024-06-10T00:00:00Z"),
             page(6, "b.test", "2024-05-06T00:00:00Z"), page(7, "d.test", "2024-05-07T00:00:00Z")]
    pairs = [Pair(0, m, 0.8) for m in (1, 2, 3, 4)] + [Pair(5, 6, 0.8),
                                                       Pair(2, 6, 0.30), Pair(1, 7, 0.25)]
    clusters = [Cluster(0, [0, 1, 2, 3, 4], [1.0] + [0.8] * 4), Cluster(5, [5, 6], [1.0, 0.8]),
                Cluster(7, [7], [1.0])]
    project = Project.create(tmp_path / "spread.wbproj", str(tmp_path), coder="ann")
    project.save_run({"tau": 0.44, "pair_floor": 0.15}, "spotsigs", {"total": 1.0}, pages,
                     pairs, clusters)
    return project


def _roles(timeline) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for p in timeline.spread.pages:
        out.setdefault(p.role, []).append(p.page_id)
    return out


def _points(timeline) -> dict[str, int]:
    ax = timeline.holder.figure.axes[0]
    return {c.get_gid(): len(c.get_offsets()) for c in ax.collections}


def test_the_timeline_draws_related_rewrites_and_forgets_a_dismissed_one(qtbot, window, tmp_path):
    w = window
    project = _rewrites_run(tmp_path)
    path = project.path
    project.close()
    assert w.open_project(path)
    w.select_row(row_of_size(w, 5))
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_L, CTRL)
    timeline = w.figures.timeline
    p6, p7 = w.project.page_id("p6.html"), w.project.page_id("p7.html")
    assert sorted(_roles(timeline)["rewrite"]) == sorted([p6, p7])
    assert _points(timeline)["rewrite"] == 2
    # D in the related list dismisses its first row (cluster B, page 6 at 0.30): the
    # timeline draws page 7 alone as a rewrite.
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_R, CTRL)
    qtbot.waitUntil(lambda: w.related_pane.list.hasFocus(), timeout=2000)
    assert w.related_pane.current().page_id == p6
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: _roles(timeline).get("rewrite") == [p7], timeout=3000)
    assert _points(timeline)["rewrite"] == 1


def test_a_saved_timeline_draws_the_rewrites_too(qtbot, window, prompter, tmp_path):
    w = window
    project = _rewrites_run(tmp_path)
    path = project.path
    project.close()
    assert w.open_project(path)
    w.select_row(row_of_size(w, 5))
    focus_table(qtbot, w)
    prompter.folders.append(str(tmp_path / "spread.svg"))
    qtbot.keyClick(w.table, Qt.Key.Key_L, CTRL | Qt.KeyboardModifier.ShiftModifier)
    svg = (tmp_path / "spread.svg").read_text(encoding="utf-8")
    assert 'id="rewrite' in svg


def test_the_timeline_waits_for_the_related_pairs_read_on_a_worker(qtbot, window, tmp_path,
                                                                   monkeypatch):
    """The timeline never reads the run's related pairs on the GUI thread: opened while
    the related list reads them on a worker, it draws the rewrites once they are read."""
    w = window
    w.related.reader.run_here = False
    readers: list[int] = []
    real = store_related.run_links
    gui, gate = threading.get_ident(), threading.Event()

    def run_links(conn, run_id):
        readers.append(threading.get_ident())
        if threading.get_ident() != gui:
            gate.wait(30)  # the worker reads until the timeline is open
        return real(conn, run_id)

    monkeypatch.setattr(store_related, "run_links", run_links)
    project = _rewrites_run(tmp_path)
    path = project.path
    project.close()
    try:
        with qtbot.waitSignal(w.related.reader.settled, timeout=10_000):
            assert w.open_project(path)
            w.select_row(row_of_size(w, 5))
            qtbot.keyClick(w.table, Qt.Key.Key_L, CTRL)
            timeline = w.figures.timeline
            assert "rewrite" not in _roles(timeline)
            assert gui not in readers, "the timeline read the related pairs on the GUI thread"
            gate.set()
    finally:
        gate.set()
    assert len(readers) == 1
    p6, p7 = w.project.page_id("p6.html"), w.project.page_id("p7.html")
    qtbot.waitUntil(lambda: sorted(_roles(timeline).get("rewrite", [])) == sorted([p6, p7]),
                    timeout=3000)


def test_save_timeline_as_waits_for_the_related_pairs_read_on_a_worker(
        qtbot, window, prompter, tmp_path, monkeypatch):
    """Save Timeline As (Ctrl+Shift+L) while the related list reads the run's pairs on a
    worker: it never reads them on the GUI thread (seconds at a million pairs, the window
    frozen); it saves once that read is done, with the rewrites."""
    w = window
    w.related.reader.run_here = False
    readers: list[int] = []
    real = store_related.run_links
    gui, gate = threading.get_ident(), threading.Event()

    def run_links(conn, run_id):
        readers.append(threading.get_ident())
        if threading.get_ident() != gui:
            gate.wait(30)  # the worker reads until the coder has asked to save
        return real(conn, run_id)

    monkeypatch.setattr(store_related, "run_links", run_links)
    out = tmp_path / "spread.svg"

    def while_reading() -> None:
        assert gui not in readers, "Save Timeline As read the related pairs on the GUI thread"
        assert not out.exists()
        assert "Reading the run's related pairs" in w.statusBar().currentMessage()

    _save_while_the_pairs_are_read(qtbot, w, prompter, tmp_path, out, gate, while_reading)
    assert len(readers) == 1  # the related list's read, not a second one
    assert 'id="rewrite' in out.read_text(encoding="utf-8")
    assert str(out) in w.statusBar().currentMessage()


def test_save_timeline_as_says_in_a_dialog_when_the_related_pairs_cannot_be_read(
        qtbot, window, prompter, tmp_path, monkeypatch):
    w = window
    w.related.reader.run_here = False
    gui, gate = threading.get_ident(), threading.Event()

    def run_links(conn, run_id):
        if threading.get_ident() != gui:
            gate.wait(30)  # fails once the coder has asked to save
            raise OSError(5, "Input/output error")
        raise AssertionError("read on the GUI thread")

    monkeypatch.setattr(store_related, "run_links", run_links)
    out = tmp_path / "spread.png"
    _save_while_the_pairs_are_read(qtbot, w, prompter, tmp_path, out, gate, lambda: None)
    assert "Cannot save the timeline" in [title for title, _text in prompter.errors]
    assert not out.exists()


def _save_while_the_pairs_are_read(qtbot, w, prompter, tmp_path, out, gate, while_reading) -> None:
    """Open a run with rewrites, press Ctrl+Shift+L to save the 5-page cluster's timeline
    as ``out`` while the worker's read waits on ``gate``; ``while_reading`` checks the
    window then; the gate opens and the read settles (on the GUI thread)."""
    project = _rewrites_run(tmp_path)
    path = project.path
    project.close()
    try:
        with qtbot.waitSignal(w.related.reader.settled, timeout=10_000):
            assert w.open_project(path)
            w.select_row(row_of_size(w, 5))
            focus_table(qtbot, w)
            prompter.folders.append(str(out))
            qtbot.keyClick(w.table, Qt.Key.Key_L, CTRL | Qt.KeyboardModifier.ShiftModifier)
            while_reading()
            gate.set()
    finally:
        gate.set()
