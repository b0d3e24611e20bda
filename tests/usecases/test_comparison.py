"""workbench compare: methods scored against a gold folder or a project's coded clusters."""

from __future__ import annotations

import csv
import dataclasses
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.core.clusters.evaluation import pairs_of_groups, score_pairs
from workbench.detect.detector import Detector, PageText
from workbench.detect.join.matcher import PairResult
from workbench.detect.registry import parse_methods
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.usecases import comparison
from workbench.usecases.comparison import Truth, compare, truth_of_project
from workbench.usecases.pipeline import run_dedup, run_into_project


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    """The demo archive as a gold folder: one sub-folder per story, a page per site."""
    root = tmp_path / "gold"
    for page in DEMO_ARCHIVE.rglob("*.html"):
        site, story = page.parent.name, page.stem
        (root / story).mkdir(parents=True, exist_ok=True)
        shutil.copy(page, root / story / f"{site}.html")
    return root


def test_spotsigs_scores_are_those_of_a_run_at_each_tau(gold: Path):
    result = compare(gold, Truth.from_gold_folder, ["spotsigs"], workers=1)
    [spotsigs] = result.methods
    truth = pairs_of_groups([[k for k in (p.key for p in run_dedup(gold, workers=1).pages)
                              if k.startswith(story + "/")] for story in {p.name for p in gold.iterdir()}])
    for point in spotsigs.points:
        if point.threshold not in (0.2, 0.35, 0.6):
            continue
        run = run_dedup(gold, dataclasses.replace(SpotSigsParams(), tau=point.threshold), workers=1)
        keys = [p.key for p in run.pages]
        clustered = pairs_of_groups([[keys[m] for m in c.members] for c in run.clusters])
        found = {(keys[a], keys[b]) for a, b in zip(run.pairs.a, run.pairs.b, strict=True)}
        assert point.clusters == score_pairs(clustered, truth)
        assert point.pairs == score_pairs(found, truth)
    assert result.labelled_pages == 12 and result.true_clusters == len(list(gold.iterdir()))


class _Fixed(Detector):
    """A detector that pairs pages whose texts start alike, with fixed similarities."""

    name = "fixed"
    label = "test"
    similarity = "test"

    def parameters(self) -> dict:
        return {}

    def default_threshold(self) -> float:
        return 0.5

    def thresholds(self) -> Sequence[float]:
        return [0.5, 0.9]

    def featurize(self, page: PageText) -> str:
        return page.text[:40]

    def find_pairs(self, features, threshold, progress=comparison.no_progress) -> PairResult:
        a, b, s = [], [], []
        for i in range(len(features)):
            for j in range(i + 1, len(features)):
                sim = 1.0 if features[i] == features[j] else 0.6
                if sim >= threshold:
                    a.append(i), b.append(j), s.append(sim)
        return PairResult(np.array(a, np.int64), np.array(b, np.int64), np.array(s))


def test_a_detector_is_scored_on_its_pairs_and_clusters_at_every_threshold(gold, monkeypatch):
    monkeypatch.setattr(comparison, "make_detector", lambda name, **kw: _Fixed())
    [fixed] = compare(gold, Truth.from_gold_folder, ["fixed"], workers=1).methods
    low, high = fixed.points
    # At 0.5 every pair of pages is found: recall 1, precision = true pairs / all pairs.
    assert low.pairs.recall == 1.0
    assert low.pairs.predicted_pairs == 12 * 11 // 2
    assert low.pairs.precision == pytest.approx(low.pairs.true_pairs / 66)
    assert high.pairs.predicted_pairs < low.pairs.predicted_pairs
    assert fixed.best.pairs.f1 == max(low.pairs.f1, high.pairs.f1)


def test_pages_outside_the_gold_folders_are_not_scored(gold, monkeypatch):
    shutil.copy(next(gold.rglob("*.html")), gold / "loose.html")
    monkeypatch.setattr(comparison, "make_detector", lambda name, **kw: _Fixed())
    result = compare(gold, Truth.from_gold_folder, ["fixed"], workers=1)
    assert result.pages == 13 and result.labelled_pages == 12
    # The loose page pairs with everything at 0.5, but none of those pairs is counted.
    assert result.methods[0].points[0].pairs.predicted_pairs == 66


def test_a_projects_coded_clusters_are_the_truth(tmp_path):
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        run_into_project(project, DEMO_ARCHIVE, workers=1)
        rows = [r for r in project.list_clusters(0, 100) if r.size > 1]
        tag = project.add_tag("school meals")
        project.tag_clusters([rows[0].id], [tag.id])
        members = project.members(rows[0].id)
        project.set_excluded(rows[0].id, [members[-1].page_id], True)
        truth = truth_of_project(project)
    kept = [m.key for m in members[:-1]]
    assert {truth.cluster_of[k] for k in kept} == {f"cluster:{rows[0].id}"}
    assert truth.cluster_of[members[-1].key] == f"excluded:{members[-1].key}"
    assert len(truth.cluster_of) == len(members)  # uncoded clusters are not labelled


def test_compare_command_prints_the_table_and_writes_the_curve(gold, tmp_path, capsys):
    out = tmp_path / "curve.csv"
    assert main(["compare", str(gold), "--methods", "spotsigs", "--curve", str(out), "-q",
                 "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "spotsigs" in printed and "Max F1" in printed and "SpotSigs paper Table 1" in printed
    rows = list(csv.DictReader(out.open()))
    assert {r["method"] for r in rows} == {"spotsigs"}
    assert len(rows) == 19  # the tau grid 0.1 ... 0.95, 1.0


def test_compare_command_says_what_is_wrong(gold, tmp_path, capsys):
    assert main(["compare", "-q"]) == 3
    assert "gold folder or --project" in capsys.readouterr().err
    assert main(["compare", str(gold), "--methods", "spotsigs,nonsense", "-q"]) == 3
    assert "unknown method 'nonsense'" in capsys.readouterr().err
    assert main(["compare", str(gold / "no-such"), "-q"]) == 3
    assert "one sub-folder per cluster" in capsys.readouterr().err
    with Project.create(tmp_path / "empty.wbproj", str(DEMO_ARCHIVE)) as project:
        run_into_project(project, DEMO_ARCHIVE, workers=1)
    assert main(["compare", "--project", str(tmp_path / "empty.wbproj"), "-q"]) == 3
    assert "no coded clusters yet" in capsys.readouterr().err


def test_method_names_are_checked_and_kept_in_order():
    assert parse_methods("simhash, spotsigs,simhash") == ["simhash", "spotsigs"]
    with pytest.raises(ValueError, match="no method named"):
        parse_methods(" , ")
