"""Every mark in the window has a tooltip, and every status message can be read whole."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt

from workbench.gui.models import COL_CODED, COL_MIN, COL_TAGS


def tip(w, row, col):
    text = w.model.data(w.model.index(row, col), Qt.ItemDataRole.ToolTipRole) or ""
    return html.unescape(text)


def test_the_tags_star_and_coded_cells_explain_themselves(qtbot, demo_window):
    w = demo_window
    w.select_row(0)
    cid = w.selected_ids()[0]
    size = w.model.row_of(0).size
    assert size > 2
    member = w.compare.current_member()
    tag = w.project.add_tag("wire").id
    w.project.tag_pages([member.page_id], [tag])  # one page: "wire*"
    w.refresh()
    row = w.model.find_row(cid)
    assert w.model.data(w.model.index(row, COL_TAGS)) == "wire*"
    text = tip(w, row, COL_TAGS)
    assert f"wire*: on 1 page of {size}" in text and "1 pages" not in text
    assert "* the tag is on some of the cluster's pages only" in text
    assert "Some of this cluster's pages have a tag" in tip(w, row, COL_CODED)
    w.project.tag_clusters([cid], [tag])
    w.refresh()
    assert f"wire: on all {size} pages" in tip(w, w.model.find_row(cid), COL_TAGS)
    # "< floor" fits its column (it was cut to "< …").
    assert w.table.columnWidth(COL_MIN) > w.table.fontMetrics().horizontalAdvance("< floor")


def test_status_messages_are_kept_whole_with_their_time(qtbot, demo_window, prompter):
    w = demo_window
    done = w.statusBar().currentMessage()
    assert done.startswith("Detection done") and "inputs" not in done
    long = "A message longer than any status bar: " + "word " * 80
    w.statusBar().showMessage(long, 2000)
    assert w.statusBar().toolTip() == f"<qt>{long}</qt>"
    w.statusBar().clearMessage()
    w.actions_by_name["messages"].trigger()
    title, rows = prompter.lists[-1]
    assert title == "Status Messages"
    assert [m for _, m in rows[:2]] == [long, done]
    assert w.counts_label.toolTip() == w.counts_label.text() != ""  # cut by a narrow window
