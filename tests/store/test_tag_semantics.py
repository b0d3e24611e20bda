"""Tags live on pages; cluster tag state is derived; splits, merges and re-runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, groups_run, new_project, page, tag_id
from workbench.core.records import Cluster, Pair
from workbench.store import Project, ProjectError


def states(project: Project, cid: int) -> dict[str, str]:
    row = project.cluster(cid)
    assert row is not None
    return {t.name: t.state for t in row.tags}


def test_tagging_a_cluster_tags_every_page_with_provenance(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4, 2])
    big, small = cluster_ids(project)
    unions = tag_id(project, "unions")
    project.tag_clusters([big], [unions])
    row = project.cluster(big)
    assert row is not None and row.coded == "all" and row.coded_pages == 4
    assert states(project, big) == {"unions": "all"}
    assert project.cluster(small).coded == "none"  # type: ignore[union-attr]
    detail = project.page(project.members(big)[1].page_id)
    assert detail is not None
    (tag,) = detail.tags
    assert (tag.name, tag.coder, tag.via_cluster_id) == ("unions", "ann", big)
    counts = project.counts()
    assert (counts.clusters, counts.clusters_all_coded, counts.pages, counts.pages_coded) == \
        (2, 1, 6, 4)


def test_tagging_twice_changes_nothing_and_logs_nothing(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3])
    (cid,) = cluster_ids(project)
    unions = tag_id(project, "unions")
    assert project.tag_clusters([cid], [unions]).action_id is not None
    assert project.tag_clusters([cid], [unions]).action_id is None
    assert project.next_undo().kind == "tag"  # type: ignore[union-attr]


def test_toggle_untags_when_all_pages_carry_the_tag(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3])
    (cid,) = cluster_ids(project)
    unions = tag_id(project, "unions")
    project.toggle_tag([cid], unions)
    assert project.cluster(cid).coded == "all"  # type: ignore[union-attr]
    project.toggle_tag([cid], unions)
    assert project.cluster(cid).coded == "none"  # type: ignore[union-attr]


def test_split_moves_pages_with_all_their_tags(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4])
    (cid,) = cluster_ids(project)
    unions, local = tag_id(project, "unions"), tag_id(project, "local issue")
    members = project.members(cid)
    odd = members[2].page_id
    project.tag_clusters([cid], [unions])
    project.tag_pages([odd], [local])  # a direct tag: not received via the cluster
    result = project.split(cid, [odd])
    assert result.id is not None and result.id != cid
    assert [t.name for t in project.page(odd).tags] == ["local issue", "unions"]  # type: ignore[union-attr]
    assert project.cluster(cid).coded == "all"  # type: ignore[union-attr]
    assert project.cluster(cid).size == 3  # type: ignore[union-attr]
    assert states(project, result.id) == {"local issue": "all", "unions": "all"}
    assert project.cluster_of_page(odd) == result.id


def test_splitting_the_reference_promotes_the_best_match(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3])
    (cid,) = cluster_ids(project)
    ref, second, third = (m.page_id for m in project.members(cid))
    project.split(cid, [ref])
    row = project.cluster(cid)
    assert row is not None and row.reference_page_id == second
    # The builder stores only reference pairs, so the new pair is unknown.
    assert [(m.page_id, m.is_reference, m.similarity) for m in project.members(cid)] == [
        (second, True, 1.0), (third, False, None)]


def test_split_refuses_nonsense(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2, 2])
    a, b = cluster_ids(project)
    with pytest.raises(ProjectError, match="at least one page"):
        project.split(a, [m.page_id for m in project.members(a)])
    with pytest.raises(ProjectError, match="not in cluster"):
        project.split(a, [project.members(b)[0].page_id])
    assert project.next_undo().kind == "add_tag"  # type: ignore[union-attr]


def test_merge_shows_some_where_pages_differ(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    big, small = cluster_ids(project)
    unions = tag_id(project, "unions")
    project.tag_clusters([small], [unions])
    kept = project.merge([small, big]).id
    assert kept == big  # the larger cluster survives
    row = project.cluster(big)
    assert row is not None and row.size == 5 and row.coded == "some"
    assert states(project, big) == {"unions": "some"}
    assert project.cluster(small) is None
    assert project.count_clusters() == 1
    with pytest.raises(ProjectError, match="merged away"):
        project.tag_clusters([small], [unions])


def test_rerun_keeps_tags_on_pages_and_flags_mixed_clusters(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 3, 2])
    first, second, third = cluster_ids(project)
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    project.tag_clusters([first], [unions])
    project.tag_clusters([second], [fem])
    project.tag_clusters([third], [fem])
    keys_second = {m.key for m in project.members(second)}
    # Re-run: pages 0-2 (unions) join 3-5 (feminism) in one cluster; 6-7 stay
    # together with the same tags; page 8 is new.
    pages, _, _ = groups_run([3, 3, 2])
    pages.append(page(8))
    clusters = [Cluster(0, list(range(6)), [1.0] + [0.8] * 5), Cluster(6, [6, 7], [1.0, 0.85])]
    pairs = [Pair(0, i, 0.8) for i in range(1, 6)] + [Pair(6, 7, 0.85)]
    run2 = project.save_run({"tau": 0.3}, "spotsigs", {}, pages, pairs, clusters)
    assert project.current_run().id == run2  # type: ignore[union-attr]
    rows = {r.size: r for r in project.list_clusters()}
    assert rows[6].needs_review and rows[6].coded == "all"
    assert {t.name: t.state for t in rows[6].tags} == {"unions": "some", "feminism": "some"}
    assert not rows[2].needs_review and rows[2].coded == "all"
    assert rows[1].coded == "none" and not rows[1].needs_review
    assert project.count_clusters(review_only=True) == 1
    # Tags stayed on the very same page rows (matched by key).
    for m in project.members(rows[6].id):
        expected = ("feminism",) if m.key in keys_second else ("unions",)
        assert tuple(t.name for t in project.page(m.page_id).tags) == expected  # type: ignore[union-attr]
    project.set_review([rows[6].id], False)
    assert project.count_clusters(review_only=True) == 0
    project.undo()
    assert project.count_clusters(review_only=True) == 1


def test_partly_tagged_new_cluster_is_flagged(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2, 2])
    a, _ = cluster_ids(project)
    project.tag_clusters([a], [tag_id(project, "unions")])
    pages, _, _ = groups_run([2, 2])
    project.save_run({}, "spotsigs", {}, pages, [], [Cluster(0, [0, 1, 2, 3])])
    (row,) = project.list_clusters()
    assert row.needs_review and row.coded == "some"


def test_page_tags_survive_untag_of_other_tags(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    (cid,) = cluster_ids(project)
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    project.tag_clusters([cid], [unions, fem])
    project.untag_clusters([cid], [unions])
    assert states(project, cid) == {"feminism": "all"}
    pid = project.members(cid)[0].page_id
    project.untag_pages([pid], [fem])
    assert states(project, cid) == {"feminism": "some"}


@pytest.mark.parametrize("name", ["=cmd()", "+1", "@sum", "\uff1dHYPERLINK(1)", "\uff0b1",
                                  "\uff0d1", "\uff20x", "\ufe6210"])
def test_tag_names_a_spreadsheet_would_run_are_refused(tmp_path, name):
    """Full-width and small forms too: the export writes tag cells as they are stored."""
    from workbench.store import Project, ProjectError

    with Project.create(tmp_path / "p.wbproj", str(tmp_path)) as project:
        with pytest.raises(ProjectError, match="may not start"):
            project.add_tag(name)
        assert project.codebook() == []
