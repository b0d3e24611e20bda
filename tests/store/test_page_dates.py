"""Issue 35: a page's dates and their sources are stored, summed up per cluster (first and
last seen), exported, and a project saved before them still opens."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, groups_run
from workbench.export import COLUMNS, export_pages
from workbench.store import CURRENT_VERSION, Project, schema

DATES = [  # (published, published_from, capture_date, captured_from) of pages 0..4
    ("2005-04-08", "meta", "2005-04-09T13:06:12Z", "links"),
    (None, None, "2005-04-10T09:15:00Z", "replay"),
    (None, None, None, None),
    ("2017-03-15", "json-ld", "2017-03-20T00:00:00Z", "archive"),
    (None, None, "2017-03-16T12:00:00Z", "archive"),
]


def dated_project(tmp_path: Path) -> Project:
    """Clusters of 3 pages (0-2) and 2 pages (3-4), with the dates above."""
    pages, pairs, clusters = groups_run([3, 2])
    for info, (published, published_from, captured, captured_from) in zip(pages, DATES, strict=True):
        info.published, info.published_from = published, published_from
        info.capture_date, info.captured_from = captured, captured_from
        info.url_from = "links" if captured_from == "links" else "archive"
    project = Project.create(tmp_path / "study.wbproj", "/data/crawl", coder="ann")
    project.save_run({"tau": 0.4}, "spotsigs", {"total": 1.0}, pages, pairs, clusters)
    return project


def test_pages_keep_their_dates_and_where_each_came_from(tmp_path: Path) -> None:
    with dated_project(tmp_path) as project:
        first = project.members(cluster_ids(project)[0])[0]
        detail = project.page(first.page_id)
        assert detail is not None
        assert (detail.published, detail.published_from, detail.capture_date, detail.captured_from,
                detail.url_from) == ("2005-04-08", "meta", "2005-04-09T13:06:12Z", "links", "links")


def test_clusters_are_first_and_last_seen_by_publication_else_capture(tmp_path: Path) -> None:
    with dated_project(tmp_path) as project:
        big, small = project.list_clusters()
        assert (big.first_seen, big.last_seen) == ("2005-04-08", "2005-04-10T09:15:00Z")
        assert big.span_days == pytest.approx(2 + 9.25 / 24)
        # Published 2017-03-15 (captured on the 20th) and captured 2017-03-16 12:00.
        assert (small.first_seen, small.last_seen) == ("2017-03-15", "2017-03-16T12:00:00Z")
        assert small.span_days == pytest.approx(1.5)


def test_a_page_marked_not_this_story_does_not_stretch_the_span(tmp_path: Path) -> None:
    with dated_project(tmp_path) as project:
        cid = cluster_ids(project)[0]
        late = next(m for m in project.members(cid) if project.page(m.page_id).captured_from == "replay")
        project.set_excluded(cid, [late.page_id], True)
        row = project.cluster(cid)
        # Left: page 0 (published 2005-04-08) and page 2 (no date at all).
        assert row is not None and (row.first_seen, row.last_seen) == ("2005-04-08", "2005-04-08")
        project.undo()
        row = project.cluster(cid)
        assert row is not None and row.last_seen == "2005-04-10T09:15:00Z"


def test_default_export_has_the_dates_and_their_sources(tmp_path: Path) -> None:
    with dated_project(tmp_path) as project:
        out = tmp_path / "pages.csv"
        export_pages(project, out, coded_only=False)
        with open(out, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    assert {"published", "published_from", "captured", "captured_from", "url_from"} <= set(COLUMNS)
    by_date = {r["captured"]: r for r in rows}
    row = by_date["2005-04-09T13:06:12Z"]
    assert (row["published"], row["published_from"], row["captured_from"], row["url_from"]) == (
        "2005-04-08", "meta", "links", "links")
    undated = by_date[""]
    assert (undated["published"], undated["published_from"], undated["captured_from"]) == ("", "", "")


def _as_saved_before_dates(path: Path) -> None:
    """Turn a project file into what the schema before the dates wrote: no date columns,
    the version of the step before theirs."""
    before = next(i for i, (script, _) in enumerate(schema.MIGRATIONS) if "published_from" in script)
    conn = sqlite3.connect(path)
    for table, column in (("pages", "url_from"), ("pages", "captured_from"), ("pages", "published"),
                          ("pages", "published_from"), ("cluster_summary", "first_seen"),
                          ("cluster_summary", "last_seen")):
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.execute(f"PRAGMA user_version = {before}")
    conn.commit()
    conn.close()


def test_a_project_saved_before_dates_opens_with_them_empty(tmp_path: Path) -> None:
    project = dated_project(tmp_path)
    path = project.path
    tagged = cluster_ids(project)[0]
    project.set_review([tagged], True)
    project.close()
    _as_saved_before_dates(path)
    with Project.open(path) as project:
        assert project.schema_version == CURRENT_VERSION
        rows = project.list_clusters()
        assert [r.size for r in rows] == [3, 2]
        assert all(r.first_seen is None and r.last_seen is None and r.span_days is None for r in rows)
        assert project.cluster(tagged).needs_review  # type: ignore[union-attr]
        detail = project.page(project.members(tagged)[0].page_id)
        assert detail is not None and detail.capture_date == "2005-04-09T13:06:12Z"
        assert (detail.published, detail.published_from, detail.captured_from, detail.url_from) == (
            None, None, None, None)
        assert project.integrity_problems() == []
        export_pages(project, tmp_path / "old.csv", coded_only=False)
        # A new run fills them in.
        pages, pairs, clusters = groups_run([3, 2])
        pages[0].published, pages[0].published_from = "2005-04-01", "meta"
        project.save_run({"tau": 0.4}, "spotsigs", {"total": 1.0}, pages, pairs, clusters)
        assert project.list_clusters()[0].first_seen == "2005-04-01"
