"""What Compare Methods shows, worked out without Qt (no display, no widgets)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from workbench.core.clusters.evaluation import score_pairs
from workbench.gui.detection.compare_presenter import (
    COLUMNS,
    ComparePresenter,
    ProjectTruthCount,
    Source,
    gold_folder_problem,
    project_truth_problem,
)
from workbench.usecases.comparison import PAPER_FIGURES, Comparison, MethodResult, Point, Truth
from workbench.usecases.detector_run import MethodChoice

TRUE = {("a", "b"), ("a", "c"), ("b", "c"), ("d", "e")}


def _point(threshold: float, found: set[tuple[str, str]]) -> Point:
    scores = score_pairs(found, TRUE)
    return Point(threshold, scores, scores)


def _comparison() -> Comparison:
    # spotsigs: best at 0.4 (all 4 true pairs, 1 wrong); minhash: best at 0.8 (2 of 4, none wrong).
    spotsigs = MethodResult("spotsigs", "SpotSigs (paper)", True, [
        _point(0.2, TRUE | {("a", "d"), ("b", "e"), ("c", "e")}),
        _point(0.4, TRUE | {("a", "d")}),
        _point(0.6, {("a", "b")}),
    ], seconds=3.25, peak_bytes=80 * 2**20, note="time includes reading and extraction")
    minhash = MethodResult("minhash", "MinHash LSH", False, [
        _point(0.8, {("a", "b"), ("d", "e")}),
        _point(0.5, {("a", "b"), ("d", "e"), ("a", "e"), ("b", "d")}),
    ], seconds=1.5, peak_bytes=1000)
    return Comparison("/data/gold", 5, 2, 6, 2.0, [spotsigs, minhash])


def test_rows_show_each_method_at_its_best_threshold():
    p = ComparePresenter()
    p.set_comparison(_comparison())
    spot, mh = (dict(zip(COLUMNS, r.cells, strict=True)) for r in p.rows)
    assert spot["Method"] == "SpotSigs" and spot["Search"] == "exact"
    assert spot["Best threshold"] == "0.40"
    assert (spot["Pair precision"], spot["Pair recall"], spot["Max F1"]) == ("0.800", "1.000", "0.889")
    assert spot["Time"] == "3.2 s" and spot["Memory"] == "80 MB"
    assert spot["The papers report"] == "; ".join(PAPER_FIGURES["spotsigs"])
    assert mh["Search"] == "LSH" and mh["Best threshold"] == "0.80" and mh["Memory"] == "< 1 MB"
    assert (mh["Pair precision"], mh["Pair recall"]) == ("1.000", "0.500")
    assert "4 of 4 true pairs found, 1 wrong pairs" in p.rows[0].tooltip
    assert "time includes reading" in p.rows[0].tooltip


def test_the_best_row_is_selected_and_used_at_its_best_threshold():
    p = ComparePresenter()
    c = _comparison()
    c.methods.reverse()  # the best method second
    p.set_comparison(c)
    assert p.selected == 1 and p.selected_method == "spotsigs"
    assert p.choice() == MethodChoice("spotsigs", 0.4)
    p.select(0)
    assert p.choice() == MethodChoice("minhash", 0.8)
    assert "MinHash at threshold 0.80" in p.use_text()
    p.select(7)
    assert p.choice() is None and p.use_problem(project_open=True) == "Select a method in the table."


def test_use_needs_a_comparison_and_an_open_project():
    p = ComparePresenter()
    assert p.use_problem(project_open=True) == "Run a comparison first."
    p.set_comparison(_comparison())
    assert "Open a project" in p.use_problem(project_open=False)
    assert p.use_problem(project_open=True) is None


def test_curves_are_recall_precision_in_threshold_order_with_the_best_point():
    p = ComparePresenter()
    p.set_comparison(_comparison())
    spot, mh = p.curves
    assert spot.thresholds == (0.2, 0.4, 0.6)
    assert spot.points[1] == (1.0, 0.8) and spot.points[2] == (0.25, 1.0)
    assert spot.best == (1.0, 0.8) and spot.best_threshold == 0.4
    assert mh.thresholds == (0.5, 0.8) and mh.best == (0.5, 1.0)
    assert "SpotSigs: best F1 0.889 at threshold 0.40" in p.curve_summary()


def test_source_starts_from_the_projects_coding_when_there_is_some():
    coded = ProjectTruthCount.of("p.wbproj", Truth({"x/1": "cluster:3", "x/2": "cluster:3",
                                                    "x/3": "excluded:x/3"}))
    assert (coded.labelled_pages, coded.clusters) == (3, 1)
    assert ComparePresenter(project=coded).source is Source.PROJECT
    assert "1 clusters, 3 pages" in ComparePresenter(project=coded).project_label()
    empty = ProjectTruthCount.of("p.wbproj", Truth({}))
    p = ComparePresenter(project=empty)
    assert p.source is Source.GOLD
    p.set_source(Source.PROJECT)
    assert "p.wbproj has no coded clusters yet" in p.run_problem()
    assert ComparePresenter().source is Source.GOLD


def test_run_says_what_is_missing(tmp_path: Path):
    p = ComparePresenter(["spotsigs", "minhash"])
    assert "Choose a gold folder" in p.run_problem()
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "page.html").write_text("<p>x</p>")
    p.set_gold_folder(flat)
    assert f"{flat} has no sub-folders" in p.run_problem()
    (flat / "story").mkdir()
    assert p.run_problem() is None
    p.set_method("spotsigs", False)
    p.set_method("minhash", False)
    assert p.run_problem() == "Tick at least one method to compare."
    p.set_method("minhash", True)
    assert p.checked_methods() == ["minhash"]
    assert "not there any more" in gold_folder_problem(tmp_path / "gone")


def test_a_projects_coding_needs_coded_clusters_and_its_crawl(tmp_path: Path):
    truth = Truth({"a/1": "cluster:1"})
    assert "no coded clusters yet" in project_truth_problem("p.wbproj", Truth({}), str(tmp_path))
    assert "is not there" in project_truth_problem("p.wbproj", truth, str(tmp_path / "gone"))
    assert project_truth_problem("p.wbproj", truth, str(tmp_path)) is None


def test_progress_names_the_method_and_the_bar_only_moves_forward():
    p = ComparePresenter()
    p.start(["spotsigs", "minhash"])
    reports = [("read", 10, 100), ("extract", 5, None), ("method:spotsigs", 0, 2), ("read", 50, 100),
               ("match", 3, 10), ("cluster", 0, None), ("method:minhash", 1, 2), ("match", 0, 8),
               ("match", 8, 8)]
    views = [p.progress(*r) for r in reports]
    assert views[0].text.startswith("Reading the pages the methods other than SpotSigs share")
    assert views[4].text == "SpotSigs (1 of 2): matching pages: 3 of 10…"
    assert views[7].text.startswith("MinHash (2 of 2)")
    starts = [v.value for v, r in zip(views, reports, strict=True) if r[0].startswith("method:")]
    assert starts == sorted(starts) and 0 < starts[0] < starts[1] < 1000
    assert views[-1].value == 1000
    assert p.current_method == "minhash"


def test_failures_say_what_failed_and_what_to_do():
    p = ComparePresenter()
    p.start(["minhash"])
    p.progress("method:minhash", 0, 1)
    title, text = p.failure(ModuleNotFoundError("no module", name="datasketch"), "/crawl")
    assert "MinHash" in text and "datasketch" in text and "Untick" in text
    title, text = p.failure(FileNotFoundError(2, "No such file", "/crawl/a.html"), "/crawl")
    assert title == "Cannot read the pages" and "/crawl/a.html" in text and "No such file" in text
    title, text = p.failure(RuntimeError("boom"), "/crawl")
    assert "RuntimeError: boom" in text and "while running MinHash" in text


def test_the_presenter_does_not_import_qt():
    code = ("import sys, workbench.gui.detection.compare_presenter; "
            "sys.exit(1 if any(m.startswith('PySide6') for m in sys.modules) else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0
