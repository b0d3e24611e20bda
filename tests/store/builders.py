"""Small synthetic runs for store and export tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from workbench.core.records import Cluster, PageInfo, Pair
from workbench.store import Project


def page(i: int, **kw: object) -> PageInfo:
    key = f"site{i % 3}/page{i}.html"
    fields: dict = {"key": key, "source": key, "title": f"Story {i}",
                    "url": f"http://site{i % 3}.example.org/{i}", "checksum": f"c{i}",
                    "signature_count": 20 + i}
    fields.update(kw)
    return PageInfo(**fields)


def groups_run(sizes: list[int], skipped: int = 0) -> tuple[list[PageInfo], list[Pair],
                                                             list[Cluster]]:
    """Clusters of the given sizes (pages numbered consecutively), each member
    paired with its reference at similarity 0.9 - 0.01 * position."""
    pages, pairs, clusters = [], [], []
    i = 0
    for size in sizes:
        members = list(range(i, i + size))
        pages += [page(j) for j in members]
        sims = [1.0] + [round(0.9 - 0.01 * k, 2) for k in range(1, size)]
        pairs += [Pair(members[0], m, s) for m, s in zip(members[1:], sims[1:], strict=True)]
        clusters.append(Cluster(members[0], members, sims))
        i += size
    for _ in range(skipped):
        pages.append(page(i, skip_reason="too little text: 2 signatures (minimum 5)"))
        i += 1
    return pages, pairs, clusters


def new_project(tmp_path: Path, sizes: list[int], *, skipped: int = 0,
                tags: tuple[str, ...] = ("unions", "feminism", "local issue")) -> Project:
    project = Project.create(tmp_path / "study.wbproj", "/data/crawl", coder="ann")
    pages, pairs, clusters = groups_run(sizes, skipped)
    project.save_run({"tau": 0.4, "d": 2, "c": 3}, "spotsigs", {"total": 1.5},
                     pages, pairs, clusters)
    for n, name in enumerate(tags):
        project.add_tag(name, f"About {name}", f"#00{n}0{n}0", str(n + 1))
    return project


def cluster_ids(project: Project) -> list[int]:
    """Current clusters, largest first."""
    return [r.id for r in project.list_clusters(limit=10_000)]


def tag_id(project: Project, name: str) -> int:
    tag = project.tag_by_name(name)
    assert tag is not None
    return tag.id


_SNAPSHOT_TABLES = ("tags", "page_tags", "clusters", "cluster_members", "memos", "splits",
                    "merges", "cluster_summary", "cluster_totals")


def snapshot(path: Path) -> dict[str, list[tuple]]:
    """Every row a user action may change (and the derived summary), sorted."""
    conn = sqlite3.connect(str(path))
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
                for t in _SNAPSHOT_TABLES}
    finally:
        conn.close()
