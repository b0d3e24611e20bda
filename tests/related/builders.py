"""A small run with related pairs below τ: three clusters and the pairs that tie them.

Pages 0-2 are cluster A (0 the reference), 3-4 cluster B, 5 alone (C); page i is on site
"site{i % 3}". Below τ (0.4) and above the pair floor (0.15): 2-3 at 0.30 and 2-4 at 0.20
tie A to B, 0-5 at 0.25 ties A to C; 1-4 at 0.35 lies within one site (site1), so it is no
link; 4-5 at 0.10 is under the floor (a run never stores it; here it checks the floor).
"""

from __future__ import annotations

from pathlib import Path

from tests.store.builders import groups_run
from workbench.core.records import Pair
from workbench.store import Project

PARAMS = {"tau": 0.4, "pair_floor": 0.15}
BELOW_TAU = [Pair(2, 3, 0.30), Pair(2, 4, 0.20), Pair(0, 5, 0.25), Pair(1, 4, 0.35),
             Pair(4, 5, 0.10)]


def save_related_run(project: Project, params: dict | None = None) -> None:
    pages, pairs, clusters = groups_run([3, 2, 1])
    project.save_run(params or PARAMS, "spotsigs", {"total": 1.0}, pages, pairs + BELOW_TAU,
                     clusters)


def related_project(path: Path) -> Project:
    project = Project.create(path, str(path.parent / "crawl"), coder="ann")
    save_related_run(project)
    return project


def cluster_of_key(project: Project, key: str) -> int:
    page = project.page_id(key)
    assert page is not None
    cid = project.cluster_of_page(page)
    assert cid is not None
    return cid


def key(i: int) -> str:
    return f"site{i % 3}/page{i}.html"
