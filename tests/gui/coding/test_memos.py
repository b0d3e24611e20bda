"""Memos in the window: typed, saved like every action, exported, undone."""

from __future__ import annotations

import csv

from PySide6.QtCore import Qt

from workbench.gui.coding.memopane import SAVE_AFTER_MS
from workbench.gui.dialogs import ExportOptions
from workbench.gui.project.export_actions import export_csv


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


def test_a_memo_typed_with_pauses_is_one_undo_step_and_saving_says_so(qtbot, demo_window):
    """Each pause in typing saved a new undo step: Ctrl+Z took back the last words only."""
    w = demo_window
    w.project.add_tag("wire", shortcut="1")
    w.refresh()
    w.select_row(0)
    cid = w.selected_ids()[0]
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    for words, memo in (("Same wire", "Same wire"), (" story", "Same wire story"),
                        (", other byline", "Same wire story, other byline")):
        qtbot.keyClicks(w.memo_pane.cluster, words)
        qtbot.waitUntil(lambda memo=memo: [m.text for m in w.project.memos(cid)] == [memo],
                        timeout=5000)  # saved after the pause
        assert w.statusBar().currentMessage() == f"Saved your memo on cluster {cid}."
    qtbot.keyClick(w.memo_pane.cluster, Qt.Key.Key_Escape)
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.memos(cid) == []
    assert w.statusBar().currentMessage().startswith(f"Undid: Add memo on cluster {cid}")
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.codebook() == []  # the step before the memo
    # Typing again after another action is a step of its own.
    qtbot.keyClick(w.table, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(w.table, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert [m.text for m in w.project.memos(cid)] == ["Same wire story, other byline"]
    qtbot.keyClick(w.table, Qt.Key.Key_1)  # tag, and on to the next uncoded cluster
    w.select_cluster(cid)
    qtbot.keyClick(w.table, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    w.memo_pane.cluster.moveCursor(w.memo_pane.cluster.textCursor().MoveOperation.End)
    qtbot.keyClicks(w.memo_pane.cluster, ".")
    qtbot.waitUntil(lambda: w.project.memos(cid)[0].text.endswith("byline."), timeout=5000)
    w.coding.undo()
    assert [m.text for m in w.project.memos(cid)] == ["Same wire story, other byline"]
