"""Every user action is one transaction, logged, undoable and redoable."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, snapshot, tag_id
from workbench.store import Project, ProjectError


def _actions(project: Project) -> dict[str, Callable[[], object]]:
    ids = cluster_ids(project)
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    return {
        "tag": lambda: project.tag_clusters(ids[:2], [unions, fem]),
        "untag": lambda: project.untag_clusters(ids[:1], [fem]),
        "tag_pages": lambda: project.tag_pages([project.members(ids[2])[0].page_id], [fem]),
        "split": lambda: project.split(ids[0], [project.members(ids[0])[0].page_id]),
        "merge": lambda: project.merge(ids[1:3]),
        "memo": lambda: project.add_memo(ids[0], "odd date"),
        "add_tag": lambda: project.add_tag("strikes", parent_id=unions),
        "edit_tag": lambda: project.edit_tag(unions, name="labour", colour="#123456"),
        "delete_tag": lambda: project.delete_tag(fem),
        "review": lambda: project.set_review(ids[:3], True),
        "exclude": lambda: project.set_excluded(ids[0], [project.members(ids[0])[1].page_id],
                                                True),
    }


@pytest.mark.parametrize("kind", [
    "tag", "untag", "tag_pages", "split", "merge", "memo", "add_tag", "edit_tag",
    "delete_tag", "review", "exclude"])
def test_each_action_undoes_and_redoes_exactly(tmp_path: Path, kind: str) -> None:
    project = new_project(tmp_path, [4, 3, 2, 1])
    ids = cluster_ids(project)
    project.tag_clusters(ids[:1], [tag_id(project, "feminism")])  # something to lose
    project.add_memo(ids[1], "first memo")
    before = snapshot(project.path)
    result = _actions(project)[kind]()
    assert result.action_id is not None  # type: ignore[attr-defined]
    after = snapshot(project.path)
    assert after != before
    assert project.next_undo().kind.startswith(kind.split("_")[0])  # type: ignore[union-attr]
    assert project.undo() == result.action_id  # type: ignore[attr-defined]
    assert snapshot(project.path) == before
    assert project.redo() == result.action_id  # type: ignore[attr-defined]
    assert snapshot(project.path) == after
    assert project.integrity_problems() == []


def test_undo_and_redo_survive_reopening(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    path = project.path
    a, b = cluster_ids(project)
    base = snapshot(path)
    tagged = project.tag_clusters([a], [tag_id(project, "unions")]).action_id
    merged = project.merge([a, b]).action_id
    final = snapshot(path)
    project.close()
    with Project.open(path, backups=0) as project:
        assert project.undo() == merged
    with Project.open(path, backups=0) as project:
        assert project.next_redo().id == merged  # type: ignore[union-attr]
        assert project.undo() == tagged
    assert snapshot(path) == base
    with Project.open(path, backups=0) as project:
        assert project.redo() == tagged
        assert project.redo() == merged
        assert project.redo() is None
    assert snapshot(path) == final


def test_new_action_discards_the_redo_stack(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    a, b = cluster_ids(project)
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    first = project.tag_clusters([a], [unions]).action_id
    project.undo()
    project.tag_clusters([b], [fem])
    assert project.redo() is None
    assert {h.id: h.state for h in project.history()}[first] == "discarded"


def test_failed_action_leaves_no_trace(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    before = snapshot(project.path)
    last = project.next_undo()
    with pytest.raises(ProjectError):
        project.tag_clusters(cluster_ids(project), [999])
    with pytest.raises(ProjectError, match="already has a tag"):
        project.add_tag("UNIONS")
    with pytest.raises(ProjectError, match="may not start"):
        project.add_tag("=cmd()")
    with pytest.raises(ProjectError, match="Shortcut"):
        project.add_tag("new", shortcut="1")
    assert snapshot(project.path) == before
    assert project.next_undo() == last


def test_history_records_coder_and_description(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    project.use_coder("bob")
    project.tag_clusters(cluster_ids(project), [tag_id(project, "unions")])
    newest = project.history(1)[0]
    assert (newest.kind, newest.coder, newest.description) == (
        "tag", "bob", "Tag 1 cluster with unions")


def test_random_sequences_undo_to_the_start_and_redo_to_the_end(tmp_path: Path) -> None:
    for seed in range(6):
        (tmp_path / str(seed)).mkdir()
        project = new_project(tmp_path / str(seed), [5, 4, 3, 3, 2, 2, 1, 1])
        rng = random.Random(seed)
        base = snapshot(project.path)
        done = []
        for _ in range(25):
            ids = cluster_ids(project)
            tags = [t.id for t in project.codebook()]
            choice = rng.choice(["tag", "untag", "split", "merge", "memo", "edit", "tagp"])
            try:
                if choice == "tag":
                    r = project.tag_clusters(rng.sample(ids, min(2, len(ids))),
                                             [rng.choice(tags)])
                elif choice == "untag":
                    r = project.untag_clusters([rng.choice(ids)], [rng.choice(tags)])
                elif choice == "split":
                    cid = rng.choice(ids)
                    r = project.split(cid, [rng.choice(project.members(cid)).page_id])
                elif choice == "merge":
                    r = project.merge(rng.sample(ids, 2))
                elif choice == "memo":
                    r = project.add_memo(rng.choice(ids), f"memo {rng.random()}")
                elif choice == "edit":
                    r = project.edit_tag(rng.choice(tags), description=str(rng.random()))
                else:
                    pid = rng.choice(project.members(rng.choice(ids))).page_id
                    r = project.tag_pages([pid], [rng.choice(tags)])
            except ProjectError:
                continue  # e.g. splitting a one-page cluster
            if r.action_id is not None:
                done.append(r.action_id)
        final = snapshot(project.path)
        assert [project.undo() for _ in done] == done[::-1]
        assert project.undo() in (None, *range(1, 4))  # only the codebook setup remains
        while project.undo() is not None:
            pass
        while project.redo() is not None:
            pass
        assert snapshot(project.path) == final
        while project.undo() is not None:
            pass
        for _ in range(3):  # redo the three add_tag actions of the setup
            project.redo()
        assert snapshot(project.path) == base
        assert project.integrity_problems() == []
        project.close()
