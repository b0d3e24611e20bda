"""Pairs below τ, clustering a run again from its stored pairs, and boilerplate shares."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from tests.store.builders import page, tag_id
from workbench.core.clusters.calibration import Calibration, labels_of, run_floor
from workbench.core.records import Cluster, Pair
from workbench.store import Project, ProjectError

# Two stories: pages 0-2 (0.9 among them) and 3-4 (0.8); pages 2 and 3 share 0.35;
# page 5 is near page 4 at 0.25, page 6 is alone. τ 0.5, pairs kept down to 0.2.
PAIRS = [(0, 1, 0.9), (0, 2, 0.9), (1, 2, 0.9), (3, 4, 0.8), (2, 3, 0.35), (4, 5, 0.25)]


def floor_project(tmp_path: Path, shares: list[float | None] | None = None) -> Project:
    project = Project.create(tmp_path / "floor.wbproj", "/crawl", coder="ann")
    pages = [page(i) for i in range(7)]
    pairs = [Pair(a, b, s) for a, b, s in PAIRS]
    clusters = [Cluster(0, [0, 1, 2], [1.0, 0.9, 0.9], shares),
                Cluster(3, [3, 4], [1.0, 0.8])]
    project.save_run({"tau": 0.5, "pair_floor": 0.2, "cluster_method": "star"}, "spotsigs", {},
                     pages, pairs, clusters)
    for name in ("unions", "feminism"):
        project.add_tag(name)
    return project


def cluster_of_key(project: Project, key: str) -> int | None:
    pid = project.page_id(key)
    assert pid is not None
    return project.cluster_of_page(pid)


def test_run_graph_and_groups_are_page_indexes_of_the_run(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    g = project.run_graph()
    assert g.n == 7
    assert sorted(zip(g.a.tolist(), g.b.tolist(), g.similarity.tolist(), strict=True)) == sorted(PAIRS)
    assert list(g.similarity) == sorted(g.similarity, reverse=True)
    assert sorted(map(sorted, project.run_groups())) == [[0, 1, 2], [3, 4]]
    assert project.hand_edits() == 0
    # A hand split shows in the groups and is counted.
    (big,) = [r.id for r in project.list_clusters() if r.size == 3]
    project.split(big, [project.members(big)[2].page_id])
    assert sorted(map(sorted, project.run_groups())) == [[0, 1], [3, 4]]
    assert project.hand_edits() == 1
    project.undo()
    assert project.hand_edits() == 0


def test_recluster_lower_tau_merges_as_the_presenter_predicts_and_keeps_tags(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    first = project.current_run()
    assert first is not None
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    a = cluster_of_key(project, page(0).key)
    b = cluster_of_key(project, page(3).key)
    assert a is not None and b is not None
    project.tag_clusters([a], [unions])
    project.tag_clusters([b], [fem])
    tagged_before = {m.page_id: project.page(m.page_id).tags  # type: ignore[union-attr]
                     for cid in (a, b) for m in project.members(cid)}

    cal = Calibration(project.run_graph(), labels_of(7, project.run_groups()), method="star",
                      run_tau=0.5, floor=run_floor(first.params))
    predicted = cal.counts(0.3)
    run2 = project.recluster(0.3)

    run = project.current_run()
    assert run is not None and run.id == run2 != first.id
    assert run.params["tau"] == 0.3 and run.params["pair_floor"] == 0.2
    assert run.params["reclustered_from"] == first.id and run.page_count == 7
    rows = project.list_clusters(limit=100)
    multi = [r for r in rows if r.size >= 2]
    assert len(multi) == predicted.change.clusters
    assert sum(r.size for r in multi) == predicted.change.pages
    assert sorted(sorted(m.key for m in project.members(r.id)) for r in multi) == sorted(
        sorted(page(i).key for i in c.members) for c in cal.clusters(0.3))
    # The same page rows: tags are exactly where they were, with their provenance.
    for pid, tags in tagged_before.items():
        assert project.page(pid).tags == tags  # type: ignore[union-attr]
    merged = cluster_of_key(project, page(0).key)
    assert merged == cluster_of_key(project, page(3).key)
    row = project.cluster(merged)  # type: ignore[arg-type]
    assert row is not None and row.needs_review and {t.name: t.state for t in row.tags} == {
        "unions": "some", "feminism": "some"}
    # Every page of the run is in the list once; the pairs were carried over.
    assert sum(r.size for r in rows) == 7
    assert project.run_graph().n == 7 and len(project.run_graph()) == len(PAIRS)
    assert project.integrity_problems() == []


def test_members_not_paired_with_their_reference_are_below_the_floor(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "star.wbproj", "/crawl", coder="ann")
    # Reference 0 with members 1-3 (0.9); page 4 is 0.6 to each of 1-3 but shares less
    # than the floor with 0. At 0.5 star clustering admits 4 through the members.
    pairs = [Pair(0, m, 0.9) for m in (1, 2, 3)] + [Pair(4, m, 0.6) for m in (1, 2, 3)]
    project.save_run({"tau": 0.7, "pair_floor": 0.5}, "spotsigs", {}, [page(i) for i in range(5)],
                     pairs, [Cluster(0, [0, 1, 2, 3], [1.0, 0.9, 0.9, 0.9])])
    project.recluster(0.5)
    (big,) = [r for r in project.list_clusters() if r.size >= 3]
    sims = {m.key: m.similarity for m in project.members(big.id)}
    ref = next(m for m in project.members(big.id) if m.is_reference)
    unknown = [k for k, s in sims.items() if s is None]
    assert unknown == [page(4).key]
    for key in unknown:
        assert project.pair_similarity(ref.page_id, project.page_id(key)) is None  # type: ignore[arg-type]
    assert big.min_similarity is None and big.below_floor
    # Least similar first: the cluster with an unknown minimum leads the list.
    assert project.list_clusters(order="similarity")[0].id == big.id


def test_recluster_below_the_floor_is_refused(tmp_path: Path) -> None:
    project = floor_project(tmp_path)
    run = project.current_run()
    with pytest.raises(ProjectError, match="down to 0.20"):
        project.recluster(0.1)
    assert project.current_run() == run


def test_old_runs_without_a_pair_floor_reach_down_to_tau(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "old.wbproj", "/crawl")
    project.save_run({"tau": 0.4}, "spotsigs", {}, [page(i) for i in range(3)],
                     [Pair(0, 1, 0.5)], [Cluster(0, [0, 1], [1.0, 0.5])])
    with pytest.raises(ProjectError):
        project.recluster(0.3)
    project.recluster(0.6)
    assert project.count_clusters() == 3 and project.current_run().params["pair_floor"] == 0.4  # type: ignore[union-attr]


def test_boilerplate_share_is_stored_kept_by_recluster_and_dropped_by_split(tmp_path: Path) -> None:
    project = floor_project(tmp_path, shares=[None, 0.7, math.nan])
    (big,) = [r.id for r in project.list_clusters() if r.size == 3]
    shares = {m.key: m.boilerplate_share for m in project.members(big)}
    assert shares == {page(0).key: None, page(1).key: 0.7, page(2).key: None}
    # Same reference after clustering again at the same τ: the share still holds.
    project.recluster(0.5)
    big2 = cluster_of_key(project, page(0).key)
    assert big2 is not None and big2 != big
    assert {m.key: m.boilerplate_share for m in project.members(big2)} == shares
    # Split the reference out: the others get a new reference, so the share is unknown.
    project.split(big2, [project.page_id(page(0).key)])  # type: ignore[list-item]
    assert all(m.boilerplate_share is None for m in project.members(big2))
    project.undo()
    assert {m.key: m.boilerplate_share for m in project.members(big2)} == shares


def test_one_share_per_member_is_required(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "bad.wbproj", "/crawl")
    with pytest.raises(ValueError, match="boilerplate share"):
        project.save_run({}, "spotsigs", {}, [page(0), page(1)], [],
                         [Cluster(0, [0, 1], [1.0, 0.5], [0.2])])
    assert project.current_run() is None


def test_negative_similarity_from_clustering_is_stored_as_unknown(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "neg.wbproj", "/crawl")
    project.save_run({}, "spotsigs", {}, [page(0), page(1)], [],
                     [Cluster(0, [0, 1], [1.0, -1.0])])
    (row,) = project.list_clusters()
    assert [m.similarity for m in project.members(row.id)] == [1.0, None]
    conn = sqlite3.connect(project.path)
    assert conn.execute("SELECT count(*) FROM cluster_members WHERE similarity < 0").fetchone()[0] == 0
    conn.close()
