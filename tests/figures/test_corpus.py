"""The dashboard's numbers on hand-made runs: sizes, copy shares, sources, periods."""

from __future__ import annotations

from datetime import date, datetime

from tests.figures.runs import cluster_of, page, save, story_run
from workbench.figures.corpus import (
    Period,
    RunPage,
    corpus_numbers,
    period_start,
    period_unit,
    summarise,
)


def test_story_run_counted_by_hand(tmp_path):
    with story_run(tmp_path) as project:
        c = corpus_numbers(project.reader())
    # Cluster A: first b.test (page 1); copies 0, 2, 3 (a, c, a) and 4 (c, undated).
    # Cluster B: first a.test (page 5); copy 6 (b.test).
    assert c.sizes == ((2, 1), (5, 1))
    assert c.clusters == 2 and c.singles == 2 and c.pages == 9
    shares = {s.site: (s.pages, s.copies) for s in c.sites}
    assert shares == {"a.test": (3, 2), "b.test": (2, 1), "c.test": (2, 2), "d.test": (1, 0),
                      "e.test": (1, 0)}
    assert [s.site for s in c.sites][:3] == ["c.test", "a.test", "b.test"]  # by share
    assert [(s.site, s.stories, s.copies_elsewhere) for s in c.sources] == [
        ("b.test", 1, 4), ("a.test", 1, 1)]  # tied on stories: more copies first
    # 1 May to 13 June: weeks, every week from the Monday of the first to the last.
    assert c.unit == "week" and c.undated == 2
    # 1, 2, 3 and 5 May (a Sunday): one ISO week, pages 1, 2, 0, 3; copies 2, 0, 3.
    assert c.periods[0] == Period(date(2024, 4, 29), 4, 3)
    assert c.periods[1] == Period(date(2024, 5, 6), 0, 0)  # empty weeks are kept
    assert c.periods[-1] == Period(date(2024, 6, 10), 3, 1)  # pages 5, 6 (a copy), 7
    assert sum(p.pages for p in c.periods) == 7 and sum(p.copies for p in c.periods) == 4
    assert len(c.periods) == 7
    assert dict(c.dated_from) == {"captured": 7}


def test_excluded_pages_are_no_copies_and_no_sources(tmp_path):
    with story_run(tmp_path) as project:
        cid = cluster_of(project, "p5.html")
        project.set_excluded(cid, [project.page_id("p6.html")], True)
        c = corpus_numbers(project.reader())
    assert {s.site: s.copies for s in c.sites}["b.test"] == 0
    assert [s.site for s in c.sources] == ["b.test"]
    assert c.sizes == ((2, 1), (5, 1))  # the list's size: the member stays in the cluster


def test_a_site_copying_itself_is_no_source_copied_by_others(tmp_path):
    pages = [page(0, "a.test", "2024-01-01"), page(1, "a.test", "2024-01-02")]
    with save(tmp_path, pages, [[0, 1]]) as project:
        c = corpus_numbers(project.reader())
    assert c.sources == () and c.copies == 1


def test_undated_cluster_takes_its_reference_as_source():
    pages = [RunPage(1, "a", None, None, 7, False, False), RunPage(2, "b", None, None, 7, True,
                                                                  False)]
    c = summarise(pages)
    assert [(s.site, s.stories) for s in c.sources] == [("b", 1)]
    assert c.periods == () and c.undated == 2


def test_published_dates_decide_before_captured_ones():
    pages = [RunPage(1, "a", "2024-01-01", None, 7, True, False),
             RunPage(2, "b", "2024-01-05", "2023-12-30", 7, False, False)]
    c = summarise(pages)
    assert [s.site for s in c.sources] == ["b"]
    assert dict(c.dated_from) == {"captured": 1, "published": 1}


def test_months_beyond_half_a_year_and_every_month_listed():
    assert period_unit(datetime(2024, 1, 1), datetime(2024, 7, 1)) == "week"
    assert period_unit(datetime(2024, 1, 1), datetime(2024, 7, 3)) == "month"
    assert period_start(datetime(2024, 5, 5, 23), "week") == date(2024, 4, 29)
    assert period_start(datetime(2024, 5, 5), "month") == date(2024, 5, 1)
    pages = [RunPage(1, "a", "2023-11-20", None, None, False, False),
             RunPage(2, "a", "2024-02-02", None, None, False, False),
             RunPage(3, "a", "2024-02-09", None, None, False, False),
             RunPage(4, "a", "2024-06-09", None, None, False, False)]
    c = summarise(pages)
    assert c.unit == "month"
    assert [(p.start.isoformat(), p.pages) for p in c.periods] == [
        ("2023-11-01", 1), ("2023-12-01", 0), ("2024-01-01", 0), ("2024-02-01", 2),
        ("2024-03-01", 0), ("2024-04-01", 0), ("2024-05-01", 0), ("2024-06-01", 1)]


def test_one_page_run_and_run_with_no_clusters(tmp_path):
    with save(tmp_path, [page(0, "a.test", "2024-01-01")], [], name="one") as project:
        c = corpus_numbers(project.reader())
    assert (c.pages, c.clusters, c.singles, c.copies) == (1, 0, 1, 0)
    assert c.sources == () and c.periods == (Period(date(2024, 1, 1), 1, 0),)


def test_skipped_pages_are_not_counted(tmp_path):
    pages = [page(0, "a.test", "2024-01-01"), page(1, "a.test", "2024-01-02"),
             page(2, "a.test", "2024-01-03", skip="too little text")]
    with save(tmp_path, pages, [[0, 1]]) as project:
        c = corpus_numbers(project.reader())
    assert c.pages == 2 and c.sites[0].pages == 2


def test_no_run_at_all(tmp_path):
    from workbench.store import Project

    with Project.create(tmp_path / "empty.wbproj", str(tmp_path), coder="ann") as project:
        c = corpus_numbers(project.reader())
    assert (c.pages, c.clusters, c.periods, c.sites) == (0, 0, (), ())
