"""The ANDD preview dialog: counts, the lists of merges and splits, Apply and Cancel."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog

from workbench.core.clusters.andd_preview import preview_changes
from workbench.core.records import PageInfo
from workbench.detect.andd.model import AnddWeights
from workbench.detect.join.matcher import PairResult
from workbench.gui.detection.andd_dialog import AnddDialog

PAGES = [PageInfo(key=f"site/p{i}.htm", source="", title=f"Story {i}") for i in range(8)]


def _dialog(qtbot, old, new) -> AnddDialog:
    dialog = AnddDialog(preview_changes(PAGES, old, new), trained_on="2 checked clusters (5 pages)")
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_the_dialog_lists_each_merge_and_split_with_its_pages(qtbot):
    dialog = _dialog(qtbot, [[0, 1, 2], [3, 4], [5, 6, 7]], [[0, 1, 2, 3, 4], [5, 6]])
    assert "1 merge" in dialog.summary.text() and "1 split" in dialog.summary.text()
    assert dialog.merges.topLevelItemCount() == 1 and dialog.splits.topLevelItemCount() == 1
    merge = dialog.merges.topLevelItem(0)
    assert merge.text(0) == "Merge 2 clusters (5 pages): Story 0"
    assert [merge.child(i).text(0) for i in range(merge.childCount())] == [
        "From a cluster of 3 pages", "From a cluster of 2 pages"]
    first = merge.child(0).child(0)
    assert (first.text(0), first.text(1)) == ("site/p0.htm", "Story 0")
    split = dialog.splits.topLevelItem(0)
    assert [split.child(i).text(0) for i in range(split.childCount())] == [
        "Part 1: 2 pages", "Part 2: 1 page"]


def test_apply_accepts_and_says_so(qtbot):
    dialog = _dialog(qtbot, [[0, 1]], [[0, 1, 2]])
    assert dialog.apply_button.isEnabled()
    with qtbot.waitSignal(dialog.applied, timeout=2000):
        qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_cancel_rejects_and_the_modal_choice_is_false(qtbot):
    dialog = _dialog(qtbot, [[0, 1]], [[0, 1, 2]])
    fired = []
    dialog.applied.connect(lambda: fired.append(True))
    QTimer.singleShot(0, lambda: qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton))
    assert dialog.choose() is False and fired == []


def test_nothing_to_change_leaves_only_cancel(qtbot):
    dialog = _dialog(qtbot, [[0, 1]], [[1, 0]])
    assert dialog.summary.text() == "Nothing would change."
    assert not dialog.apply_button.isEnabled()
    assert dialog.merges.topLevelItemCount() == 0 and dialog.splits.topLevelItemCount() == 0


def test_the_learned_weights_are_shown_weightiest_first(qtbot):
    weights = AnddWeights.of(1, np.array([0.1, -0.4, 0.0, 1.0, 0.2, 0.0, 0.3, 0.5]),
                             {"pages": 5}, threshold=0.55)
    dialog = AnddDialog(preview_changes(PAGES, [[0, 1]], [[0, 1, 2]]), weights=weights,
                        threshold=0.55)
    qtbot.addWidget(dialog)
    rows = [(dialog.weights.topLevelItem(i).text(0), dialog.weights.topLevelItem(i).text(1))
            for i in range(dialog.weights.topLevelItemCount())]
    assert rows[:3] == [("idf", "+1.000"), ("in_title", "+0.500"), ("tf", "-0.400")]
    assert len(rows) == len(weights.weights)
    assert "rare" in dialog.weights.topLevelItem(0).text(2)


def test_each_merge_says_which_pairs_of_pages_link_its_parts(qtbot):
    """Pages 0-1 and 3-4 are two stories now; the re-run links them by 1-3 (0.62) and
    0-4 (0.58); 0-3 at 0.40 is under the threshold and no reason."""
    pairs = PairResult(np.array([0, 3, 1, 0, 0]), np.array([1, 4, 3, 4, 3]),
                       np.array([0.9, 0.8, 0.62, 0.58, 0.40]))
    dialog = AnddDialog(preview_changes(PAGES, [[0, 1], [3, 4]], [[0, 1, 3, 4]]), pairs=pairs,
                        threshold=0.55, weights=AnddWeights.unit())
    qtbot.addWidget(dialog)
    merge = dialog.merges.topLevelItem(0)
    why = merge.child(merge.childCount() - 1)
    assert why.text(0) == "Why: 2 pairs of pages across its parts at cosine ≥ 0.55"
    assert [(why.child(i).text(0), why.child(i).text(1)) for i in range(why.childCount())] == [
        ("site/p1.htm ↔ site/p3.htm", "cosine 0.62"), ("site/p0.htm ↔ site/p4.htm", "cosine 0.58")]
