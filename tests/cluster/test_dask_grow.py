"""A crawl that grew, added on a Dask cluster (``dedup CRAWL --project P --add --dask``):
the cluster's workers read only the new files, and the run equals a full run of the grown
crawl (issue 34 item 7, "works locally and with --dask")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cluster.test_dask_same_results import _assert_same
from tests.usecases.grown_crawl import gensmall, growing_crawl
from workbench.cluster.run import dask_run, local_cluster
from workbench.commands.cli import EXIT_OK, main
from workbench.detect.spotsigs.extract import extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.usecases.grow import grow_into_project, keep_pages
from workbench.usecases.pipeline import run_dedup, run_into_project

pytestmark = pytest.mark.slow
PARAMS = SpotSigsParams()


@pytest.fixture(scope="module")
def cluster():
    with local_cluster(2) as running:
        yield running


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return gensmall(tmp_path_factory.mktemp("gensmall"), 1500, seed=4)


def test_adding_on_dask_reads_only_the_new_files_there_and_equals_a_full_run(cluster, pages: Path,
                                                                             tmp_path: Path):
    growing = growing_crawl(pages, tmp_path)
    project = Project.create(tmp_path / "study.wbproj", str(growing.crawl))
    try:
        run_into_project(project, growing.crawl, PARAMS, workers=2,
                         keep=keep_pages(project.path, growing.crawl, PARAMS))
        growing.add()
        seen = tmp_path / "read-on-the-cluster"
        seen.mkdir()

        def marks_its_pages(batch, params):  # a closure: Dask ships it to the workers by value
            for raw in batch:
                os.close(os.open(seen / raw.source.replace("/", "__"), os.O_CREAT))
            return extract_batch(batch, params)

        with dask_run(None, tmp_path / "work", cluster=cluster) as run:
            run.process = marks_its_pages
            grown, _, growth = grow_into_project(project, growing.crawl, PARAMS, workers=2,
                                                 read=run.read_files)
    finally:
        project.close()
    added = growing.added()
    assert sorted(growth.new) == added
    assert growth.unchanged == len(list(growing.crawl.rglob("*.html"))) - len(added)
    # The cluster's workers extracted the new files' pages, and no other.
    assert sorted(p.name for p in seen.iterdir()) == sorted(rel.replace("/", "__") for rel in added)
    _assert_same(run_dedup(growing.crawl, PARAMS, workers=2), grown)


def test_dedup_add_dask_writes_a_full_runs_csvs(pages: Path, tmp_path: Path, capsys):
    """The command line: ``--add --dask`` (its own LocalCluster) writes the CSVs a full
    local run of the grown crawl writes, byte for byte, and says it read only the new files."""
    growing = growing_crawl(pages, tmp_path)
    project = tmp_path / "study.wbproj"
    assert main(["dedup", str(growing.crawl), "--project", str(project), "-q", "--workers", "2"]) == EXIT_OK
    growing.add()
    capsys.readouterr()

    def csvs(name: str, *extra: str) -> list[bytes]:
        outs = [tmp_path / f"{name}-{kind}.csv" for kind in ("pairs", "clusters", "skipped")]
        assert main(["dedup", str(growing.crawl), "-q", "--workers", "2", "--pairs", str(outs[0]),
                     "--clusters", str(outs[1]), "--skipped", str(outs[2]), *extra]) == EXIT_OK
        return [p.read_bytes() for p in outs]

    added = csvs("add", "--project", str(project), "--add", "--dask", "--work-dir", str(tmp_path / "work"))
    said = capsys.readouterr().out
    assert f"files:             {len(growing.added())} new, 0 changed, 0 removed" in said
    assert added == csvs("full")
