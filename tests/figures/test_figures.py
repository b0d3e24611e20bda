"""The figures, built headless: their points, labels and notes; saving by extension."""

from __future__ import annotations

import csv

import matplotlib
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from tests.figures.runs import cluster_of, page, save, story_run
from workbench.figures.corpus import corpus_numbers, summarise
from workbench.figures.dashboard import PLOTS, over_time_figure, sources_figure
from workbench.figures.saving import FigureFormatError, export_dashboard, save_figure
from workbench.figures.spread import cluster_spread
from workbench.figures.timeline import timeline_figure

PNG = b"\x89PNG\r\n\x1a\n"


def _points(fig: Figure) -> dict[str, int]:
    ax = fig.axes[0]
    return {c.get_gid(): len(c.get_offsets()) for c in ax.collections
            if isinstance(c, PathCollection)}


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text)]


def test_timeline_points_roles_and_labels(tmp_path):
    with story_run(tmp_path) as project:
        cid = cluster_of(project, "p0.html")
        project.set_excluded(cid, [project.page_id("p3.html")], True)
        spread = cluster_spread(project.reader(), cid, related=[project.page_id("p7.html")])
    fig = timeline_figure(spread)
    assert _points(fig) == {"first": 1, "copy": 2, "rewrite": 1, "excluded": 1, "reference": 1}
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Date captured" and ax.get_ylabel() == "Site"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b.test", "c.test", "a.test",
                                                            "d.test"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["first publisher (1)", "copy (2)", "rewrite (related, below τ) (1)",
                      "not this story (1)", "the cluster's reference page"]
    assert "first: b.test on 2024-05-01" in ax.get_title(loc="left")
    undated = [t for t in fig.texts if t.get_gid() == "undated"]
    assert len(undated) == 1 and "Undated, not on the timeline (1): c.test (copy)" in \
        undated[0].get_text()


def test_timeline_of_undated_cluster_says_so(tmp_path):
    with save(tmp_path, [page(0, "a.test", None), page(1, "b.test", None)], [[0, 1]]) as project:
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
    fig = timeline_figure(spread)
    assert _points(fig) == {}
    assert "No page of this cluster has a date" in _texts(fig)
    assert "first publisher is unknown" in fig.axes[0].get_title(loc="left")
    assert "Undated, not on the timeline (2)" in fig.texts[0].get_text()


def test_timeline_of_one_moment_has_a_readable_axis(tmp_path):
    pages = [page(0, "a.test", "2024-01-01T10:00:00Z"), page(1, "b.test", "2024-01-01T10:00:00Z")]
    with save(tmp_path, pages, [[0, 1]]) as project:
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
    low, high = timeline_figure(spread).axes[0].get_xlim()
    assert high - low == pytest.approx(1.0)  # a day, not a zero-width axis


def test_dashboard_figures_show_the_numbers(tmp_path):
    with story_run(tmp_path) as project:
        c = corpus_numbers(project.reader())
    sizes = PLOTS["cluster-sizes"][1](c).axes[0]
    assert [p.get_height() for p in sizes.patches] == [1, 0, 0, 1]
    assert [t.get_text() for t in sizes.get_xticklabels()] == ["2", "3", "4", "5"]
    shares = PLOTS["site-copy-share"][1](c).axes[0]
    assert sorted(round(p.get_width(), 3) for p in shares.patches) == [0, 0, 0.5, 0.667, 1.0]
    assert "100% (2 of 2)" in [t.get_text() for t in shares.texts]
    time_ax = over_time_figure(c).axes[0]
    assert len(time_ax.patches) == 2 * 7  # copies and the rest, for each of 7 weeks
    assert time_ax.get_xlabel() == "Week (date captured)"
    assert "2 undated pages left out" in time_ax.get_title(loc="left")
    src = sources_figure(c).axes[0]
    assert [t.get_text() for t in src.get_yticklabels()] == ["a.test (1 copy)",
                                                            "b.test (4 copies)"]


def test_cluster_sizes_are_binned_beyond_five():
    from workbench.figures.corpus import Corpus
    from workbench.figures.dashboard import size_bins

    c = Corpus(sizes=((2, 40), (7, 3), (9, 1), (60, 2), (2500, 1)), singles=0, sites=(),
               sources=(), unit="month", periods=(), undated=0, dated_from=(), pages=0)
    assert size_bins(c) == [("2", 40), ("3", 0), ("4", 0), ("5", 0), ("6–10", 4),
                            ("11–20", 0), ("21–50", 0), ("51–100", 2), ("101–200", 0),
                            ("201–500", 0), ("501–1,000", 0), ("> 1,000", 1)]
    ax = PLOTS["cluster-sizes"][1](c).axes[0]
    assert len(ax.patches) == 12 and ax.get_yscale() == "linear"


def test_dashboard_of_a_run_without_clusters_or_dates_says_so():
    c = summarise([])
    for name, (_title, figure, _table) in PLOTS.items():
        fig = figure(c)
        ax = fig.axes[0]
        assert len(ax.patches) == 0, name
        assert [t.get_gid() for t in ax.texts] == ["empty"], name


@pytest.mark.parametrize(("suffix", "magic"), [(".png", PNG), (".SVG", b"<?xml")])
def test_saved_by_extension(tmp_path, suffix, magic):
    with story_run(tmp_path) as project:
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
    path = save_figure(timeline_figure(spread), tmp_path / f"timeline{suffix}")
    data = path.read_bytes()
    assert data.startswith(magic)
    if suffix == ".SVG":
        assert b"<svg" in data[:1000]


def test_unknown_extension_is_refused_by_name(tmp_path):
    with pytest.raises(FigureFormatError, match=r"timeline\.jpg.*\.png.*\.svg"):
        save_figure(Figure(), tmp_path / "timeline.jpg")
    assert not (tmp_path / "timeline.jpg").exists()


def test_export_all_writes_every_plot_and_its_numbers(tmp_path):
    with story_run(tmp_path) as project:
        c = corpus_numbers(project.reader())
    written = export_dashboard(c, tmp_path / "out")
    names = sorted(p.name for p in written)
    assert len(names) == 12
    for name in PLOTS:
        assert (tmp_path / "out" / f"{name}.png").read_bytes().startswith(PNG)
        assert b"<svg" in (tmp_path / "out" / f"{name}.svg").read_bytes()[:1000]
    with open(tmp_path / "out" / "site-copy-share.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["site", "pages", "copies", "copy_share"]
    assert rows[1] == ["c.test", "2", "2", "1.0"]
    with open(tmp_path / "out" / "duplication-over-time.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["week_start", "pages", "copies"] and rows[1] == ["2024-04-29", "4", "3"]


def test_dates_without_time_get_a_day_axis_and_stacked_pages_a_count(tmp_path):
    pages = [page(0, "a.test", "2006-12-29"), page(1, "b.test", "2006-12-30"),
             page(2, "b.test", "2006-12-30"), page(3, "c.test", "2006-12-30")]
    with save(tmp_path, pages, [[0, 1, 2, 3]]) as project:
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
    fig = timeline_figure(spread)
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert high - low == pytest.approx(3.0)  # whole days, no hours the dates lack
    fig.canvas.draw()
    assert all(":" not in t.get_text() for t in ax.get_xticklabels())
    assert "within 1 day" in ax.get_title(loc="left")
    assert [t.get_text() for t in ax.texts if t.get_gid() == "stacked"] == ["×2"]
