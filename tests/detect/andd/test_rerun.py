"""Learning from a project's coder and previewing the re-run, without writing to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.detect.andd.test_train import _collection
from tests.store.builders import snapshot
from workbench.core.clusters.andd_preview import preview_changes
from workbench.core.records import Cluster, PageInfo, Pair
from workbench.detect.andd.rerun import plan_rerun
from workbench.detect.texts import Texts
from workbench.store import Project


def _project(tmp_path: Path) -> tuple[Project, Texts, list[list[int]]]:
    """Six stories of four pages; the run got four right and lumped the last two together."""
    texts, stories = _collection(5)
    pages = [PageInfo(key=f"story{s}/copy{c}.htm", source=f"story{s}/copy{c}.htm",
                      title=f"Story {s}") for s, group in enumerate(stories) for c in range(len(group))]
    run_clusters = [*stories[:4], stories[4] + stories[5]]
    pairs = [Pair(g[0], m, 0.5) for g in run_clusters for m in g[1:]]
    project = Project.create(tmp_path / "study.wbproj", "/data/crawl", coder="ann")
    project.save_run({"tau": 0.35, "cluster_method": "star"}, "spotsigs", {}, pages, pairs,
                     [Cluster(g[0], list(g), [1.0] + [0.5] * (len(g) - 1)) for g in run_clusters])
    tag = project.add_tag("checked").id
    assert tag is not None
    checked = [r.id for r in project.list_clusters() if r.size == 4]
    project.tag_clusters(checked, [tag])
    return project, Texts(pages, texts, []), stories


def test_a_rerun_learns_from_the_coded_clusters_and_previews_the_split(tmp_path: Path):
    project, texts, stories = _project(tmp_path)
    before = snapshot(project.path)

    rerun = plan_rerun(project, texts)

    assert snapshot(project.path) == before  # nothing written
    assert sorted(rerun.labelled.groups) == sorted(stories[:4])
    assert rerun.weights.trained and rerun.threshold == rerun.weights.threshold
    assert sorted(sorted(c.members) for c in rerun.clusters) == sorted(stories)
    (split,) = rerun.changes.splits
    assert sorted(sorted(p.index for p in part) for part in split.parts) == sorted(stories[4:])
    assert rerun.changes.merges == () and rerun.changes.unchanged == 4
    assert rerun.changes == preview_changes(texts.pages, rerun.labelled.clusters, rerun.clusters)
    assert rerun.params["weights"] == rerun.weights.to_dict()
    assert rerun.params["cluster_method"] == "star" and set(rerun.timings) == {
        "featurize", "train", "match", "cluster"}
    project.close()


def test_nothing_coded_yet_is_said_before_any_work(tmp_path: Path):
    project, texts, _ = _project(tmp_path)
    project.undo()  # the tagging
    stages: list[str] = []
    with pytest.raises(ValueError, match="code some clusters first"):
        plan_rerun(project, texts, progress=lambda stage, done, total: stages.append(stage))
    assert stages == []
    project.close()
