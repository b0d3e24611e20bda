"""Runs with a detector other than SpotSigs: recorded, saved, and every tag kept."""

from __future__ import annotations

import csv

import pytest

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.store import Project
from workbench.usecases.detector_run import MethodChoice, run_method, run_method_into_project
from workbench.usecases.pipeline import run_into_project


def test_a_minhash_run_finds_the_demo_stories_across_sites():
    result = run_method(DEMO_ARCHIVE, MethodChoice("minhash", 0.3), workers=1)
    assert len(result.pages) == 12
    keys = [p.key for p in result.pages]
    for a, b in zip(result.pairs.a, result.pairs.b, strict=True):
        # The demo's stories are named by file: one story is never paired with another.
        assert keys[a].split("/")[-1] == keys[b].split("/")[-1]
    assert all(s >= 0.3 for s in result.pairs.similarity)
    assert result.clusters and all(len(c.members) >= 2 for c in result.clusters)


def test_the_run_records_the_detector_and_its_parameters(tmp_path):
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        result, run_id = run_method_into_project(project, DEMO_ARCHIVE, MethodChoice("minhash", 0.3),
                                                 workers=1)
        run = project.current_run()
    assert run is not None and run.id == run_id and run.method == "minhash"
    assert run.params["detector"] == "minhash"
    assert run.params["detector_parameters"] == result.detector.parameters()
    assert run.params["tau"] == 0.3 and run.params["weak_join"] == 0.0
    assert MethodChoice.of_run(run.method, run.params) == MethodChoice("minhash", 0.3, {})
    assert MethodChoice.of_run("spotsigs", {"tau": 0.35}).is_spotsigs


def test_switching_the_method_keeps_every_tag(tmp_path):
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        run_into_project(project, DEMO_ARCHIVE, workers=1)
        cluster = next(r for r in project.list_clusters(0, 100) if r.size > 1)
        tag = project.add_tag("school meals")
        project.tag_clusters([cluster.id], [tag.id])
        before = {r.source: r.tags for r in project.page_records(coded_only=True)}
        run_method_into_project(project, DEMO_ARCHIVE, MethodChoice("imatch"), workers=1)
        after = {r.source: r.tags for r in project.page_records(coded_only=True)}
        assert project.current_run().method == "imatch"
    assert before and after == before


def test_a_threshold_outside_similarities_is_refused():
    with pytest.raises(ValueError, match="similarity in"):
        run_method(DEMO_ARCHIVE, MethodChoice("minhash", 1.5), workers=1)


def test_dedup_with_a_method_writes_csvs_and_saves(tmp_path, capsys):
    clusters = tmp_path / "clusters.csv"
    project = tmp_path / "p.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--method", "minhash", "--threshold", "0.3", "--clusters",
                 str(clusters), "--project", str(project), "-q"]) == 0
    printed = capsys.readouterr().out
    assert "MinHash" in printed and "run 1 saved" in printed
    rows = list(csv.DictReader(clusters.open()))
    assert rows and {r["is_reference"] for r in rows} == {"0", "1"}
    with Project.open(project, backups=0, readonly=True) as p:
        assert p.current_run().method == "minhash"


def test_dedup_says_which_methods_there_are(capsys):
    with pytest.raises(SystemExit):
        main(["dedup", str(DEMO_ARCHIVE), "--method", "nonsense"])
    assert "simhash" in capsys.readouterr().err


def test_the_export_sidecar_names_the_detector(tmp_path):
    import json

    from workbench.export.sidecar import write_sidecar

    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        run_method_into_project(project, DEMO_ARCHIVE, MethodChoice("simhash"), workers=1)
        path = write_sidecar(project, tmp_path / "tagged.run.json", {})
    run = json.loads(path.read_text())["run"]
    assert run["method"] == "simhash"
    assert run["params"]["detector_label"].startswith("simhash")
    assert run["params"]["detector_parameters"]["k"] == 3
