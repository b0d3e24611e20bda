"""A cluster's spread: dates, roles (first, copy, rewrite, not this story), undated pages."""

from __future__ import annotations

from datetime import datetime

from tests.figures.runs import cluster_of, page, save, story_run
from workbench.figures.spread import UNKNOWN_SITE, cluster_spread


def test_the_first_publisher_is_the_earliest_page_not_the_reference(tmp_path):
    with story_run(tmp_path) as project:
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
        assert spread is not None
        assert spread.first is not None and spread.first.site == "b.test"
        assert [(p.site, p.role) for p in spread.pages] == [
            ("b.test", "first"), ("c.test", "copy"), ("a.test", "copy"), ("a.test", "copy"),
            ("c.test", "copy")]
        assert [p.site for p in spread.undated] == ["c.test"]  # listed, not dropped
        assert spread.sites == ["b.test", "c.test", "a.test"]
        assert spread.first.when == datetime(2024, 5, 1, 8)
        assert spread.first.when_from == "captured"
        assert spread.span_days == 4 + 4 / 24
        assert [p.is_reference for p in spread.pages].count(True) == 1


def test_excluded_pages_are_shown_as_such_and_never_first(tmp_path):
    with story_run(tmp_path) as project:
        cid = cluster_of(project, "p0.html")
        project.set_excluded(cid, [project.page_id("p1.html")], True)
        spread = cluster_spread(project.reader(), cid)
        roles = {p.site + str(p.when and p.when.day): p.role for p in spread.pages}
        assert roles["b.test1"] == "excluded"
        assert roles["c.test2"] == "first"


def test_rewrites_given_are_drawn_as_rewrites_not_copies(tmp_path):
    with story_run(tmp_path) as project:
        cid = cluster_of(project, "p0.html")
        outside = [project.page_id("p7.html"), project.page_id("p0.html")]  # p0 is inside
        spread = cluster_spread(project.reader(), cid, related=outside)
        rewrites = [p for p in spread.pages if p.role == "rewrite"]
        assert [(p.page_id, p.site) for p in rewrites] == [(outside[0], "d.test")]
        assert len(spread.pages) == 6


def test_no_dated_page_means_no_first_publisher(tmp_path):
    with save(tmp_path, [page(0, "a.test", None), page(1, None, None)], [[0, 1]]) as project:
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
        assert spread.first is None and spread.dated == [] and len(spread.undated) == 2
        assert spread.span_days is None
        assert {p.site for p in spread.pages} == {"a.test", UNKNOWN_SITE}


def test_a_cluster_that_is_gone_has_no_spread(tmp_path):
    with story_run(tmp_path) as project:
        assert cluster_spread(project.reader(), 10_000) is None


def test_stored_publication_dates_are_used_once_pages_have_them(tmp_path):
    """A page's stored publication date comes before its capture date."""
    from workbench.figures.corpus import corpus_numbers
    from workbench.figures.timeline import date_label

    with story_run(tmp_path) as project:
        with project.bookkeeping() as conn:
            conn.execute("UPDATE pages SET published = '2024-04-20' WHERE key = 'p3.html'")
        spread = cluster_spread(project.reader(), cluster_of(project, "p0.html"))
        first = spread.first
        assert (first.site, first.when_from, first.when) == ("a.test", "published",
                                                             datetime(2024, 4, 20))
        assert date_label(spread) == "Date (published, else captured)"
        c = corpus_numbers(project.reader())
        assert dict(c.dated_from) == {"captured": 6, "published": 1}
        assert [s.site for s in c.sources][0] == "a.test"
