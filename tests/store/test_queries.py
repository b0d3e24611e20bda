"""Saving runs and the read queries behind the cluster list and detail panes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, groups_run, new_project, page, tag_id
from workbench.core.records import Cluster, Pair
from workbench.store import Project


def test_list_pages_through_all_clusters_largest_first(tmp_path: Path) -> None:
    sizes = [1, 5, 2, 3, 2, 4, 1, 3]
    project = new_project(tmp_path, sizes)
    pages = [project.list_clusters(offset, 3) for offset in range(0, 9, 3)]
    flat = [r for chunk in pages for r in chunk]
    assert [r.size for r in flat] == sorted(sizes, reverse=True)
    assert len({r.id for r in flat}) == len(sizes) == project.count_clusters()
    by_sim = project.list_clusters(order="similarity")
    mins = [r.min_similarity for r in by_sim if r.min_similarity is not None]
    assert mins == sorted(mins) and by_sim[-1].min_similarity is None
    with pytest.raises(ValueError):
        project.list_clusters(order="colour")


def test_coded_filter_and_counts(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2, 2, 1])
    a, b, c, _ = cluster_ids(project)
    unions = tag_id(project, "unions")
    project.tag_clusters([a], [unions])
    project.tag_pages([project.members(b)[0].page_id], [unions])
    assert [r.id for r in project.list_clusters(coded="all")] == [a]
    assert [r.id for r in project.list_clusters(coded="some")] == [b]
    assert len(project.list_clusters(coded="none")) == 2 == project.count_clusters(coded="none")
    counts = project.counts()
    assert (counts.clusters, counts.clusters_all_coded, counts.clusters_some_coded,
            counts.pages, counts.pages_coded) == (4, 1, 1, 8, 4)
    assert c not in {r.id for r in project.list_clusters(coded="all")}


def test_cluster_row_fields(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4])
    (row,) = project.list_clusters()
    assert row.size == 4 and row.reference_title == "Story 0"
    assert row.min_similarity == pytest.approx(0.87)
    assert row.mean_similarity == pytest.approx((0.89 + 0.88 + 0.87) / 3)
    assert row.sites == ("site0.example.org", "site1.example.org", "site2.example.org")
    assert row.site_count == 3 and row.coded == "none" and row.memo_count == 0
    project.add_memo(row.id, "look again")
    assert project.cluster(row.id).memo_count == 1  # type: ignore[union-attr]
    assert [m.text for m in project.memos(row.id)] == ["look again"]


def test_members_and_provenance(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p.wbproj", "/crawl", coder="ann")
    pages = [page(0, source="crawl.warc.gz", key="crawl.warc.gz#1234", offset=1234,
                  capture_date="2020-05-01T12:00:00Z", http_status=200,
                  content_type="text/html", encoding="utf-8"),
             page(1), page(2)]
    pairs = [Pair(0, 1, 0.7), Pair(0, 2, 0.9), Pair(1, 2, 0.6)]
    project.save_run({}, "spotsigs", {}, pages, pairs, [Cluster(0, [0, 1, 2])])
    (cid,) = cluster_ids(project)
    members = project.members(cid)
    assert [(m.key, m.similarity, m.is_reference) for m in members] == [
        ("crawl.warc.gz#1234", 1.0, True), ("site2/page2.html", 0.9, False),
        ("site1/page1.html", 0.7, False)]  # similarities filled in from the pairs
    detail = project.page(members[0].page_id)
    assert detail is not None
    assert (detail.source, detail.offset, detail.capture_date, detail.http_status,
            detail.encoding, detail.cluster_id) == (
        "crawl.warc.gz", 1234, "2020-05-01T12:00:00Z", 200, "utf-8", cid)
    assert project.pair_similarity(members[1].page_id, members[2].page_id) == 0.6
    assert project.page_id("crawl.warc.gz#1234") == members[0].page_id


def test_runs_match_pages_by_key_and_store_skips_and_singletons(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2], skipped=1)
    ids_before = {project.page_id(f"site{i % 3}/page{i}.html") for i in range(2)}
    pages, _, _ = groups_run([2], skipped=1)
    pages.append(page(3))
    run2 = project.save_run({"tau": 0.9}, "spotsigs", {"total": 0.1}, pages, [], [],
                            singletons=True)
    assert {project.page_id(f"site{i % 3}/page{i}.html") for i in range(2)} == ids_before
    assert [r.id for r in project.runs()] == [1, run2]
    assert project.current_run().params == {"tau": 0.9}  # type: ignore[union-attr]
    assert project.count_clusters() == 3  # three one-page clusters
    assert project.skipped_pages() == [
        ("site2/page2.html", "too little text: 2 signatures (minimum 5)")]


@pytest.mark.parametrize("clusters, pairs, message", [
    ([Cluster(0, [1, 0])], [], "start with the reference"),
    ([Cluster(0, [0, 9])], [], "outside"),
    ([Cluster(0, [0, 1]), Cluster(1, [1])], [], "in two clusters"),
    ([Cluster(0, [0, 2])], [], "skipped page"),
    ([], [Pair(0, 0, 1.0)], "outside"),
])
def test_inconsistent_runs_are_refused(tmp_path: Path, clusters: list[Cluster],
                                       pairs: list[Pair], message: str) -> None:
    project = Project.create(tmp_path / "p.wbproj", "/crawl")
    pages, _, _ = groups_run([2], skipped=1)
    with pytest.raises(ValueError, match=message):
        project.save_run({}, "spotsigs", {}, pages, pairs, clusters)
    assert project.runs() == []


def test_save_run_reports_progress(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p.wbproj", "/crawl")
    seen: list[tuple[str, int, int | None]] = []
    pages, pairs, clusters = groups_run([3, 2])
    project.save_run({}, "spotsigs", {}, pages, pairs, clusters,
                     progress=lambda s, d, t: seen.append((s, d, t)))
    assert seen[0] == ("save", 0, seen[0][2]) and seen[-1][1] == seen[-1][2]


def test_cancelled_save_leaves_nothing(tmp_path: Path) -> None:
    from workbench.core.progress import Cancelled

    project = Project.create(tmp_path / "p.wbproj", "/crawl")
    pages, pairs, clusters = groups_run([3, 2])

    def cancel(stage: str, done: int, total: int | None) -> None:
        if done:
            raise Cancelled

    with pytest.raises(Cancelled):
        project.save_run({}, "spotsigs", {}, pages, pairs, clusters, progress=cancel)
    assert project.runs() == [] and project.page_id(pages[0].key) is None
    assert project.count_clusters() == 0
