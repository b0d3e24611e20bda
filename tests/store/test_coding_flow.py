"""The coding flow's store side: splits keep tags, "not this story" exceptions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, snapshot, tag_id
from workbench.store import Project, ProjectError


def tag_names(project: Project, page_id: int) -> list[str]:
    detail = project.page(page_id)
    assert detail is not None
    return [t.name for t in detail.tags]


def undo_redo_exact(project: Project, act: object) -> None:
    """Run ``act`` (a callable); undo and redo must restore the tables exactly."""
    before = snapshot(project.path)
    result = act()  # type: ignore[operator]
    assert result.action_id is not None
    after = snapshot(project.path)
    assert after != before
    assert project.undo() == result.action_id
    assert snapshot(project.path) == before
    assert project.redo() == result.action_id
    assert snapshot(project.path) == after
    assert project.integrity_problems() == []


# ------------------------------------------------------------ split and merge
def test_split_out_page_keeps_the_tags_it_got_through_the_cluster(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4])
    (cid,) = cluster_ids(project)
    project.tag_clusters([cid], [tag_id(project, "unions"), tag_id(project, "feminism")])
    odd = project.members(cid)[2].page_id
    new = project.split(cid, [odd]).id
    assert new is not None
    assert tag_names(project, odd) == ["feminism", "unions"]
    assert project.cluster(new).coded == "all"  # type: ignore[union-attr]
    assert project.cluster(cid).coded == "all"  # type: ignore[union-attr]


def test_split_keeps_tags_and_undoes_exactly(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4, 2])
    big, small = cluster_ids(project)
    project.tag_clusters([small], [tag_id(project, "unions")])
    moved = project.members(small)[1].page_id
    project.merge([big, small])
    undo_redo_exact(project, lambda: project.split(big, [moved]))
    assert tag_names(project, moved) == ["unions"]


def test_merged_cluster_pages_keep_their_tags(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    big, small = cluster_ids(project)
    project.tag_clusters([small], [tag_id(project, "unions")])
    project.tag_clusters([big], [tag_id(project, "feminism")])
    pages = {m.page_id: tag_names(project, m.page_id)
             for cid in (big, small) for m in project.members(cid)}
    undo_redo_exact(project, lambda: project.merge([big, small]))
    assert {m.page_id: tag_names(project, m.page_id) for m in project.members(big)} == pages


# ------------------------------------------------------- "not this story"
@pytest.fixture
def tagged(tmp_path: Path) -> Project:
    """A four-page cluster tagged 'unions' as a whole; its third page also carries its
    own 'local issue'; and a two-page cluster."""
    project = new_project(tmp_path, [4, 2])
    big, _ = cluster_ids(project)
    project.tag_clusters([big], [tag_id(project, "unions")])
    project.tag_pages([project.members(big)[2].page_id], [tag_id(project, "local issue")])
    return project


def test_excluded_page_stays_a_member_and_loses_only_the_cluster_tags(tagged: Project) -> None:
    big, _ = cluster_ids(tagged)
    odd = tagged.members(big)[2].page_id
    result = tagged.set_excluded(big, [odd], True)
    assert result.action_id is not None
    assert tagged.next_undo().description == (  # type: ignore[union-attr]
        f"Mark 1 page of cluster {big} as not this story")
    assert [(m.page_id, m.excluded) for m in tagged.members(big) if m.excluded] == [(odd, True)]
    assert len(tagged.members(big)) == 4
    assert tag_names(tagged, odd) == ["local issue"]
    row = tagged.cluster(big)
    assert row is not None
    assert (row.size, row.excluded_count, row.coded, row.coded_pages) == (4, 1, "all", 3)
    assert {t.name: (t.state, t.pages) for t in row.tags} == {"unions": ("all", 3)}
    assert tagged.counts().clusters_all_coded == 1
    # Marking it again changes nothing and logs nothing.
    assert tagged.set_excluded(big, [odd], True).action_id is None


def test_excluding_undoes_and_redoes_exactly(tagged: Project) -> None:
    big, _ = cluster_ids(tagged)
    pages = [m.page_id for m in tagged.members(big)[1:3]]
    undo_redo_exact(tagged, lambda: tagged.set_excluded(big, pages, True))
    undo_redo_exact(tagged, lambda: tagged.set_excluded(big, pages[:1], False))


def test_cluster_actions_pass_excluded_pages_by(tagged: Project) -> None:
    big, _ = cluster_ids(tagged)
    odd = tagged.members(big)[2].page_id
    unions, fem, local = (tag_id(tagged, n) for n in ("unions", "feminism", "local issue"))
    tagged.set_excluded(big, [odd], True)
    tagged.tag_clusters([big], [fem])
    assert tag_names(tagged, odd) == ["local issue"]
    assert tagged.cluster(big).coded == "all"  # type: ignore[union-attr]
    # Toggle: every counted page has 'unions', so it is removed, but not from odd.
    tagged.tag_pages([odd], [unions])
    tagged.toggle_tag([big], unions)
    assert tag_names(tagged, odd) == ["local issue", "unions"]
    tagged.untag_clusters([big], [local, unions])
    assert tag_names(tagged, odd) == ["local issue", "unions"]
    # Its own tags do not make the cluster's tags 'some'.
    assert {t.name: t.state for t in tagged.cluster(big).tags} == {"feminism": "all"}  # type: ignore[union-attr]


def test_unmarking_gives_back_the_tags_the_rest_of_the_cluster_carries(tagged: Project) -> None:
    big, _ = cluster_ids(tagged)
    odd = tagged.members(big)[1].page_id
    tagged.set_excluded(big, [odd], True)
    assert tagged.cluster(big).coded == "all"  # type: ignore[union-attr]
    result = tagged.set_excluded(big, [odd], False)
    assert tagged.next_undo().description == (  # type: ignore[union-attr]
        f"Mark 1 page of cluster {big} as this story again")
    assert result.action_id is not None
    assert tag_names(tagged, odd) == ["unions"]
    row = tagged.cluster(big)
    assert row is not None and (row.excluded_count, row.coded, row.coded_pages) == (0, "all", 4)


def test_exclusion_refuses_the_reference_and_strangers(tagged: Project) -> None:
    big, small = cluster_ids(tagged)
    before = snapshot(tagged.path)
    with pytest.raises(ProjectError, match="reference .* Split it out"):
        tagged.set_excluded(big, [tagged.members(big)[0].page_id], True)
    with pytest.raises(ProjectError, match="not in cluster"):
        tagged.set_excluded(big, [tagged.members(small)[1].page_id], True)
    assert snapshot(tagged.path) == before


def test_split_out_excluded_page_is_a_story_of_its_own(tagged: Project) -> None:
    big, _ = cluster_ids(tagged)
    odd = tagged.members(big)[2].page_id
    tagged.set_excluded(big, [odd], True)
    new = tagged.split(big, [odd]).id
    assert new is not None
    assert [m.excluded for m in tagged.members(new)] == [False]
    assert tagged.cluster(big).excluded_count == 0  # type: ignore[union-attr]
    assert tagged.cluster(new).coded == "all"  # type: ignore[union-attr]
