"""Compare Methods tells the coder which threshold to code at, and its legend hides no curve."""

from __future__ import annotations

import io
import shutil

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS
from tests.gui.detection.test_compare_dialog import _near
from workbench.commands.compare_command import print_table
from workbench.core.clusters.evaluation import Scores
from workbench.gui.detection.compare_dialog import CompareDialog
from workbench.gui.detection.compare_presenter import ComparePresenter, Curve, Source
from workbench.gui.detection.prcurve import PRCurveView, colour_of
from workbench.usecases.comparison import Comparison, MethodResult, Point
from workbench.usecases.detector_run import MethodChoice


def _scores(p: float, r: float) -> Scores:
    f1 = 2 * p * r / (p + r)
    return Scores(p, r, f1, 100, 100, int(100 * r))


def _comparison() -> Comparison:
    """SpotSigs' pairs score best at 0.30, its clusters at 0.45 (fewer false merges)."""
    spotsigs = MethodResult("spotsigs", "SpotSigs", True, [
        Point(0.30, _scores(0.90, 0.90), _scores(0.60, 0.95)),
        Point(0.45, _scores(0.95, 0.70), _scores(0.92, 0.85)),
        Point(0.60, _scores(0.99, 0.40), _scores(0.99, 0.40)),
    ], seconds=2.0, peak_bytes=80 * 2**20)
    return Comparison("/data/heldout", 10, 3, 10, 0.0, [spotsigs])


def test_the_threshold_to_code_at_is_said_in_words_and_used():
    p = ComparePresenter()
    p.set_source(Source.PROJECT)
    p.set_comparison(_comparison())
    advice = p.coding_advice()
    assert advice.startswith("To code with SpotSigs, use threshold 0.45: there its clusters match "
                             "your coded clusters best (cluster F1 0.884")
    assert "Its pairs alone score best at 0.30" in advice
    assert p.choice() == MethodChoice("spotsigs", 0.45)
    assert "at threshold 0.45" in p.use_text()
    curve = p.curves[0]
    assert curve.code_threshold == 0.45 and curve.code_at == (0.70, 0.95)
    assert curve.best_threshold == 0.30  # the ring stays on the papers' Max F1


def test_the_dialog_says_where_to_code_and_the_plot_flags_it(qtbot, prompter):
    dialog = CompareDialog(prompter=prompter, methods=["spotsigs"])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.show_comparison(_comparison())
    assert dialog.advice.text() == dialog.presenter.coding_advice() != ""
    assert "threshold 0.45" in dialog.advice.text()
    where = dialog.plot.coding_point()
    assert where is not None and where[1] == 0.45
    assert where[0] == dialog.plot.to_pixel(0.70, 0.95)


def test_the_legend_is_beside_the_plot_and_covers_no_point(qtbot):
    plot = PRCurveView()
    qtbot.addWidget(plot)
    plot.resize(700, 420)
    # A curve through the bottom left corner, where the legend used to be drawn.
    low = Curve("minhash", "MinHash", ((0.03, 0.04), (0.08, 0.06), (0.5, 0.5)), (0.9, 0.8, 0.3),
                (0.5, 0.5), 0.3, 0.5)
    plot.set_curves([low], None, "")
    image = plot.grab().toImage()
    for recall, precision in low.points:
        q = plot.to_pixel(recall, precision)
        assert _near(image.pixelColor(int(q.x()), int(q.y())), colour_of("minhash")), (recall, precision)
    assert not plot.legend_rect().intersects(plot.plot_rect())
    plot.resize(420, 420)  # too narrow beside: the legend goes under the plot
    assert not plot.legend_rect().intersects(plot.plot_rect())
    assert plot.legend_rect().top() > plot.plot_rect().bottom()


def test_the_papers_line_does_not_call_the_pages_compared_a_part_of_the_dev_set():
    out = io.StringIO()
    print_table(_comparison(), out)
    text = out.getvalue()
    assert "dev set" not in text
    assert "not over the pages compared here" in text


def test_the_windows_memory_figure_for_spotsigs_is_the_command_lines(qtbot, prompter, tmp_path):
    """The window has run SpotSigs on the crawl already; its comparison used to show
    SpotSigs' memory as "< 1 MB" (the window's growth) where the CLI says tens of MB."""
    from tests.usecases.test_comparison_process import _cli_memory_mb
    from workbench.gui.detection.compare_presenter import COLUMNS
    from workbench.usecases.comparison import Truth, compare

    gold = tmp_path / "gold"
    for page in DEMO_ARCHIVE.rglob("*.html"):
        (gold / page.stem).mkdir(parents=True, exist_ok=True)
        shutil.copy(page, gold / page.stem / f"{page.parent.name}.html")
    compare(gold, Truth.from_gold_folder, ["spotsigs"], workers=1)  # the window's own run
    cli = _cli_memory_mb(gold)
    dialog = CompareDialog(prompter=prompter, workers=1, methods=["spotsigs"])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_gold_folder(gold)
    dialog.set_methods(["spotsigs"])
    with qtbot.waitSignal(dialog.compared, timeout=RUN_TIMEOUT_MS) as blocker:
        assert dialog.run()
    shown = dialog.table.item(0, COLUMNS.index("Memory")).text()
    assert shown != "< 1 MB" and blocker.args[0].methods[0].peak_bytes / 2**20 >= cli / 2, (shown, cli)
