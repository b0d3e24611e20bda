"""The coding flow's store side: splits keep tags, "not this story" exceptions."""

from __future__ import annotations

from pathlib import Path

from tests.store.builders import cluster_ids, new_project, snapshot, tag_id
from workbench.store import Project


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
