"""A dismissal is a coder's judgement: kept by page key, undoable, across re-runs,
re-clusterings and reopening, in the learning's pairs kept apart and in the export."""

from __future__ import annotations

from tests.related.builders import cluster_of_key, key, related_project, save_related_run
from workbench.detect.andd.labels import labelled_from_project
from workbench.store import Project


def _related_ids(project: Project, page: int) -> list[int]:
    return [r.cluster for r in project.related(cluster_of_key(project, key(page)))]


def test_dismissal_is_undoable_and_survives_rerun_recluster_and_reopen(tmp_path):
    path = tmp_path / "p.wbproj"
    with related_project(path) as project:
        a, b = cluster_of_key(project, key(0)), cluster_of_key(project, key(3))
        item = project.related(a)[0]
        assert item.cluster == b
        done = project.dismiss_related(a, item)
        assert done.action_id is not None
        assert _related_ids(project, 0) == [cluster_of_key(project, key(5))]
        assert _related_ids(project, 3) == []  # one judgement, seen from both sides
        assert project.undo() == done.action_id
        assert _related_ids(project, 0)[0] == b
        project.redo()
        # A new run numbers clusters anew: the dismissal is by page key, so it holds.
        save_related_run(project)
        assert cluster_of_key(project, key(0)) != a
        assert _related_ids(project, 3) == []
        project.recluster(0.35)
        assert _related_ids(project, 3) == []
    with Project.open(path, backups=0) as project:
        assert _related_ids(project, 3) == []
        kept = project.dismissed_related()
        assert {r[:2] for r in kept} == {tuple(sorted((key(2), key(3)))),
                                         tuple(sorted((key(2), key(4))))}
        assert {r[2] for r in kept} == {"ann"}


def test_a_new_link_offers_a_dismissed_cluster_again(tmp_path):
    with related_project(tmp_path / "p.wbproj") as project:
        a = cluster_of_key(project, key(0))
        c = cluster_of_key(project, key(5))
        project.dismiss_related(a, project.related(a)[0])  # B, by its two links
        # Page 5 joins B: its link to page 0 (0.25) is not dismissed, so B is offered.
        project.merge_page(cluster_of_key(project, key(3)), project.page_id(key(5)))
        assert [r.cluster for r in project.related(a)] == [cluster_of_key(project, key(3))]
        assert project.related(a)[0].best.there == project.page_id(key(5))
        assert c != cluster_of_key(project, key(5))


def test_merge_page_takes_one_page_as_a_member_in_one_undoable_step(tmp_path):
    with related_project(tmp_path / "p.wbproj") as project:
        a, b = cluster_of_key(project, key(0)), cluster_of_key(project, key(3))
        page3 = project.page_id(key(3))
        result = project.merge_page(a, page3)
        assert result.id == a
        assert project.cluster_of_page(page3) == a
        assert project.cluster(b).size == 1  # B keeps its other page
        assert project.cluster(a).size == 4
        project.undo()
        assert project.cluster_of_page(page3) == b and project.cluster(b).size == 2


def test_learning_reads_dismissals_as_pairs_kept_apart(tmp_path):
    with related_project(tmp_path / "p.wbproj") as project:
        a = cluster_of_key(project, key(0))
        project.dismiss_related(a, project.related(a)[0])
        labels = labelled_from_project(project)
        at = {k: i for i, k in enumerate(labels.keys)}
        assert (at[key(2)], at[key(3)]) in labels.negatives
        assert (at[key(2)], at[key(4)]) in labels.negatives
        assert (at[key(1)], at[key(4)]) not in labels.negatives  # never offered


def test_the_export_carries_the_dismissals(tmp_path):
    import json

    from workbench.export.pages import export_pages

    with related_project(tmp_path / "p.wbproj") as project:
        a = cluster_of_key(project, key(0))
        project.dismiss_related(a, project.related(a)[0])
        result = export_pages(project, tmp_path / "tagged.csv", coded_only=False)
        side = json.loads(result.sidecar_path.read_text(encoding="utf-8"))
        assert {(d["page_a"], d["page_b"], d["coder"]) for d in side["related_dismissed"]} == {
            (*sorted((key(2), key(3))), "ann"), (*sorted((key(2), key(4))), "ann")}
