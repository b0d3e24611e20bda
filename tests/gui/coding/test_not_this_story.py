"""One page wrong, cluster right: X marks a member as not the story; Alt+digit tags it alone."""

from __future__ import annotations

import csv

from PySide6.QtCore import Qt

from tests.gui.test_window import focus_table, row_of_size
from workbench.gui.dialogs import ExportOptions
from workbench.gui.project.export_actions import export_csv


def test_not_this_story_keeps_clustering_and_exports_own_tags(qtbot, demo_window, tmp_path):
    w = demo_window
    w.actions_by_name["advance"].setChecked(False)
    unions = w.project.add_tag("unions", shortcut="1")
    other = w.project.add_tag("other story", shortcut="2")
    w.refresh()
    w.select_row(row_of_size(w, 3))
    cid = w.selected_ids()[0]
    member = w.compare.current_member()
    assert member is not None and not member.is_reference
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_X)
    shown = w.compare.current_member()
    assert shown.page_id == member.page_id and shown.excluded
    assert "✗" in w.compare.members.currentItem().text()
    assert w.project.cluster(cid).size == 3  # the clustering is unchanged
    assert "not this story" in w.statusBar().currentMessage()
    # The cluster's tag passes it by; Alt+2 gives it its own.
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    qtbot.keyClick(w.table, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    tags = {m.page_id: set(m.tag_ids) for m in w.project.members(cid)}
    assert tags[member.page_id] == {other.id}
    assert all(t == {unions.id} for p, t in tags.items() if p != member.page_id)
    out = tmp_path / "x.csv"
    assert export_csv(w, ExportOptions(out, coded_only=False))
    with out.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["cluster"] == str(cid)]
    marked = [r for r in rows if r["excluded"] == "1"]
    assert len(marked) == 1 and marked[0]["tags"] == "other story"
    assert {r["tags"] for r in rows if r["excluded"] == "0"} == {"unions"}
    # X again: its story again (undoable like everything else).
    qtbot.keyClick(w.table, Qt.Key.Key_X)
    assert not w.compare.current_member().excluded


def test_split_keeps_the_pages_tags_by_keyboard(qtbot, demo_window):
    w = demo_window
    w.actions_by_name["advance"].setChecked(False)
    unions = w.project.add_tag("unions", shortcut="1")
    w.refresh()
    w.select_row(row_of_size(w, 3))
    cid = w.selected_ids()[0]
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    member = w.compare.current_member()
    qtbot.keyClick(w.table, Qt.Key.Key_S)
    new_cluster = w.project.cluster_of_page(member.page_id)
    assert new_cluster not in (None, cid)
    assert [t.tag_id for t in w.project.cluster(new_cluster).tags] == [unions.id]
    assert [t.tag_id for t in w.project.cluster(cid).tags] == [unions.id]


def test_the_default_export_has_the_marked_page_and_its_memo(qtbot, demo_window, tmp_path):
    """X on a member nobody tagged, a memo on it: both in the export the dialog offers first
    (only coded pages), not only under "Every page" (issue: A2)."""
    w = demo_window
    w.actions_by_name["advance"].setChecked(False)
    w.select_row(row_of_size(w, 3))
    cid = w.selected_ids()[0]
    member = w.compare.current_member()
    assert member is not None and not member.is_reference
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_X)
    assert w.compare.current_member().excluded
    w.project.add_page_memo(member.page_id, "a different story, same wire copy")
    out = tmp_path / "coded.csv"
    assert export_csv(w, ExportOptions(out)) == 1
    with out.open(encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["cluster"] == str(cid) and row["excluded"] == "1" and row["tags"] == ""
    assert row["page_memo"] == "a different story, same wire copy"
