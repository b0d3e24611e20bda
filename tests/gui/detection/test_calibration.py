"""Detection ▸ Calibrate and doubtful members, driven like a coder would."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from tests.store.builders import page
from workbench.core.clusters.calibration import Calibration
from workbench.core.records import Cluster, Pair
from workbench.gui.detection.calibration import CalibrationDialog
from workbench.gui.sidebyside.view import MARGIN_KEY, DoubtRole
from workbench.store import Project

# Story A: reference 0 with pages 1-3 (0.9); page 4 shares 0.3 with each of 1-3 but less
# than the floor with 0; story B: pages 5-6 (0.8); page 7 is alone. Run τ 0.5, pairs kept
# down to 0.25.
PAIRS = [(0, 1, 0.9), (0, 2, 0.9), (0, 3, 0.9), (1, 4, 0.3), (2, 4, 0.3), (3, 4, 0.3), (5, 6, 0.8)]


@pytest.fixture
def floor_project(tmp_path: Path) -> Path:
    path = tmp_path / "floor.wbproj"
    with Project.create(path, str(tmp_path / "gone"), coder="ann") as project:
        project.save_run({"tau": 0.5, "pair_floor": 0.25, "cluster_method": "star"}, "spotsigs", {},
                         [page(i) for i in range(8)], [Pair(a, b, s) for a, b, s in PAIRS],
                         [Cluster(0, [0, 1, 2, 3], [1.0, 0.9, 0.9, 0.9], [None, 0.7, None, None]),
                          Cluster(5, [5, 6], [1.0, 0.8])])
    return path


def open_calibration(qtbot, w) -> CalibrationDialog:
    w.activateWindow()
    w.table.setFocus()
    qtbot.waitUntil(lambda: w.table.hasFocus(), timeout=2000)
    qtbot.keyClick(w.table, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    dialog = w.calibration
    assert isinstance(dialog, CalibrationDialog) and dialog.isVisible()
    return dialog


def shown_equals_presenter(dialog: CalibrationDialog, tau: float) -> None:
    presenter: Calibration = dialog.presenter
    assert dialog.tau == tau
    counts = presenter.counts(tau)
    assert dialog.text.text() == presenter.describe(counts)
    assert dialog.detail.text() == presenter.detail(counts)


def sizes(w) -> list[int]:
    return sorted(r.size for r in w.model.rows)


def test_keyboard_moves_tau_the_text_follows_and_apply_splits_as_predicted(qtbot, demo_window, prompter):
    w = demo_window
    prompter.texts.append("unions")
    w.tag_actions.new_tag()
    unions = w.project.tag_by_name("unions")
    w.select_row(0)
    tagged = [m.page_id for m in w.project.members(w.selected_ids()[0])]
    w.coding.toggle_tag(unions.id)
    first_run = w.project.current_run()

    dialog = open_calibration(qtbot, w)
    run_tau = first_run.params["tau"]
    assert dialog.tau == run_tau and not dialog.apply_button.isEnabled()
    # The demo's four stories pair at 0.58 or more, far above the default τ.
    assert dialog.text.text() == f"τ {run_tau:.2f}: 4 clusters, 11 pages — no cluster would split or merge"
    dialog.view.setFocus()
    qtbot.waitUntil(lambda: dialog.view.hasFocus(), timeout=2000)
    qtbot.keyClick(dialog.view, Qt.Key.Key_End)
    assert dialog.tau == 1.0
    for _ in range(2):
        qtbot.keyClick(dialog.view, Qt.Key.Key_PageDown)
    for _ in range(5):
        qtbot.keyClick(dialog.view, Qt.Key.Key_Left)
    # Counted at once if idle time got there first, else once the line rests.
    qtbot.waitUntil(lambda: not dialog.text.text().endswith("≥ τ)"), timeout=5000)
    shown_equals_presenter(dialog, 0.75)
    # Harbour (0.79, 1.0) stays whole; library, river and robot lose a page each.
    assert dialog.text.text() == "τ 0.75: 3 clusters, 7 pages — 3 clusters would split"
    assert dialog.detail.text() == "5 pairs ≥ τ · 4 pages would be left alone"
    qtbot.keyClick(dialog.view, Qt.Key.Key_Left)
    qtbot.waitUntil(lambda: dialog.tau == 0.74 and dialog.text.text().startswith("τ 0.74: 3 clusters"),
                    timeout=5000)
    qtbot.keyClick(dialog.view, Qt.Key.Key_Right)
    assert dialog.apply_button.isEnabled() and dialog.apply_button.text() == "Apply τ 0.75…"

    # Saying no changes nothing; yes makes a new run with the predicted clusters.
    prompter.confirms.append(False)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert w.project.current_run().id == first_run.id and dialog.isVisible()
    predicted = dialog.presenter.clusters(0.75)
    prompter.confirms.append(True)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and w.calibration is None
    run = w.project.current_run()
    assert run.id != first_run.id and run.params["tau"] == 0.75
    assert run.params["reclustered_from"] == first_run.id
    assert sizes(w) == [1, 1, 1, 1, 1, 2, 2, 3]
    page_ids = w.project.run_page_ids()
    shown = sorted(sorted(m.page_id for m in w.project.members(r.id)) for r in w.model.rows if r.size > 1)
    assert shown == sorted(sorted(page_ids[i] for i in c.members) for c in predicted)
    assert ": 1 of 8 coded" in w.counts_label.text()
    for pid in tagged:
        assert [t.name for t in w.project.page(pid).tags] == ["unions"]
    assert "Clustered again at τ 0.75" in w.statusBar().currentMessage()
    # Calibrating the new run starts from its τ, with nothing to change.
    dialog = open_calibration(qtbot, w)
    assert dialog.text.text().startswith("τ 0.75: 3 clusters, 7 pages — no cluster would split or merge")
    dialog.reject()


def test_dragging_below_tau_admits_a_page_and_apply_keeps_tags(qtbot, window, prompter, floor_project):
    w = window
    assert w.open_project(floor_project)
    assert sizes(w) == [1, 1, 2, 4]
    prompter.texts.extend(["unions", "feminism"])
    w.tag_actions.new_tag()
    w.tag_actions.new_tag()
    story = w.project.cluster_of_page(w.project.page_id(page(0).key))
    lone = w.project.page_id(page(4).key)
    w.project.tag_clusters([story], [w.project.tag_by_name("unions").id])
    w.project.tag_pages([lone], [w.project.tag_by_name("feminism").id])
    w.refresh()

    dialog = open_calibration(qtbot, w)
    view = dialog.view
    assert dialog.presenter.floor == 0.25 and dialog.presenter.low == 0.25
    assert dialog.text.text() == "τ 0.50: 2 clusters, 6 pages — no cluster would split or merge"
    y = int(view.plot_rect().center().y())
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(int(view.x_of(0.6)), y))
    qtbot.mouseMove(view, QPoint(int(view.x_of(0.45)), y))
    qtbot.mouseMove(view, QPoint(int(view.x_of(0.3) + 1), y))
    with qtbot.waitSignal(dialog.counted, timeout=5000):
        qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(int(view.x_of(0.3) + 1), y))
    assert dialog.tau == 0.3
    shown_equals_presenter(dialog, 0.3)
    change = dialog.presenter.counts(0.3).change
    assert dialog.text.text() == "τ 0.30: 2 clusters, 7 pages — no cluster would split or merge"
    assert dialog.detail.text() == "7 pairs ≥ τ · 1 single page would join a cluster"
    # Dragging past the floor stops at it.
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(int(view.x_of(0.05)), y))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(int(view.x_of(0.05)), y))
    assert dialog.tau == 0.25
    dialog.set_tau(0.3)

    prompter.confirms.append(True)
    tags_before = {pid: w.project.page(pid).tags for pid in
                   (w.project.page_id(page(i).key) for i in range(8))}
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert "Apply τ" in prompter.asked
    assert sizes(w) == [1, 2, 5]
    assert len([r for r in w.model.rows if r.size > 1]) == change.clusters
    assert sum(r.size for r in w.model.rows if r.size > 1) == change.pages
    (grown,) = [r for r in w.model.rows if r.size == 5]
    assert grown.needs_review and {t.name: t.state for t in grown.tags} == {
        "unions": "some", "feminism": "some"}
    for pid, tags in tags_before.items():
        assert w.project.page(pid).tags == tags
    # Page 4 joined through most members, not the reference: below the floor, doubtful.
    row = w.model.find_row(grown.id)
    assert w.model.data(w.model.index(row, 2)) == "< floor"
    w.select_cluster(grown.id)
    items = [w.compare.members.item(i) for i in range(w.compare.members.count())]
    (below,) = [i for i in items if i.text().startswith("< floor")]
    assert "below 0.25" in below.data(DoubtRole)[0]
    below.setSelected(True)
    w.compare.members.setCurrentItem(below)
    assert "below the floor 0.25" in w.compare.right.header.text()


def test_doubtful_members_are_marked_with_reasons(qtbot, window, settings, floor_project):
    w = window
    assert w.open_project(floor_project)
    big = next(r for r in w.model.rows if r.size == 4)
    w.select_cluster(big.id)
    view = w.compare
    assert view.margin.value() == pytest.approx(0.10) and view.threshold == pytest.approx(0.6)

    def doubts():
        return {view.members.item(i).text(): view.members.item(i).data(DoubtRole)
                for i in range(view.members.count())}

    marks = doubts()
    # The member with a boilerplate share of 0.7 is doubtful although it is 0.9 similar.
    (flagged,) = [t for t, reasons in marks.items() if reasons]
    assert "70%" in marks[flagged][0]
    assert "70%" in view.members.item(list(marks).index(flagged)).toolTip()
    flagged_icon = view.members.item(list(marks).index(flagged)).icon()
    plain = next(t for t, reasons in marks.items() if not reasons)
    assert flagged_icon.cacheKey() != view.members.item(list(marks).index(plain)).icon().cacheKey()
    assert flagged_icon.cacheKey() == view._doubt_icon.cacheKey()
    assert "1 doubtful" in view.members_title.text()
    # Raise the threshold over 0.9: every member but the reference is doubtful now.
    view.margin.setValue(0.45)
    assert view.threshold == pytest.approx(0.95)
    marks = doubts()
    assert sum(bool(r) for r in marks.values()) == 3
    assert not marks[next(t for t in marks if t.startswith("ref"))]
    assert float(settings.value(MARGIN_KEY)) == pytest.approx(0.45)
    small = next(r for r in w.model.rows if r.size == 2)
    w.select_cluster(small.id)
    assert sum(bool(r) for r in doubts().values()) == 1  # 0.8 < 0.95


def test_calibrate_is_off_without_a_run_and_errors_are_shown(qtbot, window, prompter, tmp_path):
    w = window
    assert not w.actions_by_name["calibrate"].isEnabled()
    path = tmp_path / "odd.wbproj"
    with Project.create(path, str(tmp_path / "gone")) as project:
        project.save_run({"tau": 0.5, "cluster_method": "bogus"}, "spotsigs", {},
                         [page(0), page(1)], [Pair(0, 1, 0.9)], [Cluster(0, [0, 1], [1.0, 0.9])])
    assert w.open_project(path)
    assert w.actions_by_name["calibrate"].isEnabled()
    w.actions_by_name["calibrate"].trigger()
    assert w.calibration is None
    assert prompter.errors and prompter.errors[-1][0] == "Cannot calibrate"
    assert "bogus" in prompter.errors[-1][1]


def test_while_the_line_moves_uncounted_tau_says_counting_then_the_exact_text(qtbot):
    from workbench.core.clusters.calibration import PairGraph, labels_of

    graph = PairGraph.build(8, [a for a, _, _ in PAIRS], [b for _, b, _ in PAIRS], [s for _, _, s in PAIRS])
    presenter = Calibration(graph, labels_of(8, [[0, 1, 2, 3], [5, 6]]), method="star", run_tau=0.5,
                            floor=0.25)
    dialog = CalibrationDialog(presenter, hand_edits=2, prefetch=False)
    qtbot.addWidget(dialog)
    dialog.show()
    assert "keeps your 2 hand-made cluster(s)" in dialog.note.text() and dialog.note.isVisibleTo(dialog)
    qtbot.keyClick(dialog.view, Qt.Key.Key_Down)
    assert dialog.tau == 0.49
    assert dialog.text.text() == "τ 0.49: counting clusters… (4 pairs ≥ τ)"
    assert dialog.detail.text() == "" and presenter.cached(0.49) is None
    with qtbot.waitSignal(dialog.counted, timeout=5000) as blocker:
        pass
    assert blocker.args[0].tau == 0.49
    shown_equals_presenter(dialog, 0.49)
    # Back to a counted τ: the exact text at once, no waiting.
    qtbot.keyClick(dialog.view, Qt.Key.Key_Up)
    shown_equals_presenter(dialog, 0.5)
    qtbot.keyClick(dialog.view, Qt.Key.Key_End)
    assert dialog.tau == 1.0
    dialog.reset_button.click()
    shown_equals_presenter(dialog, 0.5)
    assert not dialog.grab().isNull()


def test_a_run_without_a_lower_floor_says_so(qtbot):
    from workbench.core.clusters.calibration import PairGraph

    presenter = Calibration(PairGraph.build(2, [0], [1], [0.7]), [0, 0], method="star", run_tau=0.44,
                            floor=0.44)
    dialog = CalibrationDialog(presenter, prefetch=False)
    qtbot.addWidget(dialog)
    assert "can only be raised" in dialog.note.text()
    qtbot.keyClick(dialog.view, Qt.Key.Key_Home)
    assert dialog.tau == 0.44


def test_a_run_with_checked_weak_joins_says_the_view_leaves_them_out(qtbot, window, tmp_path):
    """Page 4 joined story A below τ by a weak join checked against its text; the view
    clusters the stored pairs alone, so it shows that cluster splitting, and says why."""
    path = tmp_path / "weak.wbproj"
    params = {"tau": 0.5, "pair_floor": 0.25, "cluster_method": "star", "weak_join": 0.25,
              "weak_join_own_text": 0.4}
    with Project.create(path, str(tmp_path / "gone"), coder="ann") as project:
        project.save_run(params, "spotsigs", {}, [page(i) for i in range(8)],
                         [Pair(a, b, s) for a, b, s in PAIRS],
                         [Cluster(0, [0, 1, 2, 3, 4], [1.0, 0.9, 0.9, 0.9, -1.0]),
                          Cluster(5, [5, 6], [1.0, 0.8])])
    w = window
    assert w.open_project(path)
    dialog = open_calibration(qtbot, w)
    assert dialog.note.isVisibleTo(dialog)
    assert "Weak joins are left out here" in dialog.note.text()
    assert "no cluster would split or merge" not in dialog.text.text()
    dialog.reject()


def test_a_run_without_weak_joins_has_no_such_note(qtbot, window, floor_project):
    w = window
    assert w.open_project(floor_project)
    dialog = open_calibration(qtbot, w)
    assert "Weak joins" not in dialog.note.text()
    dialog.reject()


def test_the_view_says_a_tau_under_corroborate_below_makes_no_pair_cluster(qtbot, window, tmp_path):
    path = tmp_path / "corroborate.wbproj"
    params = {"tau": 0.5, "pair_floor": 0.25, "cluster_method": "star", "corroborate_below": 0.4}
    with Project.create(path, str(tmp_path / "gone"), coder="ann") as project:
        project.save_run(params, "spotsigs", {}, [page(i) for i in range(8)],
                         [Pair(a, b, s) for a, b, s in PAIRS],
                         [Cluster(0, [0, 1, 2, 3], [1.0, 0.9, 0.9, 0.9]), Cluster(5, [5, 6], [1.0, 0.8])])
    w = window
    assert w.open_project(path)
    dialog = open_calibration(qtbot, w)
    assert dialog.note.isVisibleTo(dialog)
    assert "corroborate below 0.40" in dialog.note.text()
    assert "no two pages make a cluster on their own" in dialog.note.text()
    dialog.reject()


def test_no_corroboration_note_when_tau_cannot_go_under_it(qtbot, window, floor_project):
    w = window  # floor_project recorded no corroborate_below: clustered without it
    assert w.open_project(floor_project)
    dialog = open_calibration(qtbot, w)
    assert "corroborate" not in dialog.note.text()
    dialog.reject()
