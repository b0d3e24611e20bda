"""Which clusters an action changed, so the window can show what an undo or redo did."""

from __future__ import annotations

from pathlib import Path

from tests.store.builders import cluster_ids, new_project, tag_id


def test_tagging_and_its_undo_name_the_tagged_clusters(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2, 2])
    ids = cluster_ids(project)
    done = project.tag_clusters(ids[1:3], [tag_id(project, "unions")])
    assert project.clusters_of_action(done.action_id) == sorted(ids[1:3])
    undone = project.undo()
    assert undone == done.action_id
    assert project.clusters_of_action(undone) == sorted(ids[1:3])


def test_split_names_both_clusters_and_its_undo_only_the_one_left(tmp_path: Path) -> None:
    project = new_project(tmp_path, [4, 2])
    big = cluster_ids(project)[0]
    member = project.members(big)[-1].page_id
    split = project.split(big, [member])
    assert project.clusters_of_action(split.action_id) == sorted([big, split.id])
    project.undo()
    assert project.clusters_of_action(split.action_id) == [big]
    project.redo()
    assert project.clusters_of_action(split.action_id) == sorted([big, split.id])
