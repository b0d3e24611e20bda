"""Small hand-made runs for the figure tests: every number in them can be counted by eye."""

from __future__ import annotations

from pathlib import Path

from workbench.core.records import Cluster, PageInfo, Pair
from workbench.store import Project


def page(i: int, site: str | None, date: str | None, *, link_host: str | None = None,
         skip: str | None = None) -> PageInfo:
    url = f"https://www.{site}/story-{i}.html" if site else None
    return PageInfo(key=f"p{i}.html", source=f"p{i}.html", url=url, capture_date=date,
                    title=f"Story {i}", signature_count=100, link_host=link_host,
                    skip_reason=skip)


def save(tmp_path: Path, pages: list[PageInfo], groups: list[list[int]],
         name: str = "figs") -> Project:
    """A project whose run has ``pages`` and one cluster per group (first = reference)."""
    pairs, clusters = [], []
    for members in groups:
        pairs += [Pair(members[0], m, 0.8) for m in members[1:]]
        clusters.append(Cluster(members[0], members, [1.0] + [0.8] * (len(members) - 1)))
    project = Project.create(tmp_path / f"{name}.wbproj", str(tmp_path), coder="ann")
    project.save_run({"tau": 0.44}, "spotsigs", {"total": 1.0}, pages, pairs, clusters)
    return project


def story_run(tmp_path: Path) -> Project:
    """Nine pages. Cluster A (pages 0-4): the reference (0, a.test) was captured on
    3 May, after b.test (1, 1 May) carried the story; 2 (c.test, 2 May), 3 (a.test, 5
    May) and 4 (c.test, undated) copy it. Cluster B (pages 5, 6): a.test on 10 June and
    b.test on 12 June. Pages 7 (d.test, no URL: its links' host) and 8 are alone; 8 is
    undated."""
    pages = [page(0, "a.test", "2024-05-03T09:00:00Z"),
             page(1, "b.test", "2024-05-01T08:00:00Z"),
             page(2, "c.test", "2024-05-02T10:00:00Z"),
             page(3, "a.test", "2024-05-05T12:00:00Z"),
             page(4, "c.test", None),
             page(5, "a.test", "2024-06-10T00:00:00Z"),
             page(6, "b.test", "2024-06-12T00:00:00Z"),
             page(7, None, "2024-06-13T00:00:00Z", link_host="www.d.test"),
             page(8, "e.test", None)]
    return save(tmp_path, pages, [[0, 1, 2, 3, 4], [5, 6]])


def cluster_of(project: Project, key: str) -> int:
    page_id = project.page_id(key)
    assert page_id is not None
    cluster_id = project.cluster_of_page(page_id)
    assert cluster_id is not None
    return cluster_id
