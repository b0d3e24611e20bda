"""Memos in the window: typed, saved like every action, exported, undone."""

from __future__ import annotations

import csv

from PySide6.QtCore import Qt

from workbench.gui.dialogs import ExportOptions
from workbench.gui.export_actions import export_csv
from workbench.gui.memopane import SAVE_AFTER_MS


def test_memo_typed_is_saved_exported_and_undone(qtbot, demo_window, tmp_path):
    w = demo_window
    w.select_row(0)
    cid = w.selected_ids()[0]
    member = w.compare.current_member()
    w.activateWindow()
    w.memo_pane.cluster.setFocus()
    qtbot.keyClicks(w.memo_pane.cluster, "Same wire story 2")  # digits stay text here
    qtbot.wait(SAVE_AFTER_MS + 300)
    assert [m.text for m in w.project.memos(cid)] == ["Same wire story 2"]
    assert w.project.cluster(cid).tags == ()  # the 2 was typed, not a tag key
    # A page memo, saved at once when the coder moves to another cluster.
    w.memo_pane.page.setFocus()
    qtbot.keyClicks(w.memo_pane.page, "Byline differs")
    w.select_row(1)
    assert [m.text for m in w.project.page_memos(member.page_id)] == ["Byline differs"]
    assert w.memo_pane.cluster.toPlainText() == ""  # the other cluster has none
    w.select_row(0)
    assert w.memo_pane.cluster.toPlainText() == "Same wire story 2"
    out = tmp_path / "memos.csv"
    assert export_csv(w, ExportOptions(out, coded_only=False))
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["cluster_memo"] for r in rows if r["cluster"] == str(cid)} == {"Same wire story 2"}
    assert [r["page_memo"] for r in rows if r["page_memo"]] == ["Byline differs"]
    # Undo takes the page memo back, then the cluster memo, and the pane shows it.
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.memos(cid) == [] and w.project.page_memos(member.page_id) == []
    w.select_row(0)
    assert w.memo_pane.cluster.toPlainText() == ""


def test_read_only_project_disables_the_memo_pane(qtbot, demo_window):
    from tests.store.faults import read_only

    w = demo_window
    path = w.project.path
    w.close_project()
    with read_only(path):
        assert w.open_project(path) and w.project.readonly
        w.select_row(0)
        assert not w.memo_pane.isEnabled()
        w.close_project()
