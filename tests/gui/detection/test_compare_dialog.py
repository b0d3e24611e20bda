"""Detection ▸ Compare Methods: run in the background, the table and curves, cancel, use a method."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QMainWindow, QMenu

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS
from workbench.core.clusters.evaluation import Scores
from workbench.gui.detection.compare_actions import install_compare_action
from workbench.gui.detection.compare_dialog import CompareDialog
from workbench.gui.detection.compare_presenter import Curve
from workbench.gui.detection.prcurve import PRCurveView, colour_of
from workbench.store import Project
from workbench.usecases import comparison
from workbench.usecases.comparison import Comparison, MethodResult, Point
from workbench.usecases.detector_run import MethodChoice
from workbench.usecases.pipeline import run_into_project


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    """The demo archive as a gold folder: one sub-folder per story, a page per site."""
    root = tmp_path / "gold"
    for page in DEMO_ARCHIVE.rglob("*.html"):
        site, story = page.parent.name, page.stem
        (root / story).mkdir(parents=True, exist_ok=True)
        shutil.copy(page, root / story / f"{site}.html")
    return root


@pytest.fixture
def big_gold(tmp_path: Path) -> Path:
    """480 pages in the demo's stories: long enough to cancel in the middle."""
    root = tmp_path / "big-gold"
    for copy in range(40):
        for page in DEMO_ARCHIVE.glob("*/*.html"):
            folder = root / page.stem
            folder.mkdir(parents=True, exist_ok=True)
            text = page.read_text(encoding="utf-8").replace("</body>", f"<p>Copy {copy}.</p></body>")
            (folder / f"{page.parent.name}-{copy:02d}.html").write_text(text, encoding="utf-8")
    return root


def _stop(dialog: CompareDialog) -> None:
    job = dialog.job
    if job is not None:
        job.cancel()
        job.done.wait(30)


@pytest.fixture
def make_dialog(qtbot, prompter):
    made: list[CompareDialog] = []

    def make(project: Project | None = None, **options) -> CompareDialog:
        d = CompareDialog(None, project, prompter=prompter, workers=1, **options)
        qtbot.addWidget(d)
        d.show()
        made.append(d)
        return d

    yield make
    for d in made:
        _stop(d)


def _run(qtbot, dialog: CompareDialog) -> Comparison:
    with qtbot.waitSignal(dialog.compared, timeout=RUN_TIMEOUT_MS) as blocker:
        assert dialog.run()
    return blocker.args[0]


def _near(c: QColor, colour: QColor) -> bool:
    return abs(c.red() - colour.red()) + abs(c.green() - colour.green()) + abs(c.blue() - colour.blue()) < 30


def _colour_pixels(image: QImage, colour: QColor) -> int:
    """Pixels (every other row and column) close to ``colour``: lines are antialiased."""
    return sum(_near(image.pixelColor(x, y), colour)
               for y in range(0, image.height(), 2) for x in range(0, image.width(), 2))


def test_a_comparison_fills_the_table_and_draws_each_methods_curve(qtbot, make_dialog, gold):
    dialog = make_dialog()
    empty = dialog.plot.grab().toImage()
    dialog.set_gold_folder(gold)
    dialog.set_methods(["spotsigs", "minhash"])
    assert dialog.run_button.isEnabled()
    result = _run(qtbot, dialog)
    assert [m.method for m in result.methods] == ["spotsigs", "minhash"]
    assert result.labelled_pages == 12 and dialog.job is None
    table = dialog.table
    assert table.rowCount() == 2
    for row, method in enumerate(result.methods):
        assert table.item(row, 0).text() == {"spotsigs": "SpotSigs", "minhash": "MinHash"}[method.method]
        assert table.item(row, 2).text() == f"{method.best.threshold:.2f}"
        assert table.item(row, 5).text() == f"{method.best.pairs.f1:.3f}"
    assert "12 pages" in dialog.summary.text()
    assert [c.method for c in dialog.plot.curves] == ["spotsigs", "minhash"]
    assert [len(c.points) for c in dialog.plot.curves] == [len(m.points) for m in result.methods]
    assert "SpotSigs: best F1" in dialog.plot.accessibleDescription()
    drawn = dialog.plot.grab().toImage()
    selected = colour_of(dialog.plot.selected)
    assert _colour_pixels(empty, selected) == 0 and _colour_pixels(drawn, selected) > 50
    # Without a project open there is nothing to run the chosen method on.
    assert not dialog.use_button.isEnabled()
    assert "Open a project" in dialog.use_label.text()


def test_use_this_method_emits_the_selected_method_at_its_best_threshold(qtbot, make_dialog, gold,
                                                                         tmp_path):
    with Project.create(tmp_path / "p.wbproj", str(gold)) as project:
        dialog = make_dialog(project)
        dialog.set_gold_folder(gold)
        dialog.set_methods(["spotsigs", "minhash"])
        result = _run(qtbot, dialog)
        dialog.table.selectRow(1)
        assert dialog.plot.selected == "minhash"
        assert dialog.use_button.isEnabled()
        with qtbot.waitSignal(dialog.use_method, timeout=2000) as blocker:
            qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [MethodChoice("minhash", result.methods[1].best.threshold)]


def test_cancel_stops_the_comparison(qtbot, make_dialog, big_gold):
    dialog = make_dialog()
    dialog.set_gold_folder(big_gold)
    dialog.set_methods(["spotsigs"])
    with qtbot.waitSignal(dialog.progress_shown, timeout=RUN_TIMEOUT_MS):
        assert dialog.run()
    assert dialog.cancel_button.isVisible() and not dialog.run_button.isEnabled()
    with qtbot.waitSignal(dialog.cancelled, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert dialog.job is None and dialog.table.rowCount() == 0
    assert dialog.run_button.isEnabled() and not dialog.cancel_button.isVisible()
    assert "cancelled" in dialog.problem_label.text()


def test_a_projects_coded_clusters_are_the_truth(qtbot, make_dialog, tmp_path):
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        run_into_project(project, DEMO_ARCHIVE, workers=1)
        cluster = next(r for r in project.list_clusters(0, 100) if r.size > 1)
        project.tag_clusters([cluster.id], [project.add_tag("school meals").id])
        dialog = make_dialog(project)
        assert dialog.project_radio.isChecked()
        dialog.set_methods(["spotsigs"])
        result = _run(qtbot, dialog)
    assert result.source == str(tmp_path / "p.wbproj")
    assert result.labelled_pages == cluster.size and result.true_clusters == 1


def test_a_project_without_coded_clusters_says_so(qtbot, make_dialog, prompter, tmp_path):
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        run_into_project(project, DEMO_ARCHIVE, workers=1)
        dialog = make_dialog(project)
        assert dialog.gold_radio.isChecked() and "none coded yet" in dialog.project_radio.text()
        dialog.project_radio.setChecked(True)
        assert not dialog.run_button.isEnabled()
        assert "p.wbproj has no coded clusters yet" in dialog.problem_label.text()
        assert not dialog.run()
    assert prompter.errors and "no coded clusters yet" in prompter.errors[-1][1]


def test_a_failing_method_is_explained_in_a_message(qtbot, make_dialog, prompter, gold, monkeypatch):
    def missing(name, **options):
        module = f"workbench.detect.{name}"
        raise ModuleNotFoundError(f"No module named '{module}'", name=module)

    monkeypatch.setattr(comparison, "make_detector", missing)
    # In this process: the stand-in detector cannot reach the comparison's own process.
    dialog = make_dialog(runner=comparison.compare)
    dialog.set_gold_folder(gold)
    dialog.set_methods(["minhash"])
    with qtbot.waitSignal(dialog.failed, timeout=RUN_TIMEOUT_MS):
        assert dialog.run()
    title, text = prompter.errors[-1]
    assert title == "Method not available"
    assert "MinHash" in text and "workbench.detect.minhash" in text
    assert dialog.job is None and dialog.run_button.isEnabled()


def test_the_plot_draws_every_point_of_every_curve_in_its_colour(qtbot):
    plot = PRCurveView()
    qtbot.addWidget(plot)
    plot.resize(600, 420)
    a = Curve("spotsigs", "SpotSigs", ((0.9, 0.5), (0.7, 0.8), (0.3, 0.95)), (0.1, 0.3, 0.5),
              (0.7, 0.8), 0.3, 0.75)
    b = Curve("minhash", "MinHash", ((0.8, 0.3), (0.5, 0.6)), (0.2, 0.6), (0.5, 0.6), 0.6, 0.55)
    plot.set_curves([a, b], "minhash", "summary in words")
    image = plot.grab().toImage()
    # Recall runs left to right, precision bottom to top, both 0 to 1 across the plot.
    r = plot.plot_rect()
    assert plot.to_pixel(0, 0) == r.bottomLeft() and plot.to_pixel(1, 1) == r.topRight()
    assert plot.to_pixel(1, 0) == r.bottomRight()
    for curve in (a, b):
        for recall, precision in curve.points:
            q = plot.to_pixel(recall, precision)
            assert _near(image.pixelColor(int(q.x()), int(q.y())), colour_of(curve.method)), \
                (curve.method, recall, precision)
    assert plot.accessibleDescription() == "summary in words"
    assert plot.point_at(plot.to_pixel(0.5, 0.6)) == (b, 1)
    assert plot.point_at(plot.to_pixel(0.6, 0.2)) is None


# ------------------------------------------------------------------ the menu action
class StandInWindow(QMainWindow):
    """What install_compare_action needs of the main window."""

    def __init__(self, project, prompter, settings) -> None:
        super().__init__()
        self.project, self.prompter, self.settings = project, prompter, settings
        self.workers = 1
        self.job = None
        self.started: list[MethodChoice] = []

    def start_method_run(self, choice: MethodChoice) -> bool:
        self.started.append(choice)
        return True


def _fake_comparison() -> Comparison:
    def point(t: float, f1: float) -> Point:
        s = Scores(f1, f1, f1, 10, 10, int(10 * f1))
        return Point(t, s, s)

    return Comparison("/gold", 10, 2, 10, 1.0, [
        MethodResult("spotsigs", "SpotSigs", True, [point(0.3, 0.9), point(0.5, 0.8)], 1.0, 0),
        MethodResult("minhash", "MinHash", False, [point(0.6, 0.7)], 1.0, 0)])


def test_the_menu_action_opens_the_dialog_and_runs_the_chosen_method(qtbot, prompter, settings, tmp_path,
                                                                     gold):
    settings.setValue("compare/goldFolder", str(gold))
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        window = StandInWindow(project, prompter, settings)
        qtbot.addWidget(window)
        menu = QMenu("&Detection", window)
        action = install_compare_action(window, menu)
        assert action in menu.actions() and action.text() == "Compare &Methods…"
        action.trigger()
        dialog = window.findChild(CompareDialog)
        assert dialog is not None and dialog.isVisible() and dialog.project is project
        assert dialog.gold_edit.text() == str(gold)  # the gold folder last used
        dialog.show_comparison(_fake_comparison())
        assert dialog.table.selectedIndexes()[0].row() == 0  # the best method is selected
        window.job = object()  # a detection run is going on: the window cannot start another
        qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
        assert window.started == [] and "Detection is running" in prompter.errors[-1][0]
        window.job = None
        qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
        assert window.started == [MethodChoice("spotsigs", 0.3)]
        assert not dialog.isVisible()


def test_use_this_method_runs_it_in_the_real_window(qtbot, demo_window):
    window = demo_window
    detect = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Detection")
    install_compare_action(window, detect)
    assert window.actions_by_name["compare_methods"] in detect.actions()
    window.actions_by_name["compare_methods"].trigger()
    dialog = window.findChild(CompareDialog)
    assert dialog.project is window.project
    comparison = _fake_comparison()
    comparison.methods.reverse()  # MinHash first; SpotSigs is still the best
    dialog.show_comparison(comparison)
    dialog.table.selectRow(0)
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    run = window.project.current_run()
    assert run.params["detector"] == "minhash" and run.params["tau"] == 0.6
