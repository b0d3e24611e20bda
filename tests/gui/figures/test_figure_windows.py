"""Story Timeline and Corpus Dashboard through the real window, driven by their keys."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.figures.runs import page, save, story_run
from tests.gui.test_window import focus_table, row_of_size

PNG = b"\x89PNG\r\n\x1a\n"
CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def _open(qtbot, w, project):
    path = project.path
    project.close()
    assert w.open_project(path)
    w.select_row(row_of_size(w, 5))
    focus_table(qtbot, w)


def _points(timeline):
    ax = timeline.holder.figure.axes[0]
    return {c.get_gid(): len(c.get_offsets()) for c in ax.collections}


def test_timeline_follows_the_list_and_the_coder_marks(qtbot, window, tmp_path):
    w = window
    _open(qtbot, w, story_run(tmp_path))
    big = w.selected_ids()[0]
    qtbot.keyClick(w.table, Qt.Key.Key_L, CTRL)
    timeline = w.figures.timeline
    assert timeline.isVisible() and timeline.cluster_id == big
    assert _points(timeline) == {"first": 1, "copy": 3, "reference": 1}
    assert timeline.holder.figure.texts[0].get_text().startswith("Undated, not on the timeline (1)")
    # Down in the list: the timeline shows the next cluster.
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_Down)
    small = w.selected_ids()[0]
    assert small != big
    qtbot.waitUntil(lambda: timeline.cluster_id == small, timeout=3000)
    assert _points(timeline) == {"first": 1, "copy": 1, "reference": 1}
    assert timeline.holder.canvas.isVisible()  # the new drawing is shown, not left blank
    # X marks the member shown as not this story: the timeline shows it so.
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_X)
    qtbot.waitUntil(lambda: "excluded" in _points(timeline), timeout=3000)
    assert _points(timeline) == {"first": 1, "excluded": 1, "reference": 1}


def test_save_timeline_by_key_png_svg_and_a_wrong_name(qtbot, window, prompter, tmp_path):
    w = window
    _open(qtbot, w, story_run(tmp_path))
    prompter.folders += [str(tmp_path / "spread.svg"), str(tmp_path / "spread"),
                         str(tmp_path / "spread.jpg")]
    for _ in range(3):
        qtbot.keyClick(w.table, Qt.Key.Key_L, CTRL | SHIFT)
    assert b"<svg" in (tmp_path / "spread.svg").read_bytes()[:1000]
    assert (tmp_path / "spread.png").read_bytes().startswith(PNG)  # no extension: PNG
    assert not (tmp_path / "spread.jpg").exists()
    assert prompter.errors == [("Cannot save the timeline", prompter.errors[0][1])]
    assert ".png" in prompter.errors[0][1] and ".svg" in prompter.errors[0][1]
    assert w.figures.timeline is None  # saving needs no timeline window open


def test_dashboard_by_key_and_export_all(qtbot, window, prompter, tmp_path):
    w = window
    _open(qtbot, w, story_run(tmp_path))
    qtbot.keyClick(w.table, Qt.Key.Key_D, CTRL)
    dash = w.figures.dashboard
    assert dash.isVisible()
    assert "9 pages" in dash.summary.text() and "2 clusters" in dash.summary.text()
    sizes = dash.holders["cluster-sizes"].figure.axes[0]
    assert [p.get_height() for p in sizes.patches] == [1, 0, 0, 1]
    out = tmp_path / "dash"
    prompter.folders.append(str(out))
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_D, CTRL | SHIFT)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        f"{name}.{ext}" for name in dash.holders for ext in ("png", "svg", "csv"))
    assert (out / "cluster-sizes.png").read_bytes().startswith(PNG)
    assert "Wrote the dashboard's 4 plots" in w.statusBar().currentMessage()
    # A split since: Read Again counts it.
    w.select_row(row_of_size(w, 5))
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_S)
    assert "5 copies" in dash.summary.text()
    qtbot.mouseClick(dash.reread_button, Qt.MouseButton.LeftButton)
    assert "4 copies" in dash.summary.text()  # the page split out is alone now


def test_run_without_clusters_and_no_project(qtbot, window, prompter, tmp_path):
    w = window
    assert not w.actions_by_name["save_timeline"].isEnabled()  # no project
    project = save(tmp_path, [page(0, "a.test", None)], [], name="alone")
    path = project.path
    project.close()
    assert w.open_project(path)
    w.actions_by_name["dashboard"].trigger()
    dash = w.figures.dashboard
    texts = [t.get_text() for h in dash.holders.values() for t in h.figure.axes[0].texts]
    assert "No clusters of two or more pages in this run" in texts
    assert "No page of this run has a date" in texts
    # The one page, alone and undated: no point, and the timeline says why.
    w.select_row(0)
    w.actions_by_name["timeline"].trigger()
    fig = w.figures.timeline.holder.figure
    assert _points(w.figures.timeline) == {}
    assert "No page of this cluster has a date" in [t.get_text() for t in fig.axes[0].texts]
    assert fig.texts[0].get_text().startswith("Undated, not on the timeline (1): a.test")


def test_failures_are_said_in_a_dialog(qtbot, window, prompter, tmp_path, monkeypatch):
    import sqlite3

    from workbench.gui.figures import dashboard_view

    w = window
    _open(qtbot, w, story_run(tmp_path))
    blocker = tmp_path / "a file"
    blocker.write_text("in the way")
    prompter.folders.append(str(blocker / "dash"))  # a folder inside a file: cannot be made
    w.actions_by_name["export_dashboard"].trigger()
    assert prompter.errors[-1][0] == "Cannot export the dashboard"
    assert "Could not write into" in prompter.errors[-1][1]

    def broken(_conn):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(dashboard_view, "corpus_numbers", broken)
    w.actions_by_name["dashboard"].trigger()
    assert prompter.errors[-1] == ("Cannot count the run", "The dashboard could not read the "
                                   "project: database disk image is malformed")
