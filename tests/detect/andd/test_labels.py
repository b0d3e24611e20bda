"""What ANDD learns from: a gold folder's clusters, and a coder's judgements in a project
(read without writing anything)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, snapshot, tag_id
from workbench.detect.andd.labels import Labelled, labelled_from_gold, labelled_from_project
from workbench.store import Project, ProjectError


def test_a_gold_folders_subfolders_are_its_clusters():
    keys = ["Adobe/a1.htm", "Adobe/a2.htm", "Iraq/i1.htm", "loose.htm", "Adobe/a3.htm"]
    labelled = labelled_from_gold(keys)
    assert labelled.groups == [[0, 1, 4], [2]] and labelled.negatives == []
    assert labelled.clusters == [[0, 1, 4]]
    assert labelled.describe() == "2 checked clusters (4 pages), 0 pairs kept apart"


def test_labels_move_onto_another_list_of_pages():
    labelled = Labelled(["a", "b", "c", "d"], [[0, 1, 2]], [(0, 3), (2, 3)], [[0, 1, 2]])
    moved = labelled.reindexed(["d", "x", "c", "a"])  # b is gone
    assert moved.keys == ["d", "x", "c", "a"]
    assert moved.groups == [[2, 3]] and moved.negatives == [(0, 2), (0, 3)]
    assert moved.clusters == [[2, 3]] and moved.positive_pairs == 1


def _index(labelled: Labelled, *pages: int) -> list[int]:
    """Run indexes of builder pages (keys site<i % 3>/page<i>.html)."""
    return sorted(labelled.keys.index(f"site{i % 3}/page{i}.html") for i in pages)


def test_a_projects_checked_clusters_and_the_pairs_the_coder_kept_apart(tmp_path: Path):
    project = new_project(tmp_path, [3, 3, 2, 2, 2, 2])
    ids = {tuple(m.page_id for m in project.members(c)): c for c in cluster_ids(project)}
    page_ids = project.run_page_ids()  # by run index = builder page number here
    a, b, c, _d, e, f = (ids[tuple(page_ids[i] for i in pages)] for pages in
                         ([0, 1, 2], [3, 4, 5], [6, 7], [8, 9], [10, 11], [12, 13]))
    unions = tag_id(project, "unions")
    project.tag_clusters([a], [unions])
    project.set_excluded(b, [page_ids[5]], True)  # not this story
    project.tag_clusters([b], [unions])
    project.split(c, [page_ids[7]])  # uncoded: a negative, no group
    project.merge([e, f])  # a hand merge: the parts belong together
    before = snapshot(project.path)

    labelled = labelled_from_project(project)

    assert snapshot(project.path) == before  # read, never written
    assert labelled.keys == [f"site{i % 3}/page{i}.html" for i in range(14)]
    assert sorted(labelled.groups) == [_index(labelled, 0, 1, 2), _index(labelled, 3, 4),
                                       _index(labelled, 10, 11, 12, 13)]
    assert labelled.negatives == [(3, 5), (6, 7)]
    assert sorted(labelled.clusters) == [[0, 1, 2], [3, 4, 5], [8, 9], [10, 11, 12, 13]]
    assert labelled.describe() == "3 checked clusters (9 pages), 2 pairs kept apart"
    project.close()


def test_a_read_only_project_can_be_learned_from(tmp_path: Path):
    project = new_project(tmp_path, [2, 2])
    project.tag_clusters([cluster_ids(project)[0]], [tag_id(project, "unions")])
    project.close()
    with Project.open(tmp_path / "study.wbproj", readonly=True) as readonly:
        labelled = labelled_from_project(readonly)
    assert len(labelled.groups) == 1 and len(labelled.clusters) == 2


def test_a_project_without_a_run_says_what_to_do(tmp_path: Path):
    project = Project.create(tmp_path / "empty.wbproj", "/data/crawl", coder="ann")
    with pytest.raises(ProjectError, match="no detection run yet"):
        labelled_from_project(project)
    with pytest.raises(ProjectError, match="Run 7 of the project has no pages"):
        labelled_from_project(project, run_id=7)
    project.close()
