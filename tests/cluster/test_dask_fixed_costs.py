"""The cluster's fixed costs off the run's path, with nothing else changed: a local
cluster starts while the client plans the crawl, ``dedup --dask`` stops it in the
background while it saves, and the kept pages' file reads only the shards' packed arrays
(workbench.cluster.run, workbench.cluster.records.shards.read_packed)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from tests.conftest import REPO
from workbench.cluster import run as cluster_run
from workbench.cluster.records.shards import (
    ShardFile,
    ShardPage,
    ShardReader,
    read_packed,
    read_pages,
    write_pages,
)
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams

pytestmark = pytest.mark.slow


def _new_children(before: set[int]) -> list[psutil.Process]:
    """This process's descendants started since ``before`` that are still alive, but
    multiprocessing's own helpers (its resource tracker lives as long as this process)."""
    alive = []
    for p in psutil.Process().children(recursive=True):
        try:
            if (p.pid not in before and p.status() != psutil.STATUS_ZOMBIE
                    and not any("resource_tracker" in part or "forkserver" in part for part in p.cmdline())):
                alive.append(p)
        except psutil.NoSuchProcess:  # ended while looked at
            pass
    return alive


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


class _HeldCluster:
    """Stands in for ``local_cluster``: its start waits until the test lets it go."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.started = self.closed = False

    def __call__(self, workers: int | None = None) -> _HeldCluster:
        if not self.go.wait(60):  # a start that blocks the run's entry never gets here
            raise RuntimeError("the cluster was started before the run went on")
        self.started = True
        return self

    def close(self) -> None:
        self.closed = True


def test_the_run_goes_on_while_its_local_cluster_starts(tmp_path: Path, monkeypatch):
    """The run's body (the walk, the plan) runs before the cluster is up; the client is
    waited for when first asked for, and the cluster is closed with the run."""
    held = _HeldCluster()
    monkeypatch.setattr(cluster_run, "local_cluster", held)
    monkeypatch.setattr("distributed.Client", lambda cluster, timeout=None: _FakeClient(cluster))
    with cluster_run.dask_run(None, tmp_path, workers=2) as run:
        assert not held.started and not run.connecting.done()  # the body runs meanwhile
        assert run.workers == 2  # known without the cluster: one thread a worker
        held.go.set()
        assert run.client.cluster is held
    assert held.closed and run.connecting.result().closed


class _FakeClient:
    def __init__(self, cluster: object) -> None:
        self.cluster = cluster
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_a_run_that_fails_while_its_cluster_starts_leaves_no_workers(tmp_path: Path):
    before = _children()
    with pytest.raises(KeyError), cluster_run.dask_run(None, tmp_path, workers=2):
        raise KeyError("a crash before the first task")  # the cluster is still starting
    assert not _new_children(before), "workers outlived the run"
    assert not any(tmp_path.iterdir()), "the run's work folder was left behind"


def test_a_run_ended_later_stops_its_cluster_in_the_background(tmp_path: Path, goldset_dev: Path):
    from workbench.usecases.pipeline import detect, load_corpus, run_dedup

    before = _children()
    with cluster_run.dask_run(None, tmp_path, workers=2, end_later=True) as run:
        result = detect(load_corpus(goldset_dev, workers=2, **run.corpus_hooks), join=run.join)
    assert cluster_run._ending, "the run ended at once"
    cluster_run.wait_ended()
    assert not _new_children(before), "workers outlived the run"
    assert not any(tmp_path.iterdir()), "the run's work folder was left behind"
    local = run_dedup(goldset_dev, workers=2)
    assert result.pairs.similarity.tobytes() == local.pairs.similarity.tobytes()
    assert [c.members for c in result.clusters] == [c.members for c in local.clusters]


def test_packed_arrays_read_alone_are_the_pages(tmp_path: Path, goldset_dev: Path):
    from workbench.archive.scan import scan
    from workbench.core.records import RawPage

    raw = [p for p in scan(goldset_dev) if isinstance(p, RawPage)][:40]
    made = [p for p in extract_batch(raw, SpotSigsParams()) if isinstance(p, ExtractedPage)]
    write_pages(made, tmp_path / "s.parquet")
    values, ends = read_packed(tmp_path / "s.parquet")
    assert len(ends) == len(made) + 1
    shard = ShardFile(str(tmp_path / "s.parquet"), ShardReader())
    whole = read_pages(tmp_path / "s.parquet")
    for row, page in enumerate(made):
        assert values[ends[row] : ends[row + 1]].tobytes() == page.packed.tobytes()
        light = ShardPage(page.info, shard, row, page.n_spots, page.n_blocks, page.note)
        assert light.packed.tobytes() == page.packed.tobytes() == whole[row].packed.tobytes()


def test_dedup_dask_keeps_the_local_runs_pages_byte_for_byte(tmp_path: Path, goldset_dev: Path):
    """The kept pages' file (``<project>.pages``, for a later --add) of a --dask run is the
    local run's, byte for byte, and the run's workers are gone when the command ends."""
    def dedup(name: str, *extra: str) -> bytes:
        project = tmp_path / f"{name}.wbproj"
        subprocess.run([sys.executable, "-m", "workbench", "dedup", str(goldset_dev), "-q", "--workers", "2",
                        "--project", str(project), *extra], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        return Path(f"{project}.pages").read_bytes()

    work = tmp_path / "work"
    assert dedup("dask", "--dask", "--work-dir", str(work)) == dedup("local")
    assert not any(work.iterdir()), "the run's shards were left behind"
