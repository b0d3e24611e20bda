"""Codebook ▸ Review Disagreements…: the queue, coders side by side, settled by key."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from workbench.gui.coding.review_presenter import review_rows
from workbench.store import Project
from workbench.store.team import draw_sample, hand_out


def _tag(project: Project, name: str) -> int:
    found = project.tag_by_name(name)
    assert found is not None
    return found.id


def coded_by_two(w, prompter, tmp_path: Path) -> tuple[int, list[int]]:
    """A reliability sample of 3 clusters, coded by Bea and Cy in their copies and
    brought in through the window: they agree on the first, differ on the other two."""
    project = w.project
    for key, name in (("1", "wire"), ("2", "local")):
        project.add_tag(name, shortcut=key)
    sample = draw_sample(project, n=3, seed=5, reliability=True)
    a, b, c = sample.clusters
    out = tmp_path / "copies"
    out.mkdir()
    bea, cy = hand_out(project, ["Bea", "Cy"], out)
    with Project.open(bea, backups=0) as copy:
        copy.tag_clusters([a, b, c], [_tag(copy, "wire")])
        copy.add_memo(b, "Bea: same wire text")
    with Project.open(cy, backups=0) as copy:
        copy.tag_clusters([a], [_tag(copy, "wire")])
        copy.tag_clusters([b, c], [_tag(copy, "local")])
        copy.set_excluded(b, [m.page_id for m in copy.members(b)][-1:], True)
        copy.add_memo(b, "Cy: a local rewrite")
    prompter.file_lists.append([str(bea), str(cy)])
    w.actions_by_name["bring_in"].trigger()
    w.refresh()
    return sample.id, [a, b, c]


def test_review_queue_settles_by_key_and_ctrl_z_takes_it_back(qtbot, demo_window, prompter,
                                                              tmp_path):
    w = demo_window
    sample_id, (a, b, c) = coded_by_two(w, prompter, tmp_path)
    w.actions_by_name["review_disagreements"].trigger()
    dialog = w.review_dialog
    assert dialog is not None and dialog.isVisible()
    assert [r.cluster_id for r in dialog.rows] == [b, c]  # they agree on a
    # The first item is chosen, its cluster selected in the window, coders side by side.
    assert w.selected_ids() == [b]
    headers = [dialog.sides.horizontalHeaderItem(i).text() for i in range(2)]
    assert headers == ["1. Bea", "2. Cy"]
    assert dialog.sides.item(0, 0).text() == "wire"
    assert dialog.sides.item(0, 1).text() == "local"
    assert dialog.sides.item(1, 1).text() != "—"  # Cy's "not this story" page
    assert "Bea: same wire text" in dialog.sides.item(2, 0).text()
    assert "Cy: a local rewrite" in dialog.sides.item(2, 1).text()

    # Down moves to the next disagreement, and the window follows.
    dialog.activateWindow()
    dialog.queue.setFocus()
    qtbot.keyClick(dialog.queue, Qt.Key.Key_Down)
    assert w.selected_ids() == [c]
    qtbot.keyClick(dialog.queue, Qt.Key.Key_Up)
    assert w.selected_ids() == [b]
    # 2 takes Cy's codes on b: the final codes, one undoable step; the queue moves on.
    actions = w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0]
    qtbot.keyClick(dialog.queue, Qt.Key.Key_2)
    assert [t.name for t in w.project.cluster(b).tags] == ["local"]
    assert w.project.reader().execute("SELECT count(*) FROM actions").fetchone()[0] \
        == actions + 1
    assert [r.settled for r in dialog.rows] == [True, False]
    assert dialog.current().cluster_id == c
    assert "settled on Cy's codes" in w.statusBar().currentMessage()
    # F keeps the codes c carries now, set by the lead in the window with the tag keys.
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_1, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(w.table, Qt.Key.Key_2, Qt.KeyboardModifier.ShiftModifier)
    dialog.activateWindow()
    dialog.queue.setFocus()
    qtbot.keyClick(dialog.queue, Qt.Key.Key_F)
    assert sorted(t.name for t in w.project.cluster(c).tags) == ["local", "wire"]
    assert all(r.settled for r in review_rows(w.project, sample_id))
    # Ctrl+Z in the queue takes the last settlement back (the lead's tags stay), and the
    # queue shows it open again; Ctrl+Shift+Z settles it again.
    qtbot.keyClick(dialog.queue, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [r.settled for r in review_rows(w.project, sample_id)] == [True, False]
    assert [r.settled for r in dialog.rows] == [True, False]
    qtbot.keyClick(dialog.queue, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert [r.settled for r in dialog.rows] == [True, True]
    # Ctrl+Z in the window does the same.
    w.activateWindow()
    w.table.setFocus()
    qtbot.keyClick(w.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [r.settled for r in review_rows(w.project, sample_id)] == [True, False]
    assert [r.settled for r in dialog.rows] == [True, False]  # the queue followed
    # The coders' own codes are kept as they were.
    bea_side, cy_side = review_rows(w.project, sample_id)[0].sides
    assert bea_side.tags == ("wire",) and cy_side.tags == ("local",)
    qtbot.keyClick(dialog.queue, Qt.Key.Key_Escape)


def test_review_without_a_sample_says_what_to_do(qtbot, demo_window, prompter):
    demo_window.actions_by_name["review_disagreements"].trigger()
    assert demo_window.review_dialog is None
    assert prompter.infos[-1][0] == "Review Disagreements"
    assert "Draw Sample" in prompter.infos[-1][1]


def test_agreement_without_a_reliability_sample_says_what_to_do(qtbot, demo_window, prompter):
    demo_window.actions_by_name["agreement"].trigger()
    title, text = prompter.errors[-1]
    assert title == "Cannot compute agreement"
    assert "Draw Sample" in text
