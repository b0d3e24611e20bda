"""The related list is narrow: its lines are elided in the middle (the similarity and the
share on the left, the cluster on the right), never cut at the edge, and each row's
tooltip holds its whole line (issue 35: rows read "0.34 carries 43 % of the reference · mi")."""

from __future__ import annotations

import html

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from tests.gui.related.test_related_pane import _into_related_list  # noqa: E402
from tests.related.builders import cluster_of_key, key, related_project  # noqa: E402
from workbench.gui.related.pane import MIN_LINE  # noqa: E402
from workbench.gui.related.presenter import related_rows  # noqa: E402

LONG_TITLE = "Harbour workers walk out over pay as talks with the port authority collapse"


@pytest.fixture
def long_titled(qtbot, window, tmp_path):
    """The related project with headlines as long as real ones (not two words), open on
    the cluster that has related rows."""
    path = tmp_path / "study.wbproj"
    project = related_project(path)
    with project.bookkeeping() as conn:
        conn.execute("UPDATE pages SET title = ?", (LONG_TITLE,))
    project.close()
    assert window.open_project(path)
    window.select_cluster(cluster_of_key(window.project, key(0)))
    return window


def test_a_related_rows_tip_starts_with_its_whole_line(long_titled):
    w = long_titled
    rows = related_rows(w.project, cluster_of_key(w.project, key(0)))
    assert rows
    for row in rows:
        tip = row.tip()
        assert tip.startswith(row.line()) and row.why() in tip


def test_related_lines_are_elided_within_the_list_with_the_whole_line_in_the_tip(qtbot, long_titled):
    w = long_titled
    _into_related_list(qtbot, w)
    pane = w.related_pane
    lines = [pane.list.item(k).text() for k in range(pane.list.count())]
    assert lines and all(LONG_TITLE in line for line in lines), lines
    # Narrower than the longest line, as in a real window.
    w.compare.splitter.setSizes([pane.list.minimumWidth() + 10, 2000])
    qtbot.wait(10)  # one turn of the event loop for the layout (no wall-clock bound)
    view = pane.list.viewport()
    assert pane.list.width() >= pane.list.fontMetrics().horizontalAdvance(MIN_LINE)
    for k in range(pane.list.count()):
        item, row = pane.list.item(k), pane.rows[k]
        # Two lines: how close (and, once opened, how much it carries); then the page.
        assert item.text() == "\n".join(row.lines()) and item.text().endswith(LONG_TITLE + " · "
                                                                            + row.site + " · " + (
            "page" if row.size == 1 else f"cluster {row.cluster_id} ({row.size} pages)"))
        widest = max(pane.list.fontMetrics().horizontalAdvance(line) for line in row.lines())
        assert widest > view.width(), "the test needs a line longer than the list"
        rect = pane.list.visualItemRect(item)
        # The row is laid out as wide as the list, so the view elides its text (a row as
        # wide as its text was cut at the list's right edge instead).
        assert rect.width() <= view.width(), (rect.width(), view.width())
        assert pane.list.textElideMode() == Qt.TextElideMode.ElideMiddle
        assert html.unescape(item.toolTip()).removeprefix("<qt>").startswith(row.line())
