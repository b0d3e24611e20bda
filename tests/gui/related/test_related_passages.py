"""A related page opened from the related list shows its passages against the reference,
as a member does: bands beside both panes and the share sentence (issue 35, parts 3 and 4)."""

from __future__ import annotations

import html
import shutil

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from tests.conftest import DEMO_ARCHIVE  # noqa: E402
from tests.gui.test_window import focus_table  # noqa: E402
from tests.related.builders import cluster_of_key, key, related_project  # noqa: E402
from workbench.export.passage_columns import compared_words  # noqa: E402
from workbench.gui.sidebyside.passagemarks import percent, share_sentence  # noqa: E402
from workbench.text.passages import align  # noqa: E402


@pytest.fixture
def related_with_text(qtbot, window, tmp_path):
    """The related project, its crawl holding real text: the reference of cluster A
    (page 0) and the related page of cluster B (page 3) are two outlets' harbour-strike
    stories."""
    path = tmp_path / "study.wbproj"
    crawl = tmp_path / "crawl"
    for i, outlet in ((0, "dailycourier"), (3, "metroherald")):
        target = crawl / key(i)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DEMO_ARCHIVE / outlet / "harbour-strike.html", target)
    related_project(path).close()
    assert window.open_project(path)
    window.select_cluster(cluster_of_key(window.project, key(0)))
    return window


def test_a_related_page_shows_its_passages_against_the_reference(qtbot, related_with_text):
    w = related_with_text
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: w.related_pane.list.hasFocus(), timeout=2000)
    row = w.related_pane.current()
    assert row is not None and w.compare.other_page == w.project.page_id(key(3))

    root, params = w.project.archive_root, w.compare.params
    expected = align(compared_words(root, key(0), None, params),
                     compared_words(root, key(3), None, params))
    assert expected.passages, "the two outlets' stories share passages"
    view = w.compare
    assert view.right.passage_note.isVisible()
    assert view.right.passage_note.text() == share_sentence(expected)
    assert " % of this page is the reference's text" in view.right.passage_note.text()
    for pane in (view.left, view.right):
        assert {b.passage for b in pane.bands} == set(range(len(expected.passages)))
        assert pane.strip.bands, "bands drawn beside the text"
    # The row, once opened, keeps its passages: its line says how much of the reference
    # its page carries, its tip the whole sentence.
    opened = w.related_pane.current()
    assert opened is not None and opened.passages() == expected
    carried = f"0.30  carries {percent(expected.share_of_a)} of the reference\nStory 3"
    assert w.related_pane.list.currentItem().text().startswith(carried)
    assert share_sentence(expected) in html.unescape(w.related_pane.list.currentItem().toolTip())
