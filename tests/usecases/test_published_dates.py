"""Issue 35: after a run, htmldate dates the clustered pages that state no date for
machines (a byline in the visible text), and leaves stated dates and lone pages alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.store import Project
from workbench.usecases import published_dates
from workbench.usecases.pipeline import run_into_project
from workbench.usecases.published_dates import date_clustered_pages

DATES = Path(__file__).resolve().parents[1] / "data" / "dates"
_STORY = " ".join(f"<p>After a year away, the choir festival came back to the old town squares with "
                  f"forty choirs singing from morning until late, report {i}.</p>" for i in range(30))


def _dates(project: Project) -> dict[str, tuple[str | None, str | None, int]]:
    dated = {}
    for row in project.list_clusters():
        for member in project.members(row.id):
            page = project.page(member.page_id)
            assert page is not None
            dated[page.source] = (page.published, page.published_from, row.size)
    return dated


def test_clustered_pages_get_the_date_their_visible_text_states(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    text = (DATES / "published_text.html").read_text(encoding="utf-8")
    meta = (DATES / "published_meta.html").read_text(encoding="utf-8")
    (crawl / "choir-a.html").write_text(text.replace("</h1>", "</h1>" + _STORY), encoding="utf-8")
    (crawl / "choir-b.html").write_text(meta.replace("</h1>", "</h1>" + _STORY), encoding="utf-8")
    lone = text.replace("April 8, 2005", "May 2, 2006")
    (crawl / "lone.html").write_text(lone.replace("choir festival", "ferry timetable"), encoding="utf-8")
    with Project.create(tmp_path / "p.wbproj", str(crawl), coder="ann") as project:
        run_into_project(project, crawl, workers=1)
        assert _dates(project)["choir-a.html"] == (None, None, 2)  # saving the run reads nothing again
        assert date_clustered_pages(project) == 1
        dated = _dates(project)
        assert dated["choir-a.html"] == ("2005-04-08", "htmldate", 2)
        assert dated["choir-b.html"] == ("2005-04-08", "meta", 2)
        assert dated["lone.html"] == (None, None, 1)  # not in a cluster: not read again
        big = project.list_clusters()[0]
        assert big.first_seen == big.last_seen == "2005-04-08"
        # Another run keeps what htmldate found while the page is the same: nothing is read.
        read: list[str] = []
        real = published_dates.read_raw
        monkeypatch.setattr(published_dates, "read_raw", lambda root, source, offset: read.append(source)
                            or real(root, source, offset))
        run_into_project(project, crawl, workers=1)
        assert _dates(project)["choir-a.html"] == ("2005-04-08", "htmldate", 2)
        assert date_clustered_pages(project) == 0 and read == []
        # A changed page is read again.
        (crawl / "choir-a.html").write_text(text.replace("April 8, 2005", "April 9, 2005")
                                            .replace("</h1>", "</h1>" + _STORY), encoding="utf-8")
        run_into_project(project, crawl, workers=1)
        assert date_clustered_pages(project) == 1 and read == ["choir-a.html"]
        assert _dates(project)["choir-a.html"] == ("2005-04-09", "htmldate", 2)


def test_workbench_dedup_with_a_project_runs_the_date_pass_and_exports_it(tmp_path: Path) -> None:
    import csv

    from workbench.commands.cli import main

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    text = (DATES / "published_text.html").read_text(encoding="utf-8")
    for name in ("choir-a.html", "choir-b.html"):
        (crawl / name).write_text(text.replace("</h1>", "</h1>" + _STORY), encoding="utf-8")
    project, out = tmp_path / "p.wbproj", tmp_path / "pages.csv"
    assert main(["dedup", str(crawl), "--project", str(project), "-q"]) == 0
    assert main(["export", str(project), "--out", str(out), "--all"]) == 0
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {(r["path"], r["published"], r["published_from"]) for r in rows} == {
        ("choir-a.html", "2005-04-08", "htmldate"), ("choir-b.html", "2005-04-08", "htmldate")}


def test_a_page_htmldate_finds_nothing_in_is_read_once_and_shows_no_source(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for name in ("a.html", "b.html"):
        (crawl / name).write_text(f"<html><head><title>Choir</title></head><body>{_STORY}</body></html>",
                                  encoding="utf-8")
    with Project.create(tmp_path / "p.wbproj", str(crawl), coder="ann") as project:
        run_into_project(project, crawl, workers=1)
        assert date_clustered_pages(project) == 0
        assert published_dates.undated_clustered_pages(project.reader()) == []
        assert set(_dates(project).values()) == {(None, None, 2)}


def test_the_pass_in_worker_processes_finds_what_it_finds_in_one(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A large run reads its pages' dates in the worker pool, a task of pages at a time:
    every page read once, the same dates as in the calling process, moved pages passed by."""
    text = (DATES / "published_text.html").read_text(encoding="utf-8")
    root = tmp_path / "crawl"
    root.mkdir()
    pages = []
    for i in range(9):
        day = f"April {i + 1}, 2005"
        (root / f"p{i}.html").write_text(text.replace("April 8, 2005", day), encoding="utf-8")
        pages.append((i + 1, f"p{i}.html", None, None))
    pages.append((99, "gone.html", None, None))  # moved since the run
    monkeypatch.setattr(published_dates, "POOL_PAGES", 2)
    monkeypatch.setattr(published_dates, "TASK_PAGES", 3)
    seen: list[int] = []
    in_pool = list(published_dates._found_dates(str(root), pages, lambda _s, n, _t: seen.append(n), 2))
    here = list(published_dates._found_dates(str(root), pages, lambda *_: None, 1))
    assert sorted(in_pool, key=lambda f: f[1]) == sorted(here, key=lambda f: f[1])
    assert [page_id for _, page_id in in_pool] == list(range(1, 10))  # in order, the gone page left out
    assert in_pool[0][0] == "2005-04-01" and in_pool[8][0] == "2005-04-09"
    assert seen[-1] == len(pages) and seen == sorted(seen)  # progress by whole tasks, to the end
