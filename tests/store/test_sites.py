"""A page's site: its URL's host, its links' host, a site folder, or unknown."""

from __future__ import annotations

from pathlib import Path

from tests.store.builders import page
from workbench.core.records import Cluster, PageInfo
from workbench.store import Project
from workbench.store.runs import runs
from workbench.usecases.pipeline import run_into_project


def flat(i: int, **kw: object) -> PageInfo:
    fields: dict = {"key": f"html/p{i}.html", "source": f"html/p{i}.html", "url": None}
    return page(i, **(fields | kw))


def test_site_rules_in_order() -> None:
    assert runs.site_of(flat(1, url="https://www.Example.org/a")) == "example.org"
    assert runs.site_of(flat(1, link_host="www.kgo.example.com")) == "kgo.example.com"
    assert runs.site_of(flat(1), folder_sites=True) == "html"
    assert runs.site_of(flat(1), folder_sites=False) == ""
    assert runs.site_of(page(1, key="p.html", source="p.html", url=None)) == ""


def test_one_folder_is_no_site_several_are() -> None:
    assert not runs.folders_are_sites([flat(1), flat(2), page(3, source="top.html")])
    assert runs.folders_are_sites([flat(1), page(2, source="bbc.co.uk/a.html")])


def test_list_counts_only_known_sites(tmp_path: Path) -> None:
    pages = [flat(0), flat(1, url="http://a.example.org/1"), flat(2), flat(3)]
    with Project.create(tmp_path / "p.wbproj", str(tmp_path)) as project:
        project.save_run({}, "spotsigs", {}, pages, [],
                         [Cluster(0, [0, 1], [1.0, 0.9]), Cluster(2, [2, 3], [1.0, 0.9])])
        rows = {r.reference_page_id: r for r in project.list_clusters()}
        first, second = (rows[project.page_id(f"html/p{i}.html")] for i in (0, 2))  # type: ignore[index]
        assert (first.sites, first.site_count) == (("a.example.org",), 1)
        assert (second.sites, second.site_count) == ((), 0)
        assert {m.site for m in project.members(second.id)} == {""}


STORY = ("<p>The harbour council voted on Tuesday to close the old ferry terminal after "
         "years of falling passenger numbers, and the mayor said the land would become a "
         "public park with a playground, a market hall and a path along the water.</p>" * 3)


def _write(folder: Path, name: str, head: str) -> None:
    folder.joinpath(name).write_text(
        f"<html><head><title>{name}</title>{head}</head><body><article>{STORY}"
        "</article></body></html>", encoding="utf-8")


def test_flat_folder_of_saved_pages_shows_their_hosts_not_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "crawl" / "html"
    folder.mkdir(parents=True)
    _write(folder, "a.html", '<link rel="canonical" href="https://www.harbour.example/ferry">')
    _write(folder, "b.html", '<meta property="og:url" content="https://news.example.net/f">')
    _write(folder, "c.html", "")
    with Project.create(tmp_path / "p.wbproj", str(tmp_path / "crawl")) as project:
        run_into_project(project, tmp_path / "crawl", workers=1)
        (row,) = project.list_clusters()
        assert row.size == 3
        assert (row.sites, row.site_count) == (("harbour.example", "news.example.net"), 2)
        assert sorted(m.site for m in project.members(row.id)) == [
            "", "harbour.example", "news.example.net"]
