"""Detection ▸ Learn From My Coding (ANDD): train on the coded clusters, preview, apply or not."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.detect.andd.andd import AnddDetector
from workbench.detect.andd.model import AnddWeights
from workbench.detect.andd.train import NOTHING_CHECKED
from workbench.gui.detection.andd_actions import (
    ACTION_NAME,
    AnddLearner,
    andd_run_params,
    install_andd_action,
)
from workbench.gui.detection.andd_dialog import AnddDialog
from workbench.usecases.detector_run import MethodChoice


@pytest.fixture
def window(window):
    """The window with the action in its Detection menu (installed here until the window
    installs it itself)."""
    if ACTION_NAME not in window.actions_by_name:
        detection = next(m for m in window.menuBar().actions() if m.text() == "&Detection").menu()
        install_andd_action(window, detection)
    return window


def _learner(window) -> AnddLearner:
    learner = window.findChild(AnddLearner)
    assert learner is not None, "install_andd_action was not called for this window"
    return learner


@pytest.fixture
def coded(demo_window):
    """The demo archive with two of its clusters tagged: something to learn from."""
    w = demo_window
    clusters = [r for r in w.project.list_clusters(0, 100) if r.size > 1][:2]
    assert len(clusters) == 2
    tag = w.project.add_tag("school meals")
    w.project.tag_clusters([c.id for c in clusters], [tag.id])
    w.refresh()
    return w


def _preview(qtbot, window) -> AnddDialog:
    """Trigger the action and wait until the preview is shown (a GUI-thread signal)."""
    with qtbot.waitSignal(_learner(window).previewed, timeout=RUN_TIMEOUT_MS) as shown:
        window.actions_by_name[ACTION_NAME].trigger()
    dialog = shown.args[0]
    assert isinstance(dialog, AnddDialog) and dialog.isVisible()
    return dialog


def _tags_by_page(project) -> set[tuple[str, str]]:
    return {(r.source, r.tags) for r in project.page_records(coded_only=True)}


def test_the_action_is_in_the_detection_menu(window):
    action = window.actions_by_name[ACTION_NAME]
    assert action.text() == "&Learn From My Coding (ANDD)…"
    detection = next(m for m in window.menuBar().actions() if m.text() == "&Detection").menu()
    assert action in detection.actions()


def test_apply_makes_an_andd_run_current_and_the_tags_stay_on_their_pages(qtbot, coded):
    w = coded
    before = w.project.current_run()
    tags = _tags_by_page(w.project)
    dialog = _preview(qtbot, w)
    changes = dialog.changes
    assert not changes.empty
    assert dialog.merges.topLevelItemCount() == len(changes.merges)
    assert dialog.splits.topLevelItemCount() == len(changes.splits)
    assert dialog.summary.text() == changes.summary()
    assert w.job is None  # learning is over; the coder may work while deciding

    with qtbot.waitSignal(_learner(w).applied, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    run = w.project.current_run()
    assert run.id != before.id and run.method == "andd"
    assert _tags_by_page(w.project) == tags
    message = w.statusBar().currentMessage()
    assert "tags stayed on their pages" in message
    # The run records the learned detector, so running it again rebuilds the same one.
    choice = w.current_method()
    assert choice.name == "andd" and choice.threshold == run.params["tau"]
    weights = AnddWeights.from_dict(choice.options["weights"])
    assert weights.trained and weights.threshold == choice.threshold
    assert AnddDetector(weights=weights).parameters() == run.params["detector_parameters"]
    # ...and the extraction settings of the run it learned from.
    for key in ("main_content", "block_filter", "languages", "min_block_words"):
        assert run.params[key] == before.params[key]
    # Run Detection Again runs the learned detector (its weights read back from the run).
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name["rerun"].trigger()
    again = w.project.current_run()
    assert again.id != run.id and again.method == "andd"
    assert again.params["detector_parameters"] == run.params["detector_parameters"]
    assert _tags_by_page(w.project) == tags


def test_cancel_in_the_preview_leaves_the_current_run(qtbot, coded):
    w = coded
    before = w.project.current_run().id
    runs = len(w.project.runs())
    dialog = _preview(qtbot, w)
    with qtbot.waitSignal(_learner(w).dismissed, timeout=5000):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert w.project.current_run().id == before and len(w.project.runs()) == runs
    assert "nothing changed" in w.statusBar().currentMessage().lower()


def test_cancel_while_learning_stops_it_and_leaves_the_current_run(qtbot, coded, prompter):
    w = coded
    before = w.project.current_run().id
    learner = _learner(w)
    with qtbot.waitSignal(learner.stopped, timeout=RUN_TIMEOUT_MS):
        w.actions_by_name[ACTION_NAME].trigger()
        assert w.job is not None  # coding and other runs wait for it
        w.cancel_run()  # the status bar's Cancel
    assert w.job is None and prompter.errors == []
    assert w.project.current_run().id == before
    assert "cancelled" in w.statusBar().currentMessage().lower()


def test_without_coded_clusters_it_says_to_code_some_first(demo_window, prompter):
    w = demo_window
    runs = len(w.project.runs())
    w.actions_by_name[ACTION_NAME].trigger()
    assert prompter.errors and prompter.errors[-1][1].startswith(NOTHING_CHECKED)
    assert w.job is None and len(w.project.runs()) == runs


def test_without_a_project_it_says_to_open_one(window, prompter):
    window.actions_by_name[ACTION_NAME].trigger()
    assert prompter.errors[-1][0] == "No project open"


def test_while_detection_runs_it_says_to_wait(qtbot, coded, prompter):
    w = coded
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.start_run()
        w.actions_by_name[ACTION_NAME].trigger()
        assert prompter.errors[-1][0] == "Detection is running"


def test_the_recorded_parameters_rebuild_the_detector(qtbot, coded):
    """What MethodChoice.of_run reads back from the params saved on Apply."""
    w = coded
    dialog = _preview(qtbot, w)
    rerun = _learner(w).rerun
    assert rerun is not None
    params = andd_run_params(rerun, w.current_params())
    choice = MethodChoice.of_run("andd", params)
    assert choice == MethodChoice("andd", rerun.threshold, {"weights": rerun.weights.to_dict()})
    assert AnddWeights.from_dict(choice.options["weights"]) == rerun.weights
    assert params["detector"] == "andd" and params["tau"] == rerun.threshold
    dialog.reject()


def test_a_read_only_project_is_refused_with_why(qtbot, coded, prompter):
    from tests.store.faults import read_only

    w = coded
    path = w.project.path
    w.close_project()
    with read_only(path):
        assert w.open_project(path) and w.project.readonly
        w.actions_by_name[ACTION_NAME].trigger()
        title, text = prompter.errors[-1]
        assert title == "Project is read-only" and path.name in text and w.job is None
        w.close_project()


def test_the_preview_shows_the_learned_weights_and_why_each_merge_is_made(qtbot, coded):
    dialog = _preview(qtbot, coded)
    rerun = _learner(coded).rerun
    shown = {dialog.weights.topLevelItem(i).text(0): dialog.weights.topLevelItem(i).text(1)
             for i in range(dialog.weights.topLevelItemCount())}
    assert shown == {name: f"{value:+.3f}" for name, value in rerun.weights.weights}
    assert dialog.weights.isVisibleTo(dialog)
    for i in range(dialog.merges.topLevelItemCount()):
        merge = dialog.merges.topLevelItem(i)
        why = merge.child(merge.childCount() - 1)
        assert why.text(0).startswith("Why: ") and f"≥ {rerun.threshold:.2f}" in why.text(0)
        assert why.childCount() >= 1 and why.child(0).text(1).startswith("cosine ")
    dialog.reject()
