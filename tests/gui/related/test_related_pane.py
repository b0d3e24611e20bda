"""The related pane through the real window, by keyboard: offered, shown against the
reference, merged with M and undone with Ctrl+Z; dismissed with D."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from tests.gui.test_window import focus_table  # noqa: E402
from tests.related.builders import cluster_of_key, key, related_project  # noqa: E402


@pytest.fixture
def related_window(qtbot, window, tmp_path):
    path = tmp_path / "study.wbproj"
    related_project(path).close()
    assert window.open_project(path)
    window.select_cluster(cluster_of_key(window.project, key(0)))
    return window


def _into_related_list(qtbot, w):
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: w.related_pane.list.hasFocus(), timeout=2000)


def test_related_pair_offered_merged_by_m_and_undone(qtbot, related_window):
    w = related_window
    a, b = cluster_of_key(w.project, key(0)), cluster_of_key(w.project, key(3))
    assert w.compare.cluster_id == a
    rows = w.related_pane.rows
    assert [r.cluster_id for r in rows] == [b, cluster_of_key(w.project, key(5))]
    assert w.related_pane.title.text() == "<b>Related, not merged (2)</b>"
    _into_related_list(qtbot, w)
    # The first related cluster is chosen and its closest page shown against the reference.
    assert w.related_pane.current().cluster_id == b
    assert w.compare.other_page == w.project.page_id(key(3))
    assert w.compare.current_member() is None  # S and X act on no member meanwhile
    assert "Related, Not Merged" in w.compare.right.header.text()
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_M)
    assert w.project.cluster_of_page(w.project.page_id(key(3))) == a
    assert w.project.cluster(a).size == 5
    assert "merged cluster" in w.statusBar().currentMessage()
    assert [r.cluster_id for r in w.related_pane.rows] == [cluster_of_key(w.project, key(5))]
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.cluster(a).size == 3
    assert w.project.cluster_of_page(w.project.page_id(key(3))) == b
    # Undo selects what it changed (both clusters) and shows the one shown before.
    assert sorted(w.selected_ids()) == sorted([a, b]) and w.compare.cluster_id == a
    assert [r.cluster_id for r in w.related_pane.rows][0] == b


def test_m_in_the_cluster_list_still_merges_the_selection(qtbot, related_window):
    w = related_window
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_M)
    assert "select two or more clusters" in w.statusBar().currentMessage()
    assert w.project.cluster(cluster_of_key(w.project, key(0))).size == 3


def test_shift_m_merges_the_page_alone_and_d_dismisses(qtbot, related_window):
    w = related_window
    a, b = cluster_of_key(w.project, key(0)), cluster_of_key(w.project, key(3))
    _into_related_list(qtbot, w)
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_M, Qt.KeyboardModifier.ShiftModifier)
    assert w.project.cluster_of_page(w.project.page_id(key(3))) == a
    assert w.project.cluster(b).size == 1  # page 4 stays where it was
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    _into_related_list(qtbot, w)
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_D)
    assert "not offered again" in w.statusBar().currentMessage()
    assert [r.cluster_id for r in w.related_pane.rows] == [cluster_of_key(w.project, key(5))]
    assert len(w.project.dismissed_related()) == 2
    qtbot.keyClick(w.related_pane.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.dismissed_related() == []
    assert w.related_pane.rows[0].cluster_id == b


def test_d_outside_the_related_list_says_how_to_reach_it(qtbot, related_window):
    w = related_window
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_D)
    assert w.statusBar().currentMessage() == \
        "D: put the keyboard in the related list first (Ctrl+R)."
    assert w.project.dismissed_related() == []
