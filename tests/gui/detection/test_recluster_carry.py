"""Calibrate ▸ Apply through the window: it carries the coder's memo and "not this story"
mark to the new clusters, lists what needs review, and Ctrl+Z takes it back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.detection.test_calibration import PAIRS, open_calibration
from tests.store.builders import page
from workbench.core.records import Cluster, Pair
from workbench.store import Project


@pytest.fixture
def story_project(tmp_path: Path) -> Path:
    """Story 0-3 (page 4 joins it at τ 0.3), story 5-6, page 7 alone (test_calibration's)."""
    path = tmp_path / "stories.wbproj"
    with Project.create(path, str(tmp_path / "gone"), coder="ann") as project:
        project.save_run({"tau": 0.5, "pair_floor": 0.25, "cluster_method": "star"}, "spotsigs", {},
                         [page(i) for i in range(8)], [Pair(a, b, s) for a, b, s in PAIRS],
                         [Cluster(0, [0, 1, 2, 3], [1.0, 0.9, 0.9, 0.9]), Cluster(5, [5, 6], [1.0, 0.8])])
    return path


def test_apply_carries_the_memo_and_mark_lists_them_and_ctrl_z_undoes_it(qtbot, window, prompter,
                                                                         story_project):
    """Calibrate ▸ Apply used to drop cluster memos and "not this story" marks, and Ctrl+Z
    right after it edited a memo of a cluster no longer shown."""
    w = window
    assert w.open_project(story_project)
    first = w.project.current_run()
    story = w.project.cluster_of_page(w.project.page_id(page(0).key))
    marked = w.project.page_id(page(2).key)
    w.project.set_excluded(story, [marked], True)
    w.project.set_memo(story, text="the harbour strike")
    w.project.set_memo(story, text="the harbour strike, day two")
    w.refresh()
    clusters_before = sorted(r.id for r in w.model.rows)

    dialog = open_calibration(qtbot, w)
    dialog.view.setFocus()
    qtbot.waitUntil(lambda: dialog.view.hasFocus(), timeout=2000)
    for _ in range(2):
        qtbot.keyClick(dialog.view, Qt.Key.Key_PageDown)
    assert dialog.tau == 0.3  # page 4 joins the story
    questions: list[str] = []
    prompter.confirm = lambda _title, text: questions.append(text) or True
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert "not this story" in questions[0] and "memos" in questions[0]
    assert "not repeated" not in questions[0] and "Ctrl+Z" in questions[0]

    grown = w.project.cluster_of_page(w.project.page_id(page(0).key))
    assert grown != story and w.project.current_run() != first
    assert [m.text for m in w.project.memos(grown)] == ["the harbour strike, day two"]
    assert [m.excluded for m in w.project.members(grown) if m.page_id == marked] == [True]
    # The memo's cluster gained a page: it is listed for review.
    carried = w.carried_dialog
    assert carried is not None and carried.isVisible()
    (item,) = carried.items()
    assert item.cluster_id == grown and item.memo_text == "the harbour strike, day two"
    assert "1 page joined it" in carried.list.item(0).text()
    qtbot.mouseClick(carried.later_button, Qt.MouseButton.LeftButton)
    assert w.carried_dialog is None

    # Ctrl+Z right after Apply: the run before, with the memo and the mark where they were.
    assert w.actions_by_name["undo"].text() == "&Undo Cluster again at τ 0.30"
    w.activateWindow()
    w.table.setFocus()
    qtbot.waitUntil(lambda: w.table.hasFocus(), timeout=2000)
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.project.current_run() == first
    assert sorted(r.id for r in w.model.rows) == clusters_before
    assert [m.text for m in w.project.memos(story)] == ["the harbour strike, day two"]
    assert [m.excluded for m in w.project.members(story) if m.page_id == marked] == [True]
    # The next Ctrl+Z is the memo edit, on the cluster shown again.
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [m.text for m in w.project.memos(story)] == ["the harbour strike"]


def test_mark_reviewed_empties_the_list_and_review_carried_shows_it_again(qtbot, window, prompter,
                                                                          story_project):
    w = window
    assert w.open_project(story_project)
    story = w.project.cluster_of_page(w.project.page_id(page(0).key))
    w.project.set_memo(story, text="the harbour strike")
    w.refresh()
    dialog = open_calibration(qtbot, w)
    dialog.set_tau(0.3)
    prompter.confirms.append(True)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert "1 memo(s) carried over; 1 to review" in w.statusBar().currentMessage()
    carried = w.carried_dialog
    assert carried is not None
    qtbot.mouseClick(carried.later_button, Qt.MouseButton.LeftButton)
    # Detection ▸ Review Carried Decisions… brings the list back; Mark Reviewed empties it.
    w.actions_by_name["review_carried"].trigger()
    carried = w.carried_dialog
    assert carried is not None and carried.list.count() == 1
    qtbot.mouseClick(carried.reviewed_button, Qt.MouseButton.LeftButton)
    assert w.carried_dialog is None and w.project.carried_to_review() == []
    w.actions_by_name["review_carried"].trigger()
    assert w.carried_dialog is None and "Review carried decisions" in prompter.asked
    assert w.actions_by_name["undo"].text() == "&Undo Mark 1 carried item as reviewed"
