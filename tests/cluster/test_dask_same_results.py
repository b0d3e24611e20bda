"""``dedup --dask`` finds what the local run finds: the same pages, skip records, pairs
(to the last digit), floor pairs and clusters, on the dev Gold Set, a generated WARC crawl
and gensmall pages with a few bad files among them; also when a worker dies mid-run.

One LocalCluster of two worker processes serves the module (starting one costs seconds).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO, SHARED_DATA, shared_path
from workbench.cluster.records.shards import read_pages, write_pages
from workbench.cluster.run import DaskRun, dask_run, local_cluster
from workbench.cluster.run_folders import PREFIX, remove_abandoned
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import DedupResult, detect, load_corpus, run_dedup

pytestmark = pytest.mark.slow
TOOLS = SHARED_DATA.parent / "tools"
# gensmall pages in the test; 20,000 by hand: WORKBENCH_DASK_TEST_PAGES=20000 pytest ...
SMALL_PAGES = int(os.environ.get("WORKBENCH_DASK_TEST_PAGES", "2000"))


@pytest.fixture(scope="module")
def cluster():
    with local_cluster(2) as running:
        yield running


@pytest.fixture
def on_dask(cluster, tmp_path: Path):
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        yield run


def _on_dask(run: DaskRun, root: Path, params: SpotSigsParams | None = None) -> DedupResult:
    corpus = load_corpus(root, params, workers=2, **run.corpus_hooks)
    return detect(corpus, join=run.join)


def _assert_same(local: DedupResult, dask: DedupResult) -> None:
    assert [p.key for p in dask.pages] == [p.key for p in local.pages]
    assert dask.pages == local.pages  # every field: titles, checksums, counts, skip reasons
    assert dask.skipped == local.skipped
    for mine, theirs in ((dask.pairs, local.pairs), (dask.floor_pairs, local.floor_pairs)):
        assert mine is not None and theirs is not None
        assert np.array_equal(mine.a, theirs.a) and np.array_equal(mine.b, theirs.b)
        assert mine.similarity.tobytes() == theirs.similarity.tobytes()  # to the last bit
    assert [(c.reference, c.members, c.similarities) for c in dask.clusters] == \
           [(c.reference, c.members, c.similarities) for c in local.clusters]
    assert dask.filters == local.filters


def _with_bad_files(folder: Path) -> None:
    """Inputs the readers refuse, each with its own skip record."""
    (folder / "zz-broken.warc.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip" * 50)
    (folder / "zz-empty.html").write_bytes(b"")
    (folder / "zz-binary.html").write_bytes(bytes(range(256)) * 40)


def _generate(tool: str, out: Path, *args: str) -> Path:
    script = TOOLS / tool
    if not script.exists():
        pytest.skip(f"needs {script} (the team's shared tools), which is absent")
    subprocess.run([sys.executable, str(script), "--out", str(out), "--data", str(SHARED_DATA), *args],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="module")
def warc_crawl(tmp_path_factory) -> Path:
    shared_path("bbc-news")
    out = _generate("gencorpus.py", tmp_path_factory.mktemp("gencorpus") / "crawl", "--docs", "200",
                    "--format", "warc", "--jobs", "1")
    for extra in ("README.txt", "truth.csv"):
        (out / extra).unlink(missing_ok=True)
    _with_bad_files(out)
    return out


@pytest.fixture(scope="module")
def small_pages(tmp_path_factory) -> Path:
    shared_path("bbc-news")
    out = _generate("gensmall.py", tmp_path_factory.mktemp("gensmall") / "crawl", "--docs",
                    str(SMALL_PAGES))
    (out / "truth.csv").unlink(missing_ok=True)
    _with_bad_files(out / "pages")
    return out / "pages"


def test_shards_give_back_the_pages_the_workers_made(tmp_path: Path, goldset_dev: Path):
    from workbench.archive.scan import scan
    from workbench.core.records import RawPage

    raw = [p for p in scan(goldset_dev) if isinstance(p, RawPage)][:30]
    made = [p for p in extract_batch(raw, SpotSigsParams()) if isinstance(p, ExtractedPage)]
    write_pages(made, tmp_path / "s.parquet")
    back = read_pages(tmp_path / "s.parquet")
    assert [p.info for p in back] == [p.info for p in made]
    for a, b in zip(back, made, strict=True):
        assert a.packed.tobytes() == b.packed.tobytes() and a.note == b.note
        assert np.array_equal(a.spot_ids, b.spot_ids) and np.array_equal(a.spot_block, b.spot_block)


def test_the_gold_set_on_dask_is_the_local_run(on_dask: DaskRun, goldset_dev: Path):
    _assert_same(run_dedup(goldset_dev, workers=2), _on_dask(on_dask, goldset_dev))


def test_a_warc_crawl_with_bad_files_on_dask_is_the_local_run(on_dask: DaskRun, warc_crawl: Path):
    local = run_dedup(warc_crawl, workers=2)
    assert len(local.pages) >= 150 and len(local.skipped) >= 2 and len(local.pairs)
    _assert_same(local, _on_dask(on_dask, warc_crawl))


def test_small_pages_with_bad_files_on_dask_are_the_local_run(on_dask: DaskRun, small_pages: Path):
    local = run_dedup(small_pages, workers=2)
    assert len(local.pages) >= SMALL_PAGES and len(local.skipped) >= 2 and len(local.clusters)
    _assert_same(local, _on_dask(on_dask, small_pages))


def test_revisits_in_a_file_across_files_and_across_ranges_on_dask_are_the_local_run(
        on_dask: DaskRun, tmp_path: Path, monkeypatch):
    """Every kind of input (the archive readers' mixed test folder), its WARC files read
    in ranges of 2 KB: revisits resolved by the task that read their original, by a
    follow-up task and by the client (a file read again whole) come out as locally."""
    from tests.archive.test_parallel_read import _mixed
    from workbench.archive import tasks

    root = tmp_path / "crawl"
    _mixed(root)
    local = run_dedup(root, workers=2)
    urls = [p.url for p in local.pages if p.url]
    assert len(local.pages) > 150 and len(set(urls)) < len(urls)  # revisits came back as pages
    assert any("truncated" in s.reason for s in local.skipped)
    monkeypatch.setattr(tasks, "range_size", lambda total, workers: 2048)
    assert any(hasattr(u, "ranges") for u in tasks.plan(root, 2).units)
    _assert_same(local, _on_dask(on_dask, root))


def test_a_worker_killed_mid_run_changes_nothing(cluster, tmp_path: Path, small_pages: Path):
    """The first extraction task to start kills its worker process (as an out-of-memory
    kill would); Dask runs the task again on a worker that lives, and the result is exact."""
    marker = tmp_path / "killed-once"

    def dies_once(pages, params):  # a closure: Dask ships it by value to the workers
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return extract_batch(pages, params)
        os._exit(9)

    local = run_dedup(small_pages, workers=2)
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        run.process = dies_once
        dask = _on_dask(run, small_pages)
    assert marker.exists(), "no task was killed"
    _assert_same(local, dask)


def test_dedup_dask_writes_the_local_csvs(tmp_path: Path, goldset_dev: Path):
    """The command line end to end (its own LocalCluster): the same CSVs byte for byte."""
    def dedup(name: str, *extra: str) -> list[bytes]:
        outs = [tmp_path / f"{name}-{kind}.csv" for kind in ("pairs", "clusters", "skipped")]
        subprocess.run([sys.executable, "-m", "workbench", "dedup", str(goldset_dev), "-q", "--workers", "2",
                        "--pairs", str(outs[0]), "--clusters", str(outs[1]), "--skipped", str(outs[2]),
                        *extra], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        return [p.read_bytes() for p in outs]

    work = tmp_path / "work"
    assert dedup("dask", "--dask", "--work-dir", str(work)) == dedup("local")
    assert not any(work.iterdir()), "the run's shards were left behind"


def test_workers_end_when_dedup_dask_is_killed_mid_run(tmp_path: Path):
    from tests.test_processes import _crawl, _killed_mid_run, _start

    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc (Linux)")
    crawl = _crawl(tmp_path / "crawl", 3000)
    work = tmp_path / "work"
    _killed_mid_run(_start(["dedup", str(crawl), "-q", "--workers", "2", "--dask", "--work-dir", str(work)]))
    # Its work folder stayed (nothing could remove it), unlocked: the next run's to remove.
    [left] = list(work.glob(PREFIX + "*"))
    assert remove_abandoned(work, youngest=0) == [left] and not left.exists()


def test_an_unreachable_scheduler_is_said_plainly(tmp_path: Path, goldset_dev: Path):
    got = subprocess.run([sys.executable, "-m", "workbench", "dedup", str(goldset_dev), "-q",
                          "--dask", "tcp://127.0.0.1:9"], cwd=REPO, capture_output=True, text=True)
    assert got.returncode != 0
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in got.stderr
    assert "Traceback" not in got.stderr




def test_cancel_cancels_the_clusters_tasks(on_dask: DaskRun, small_pages: Path, monkeypatch):
    """Cancel (or Ctrl+C) in the progress callback stops the run and cancels every task it
    submitted on the cluster, not only the client's waiting."""
    from workbench.core.progress import Cancelled

    cancelled: list = []
    cancel = on_dask.client.cancel
    monkeypatch.setattr(on_dask.client, "cancel", lambda futures, **kw: (cancelled.extend(futures),
                                                                        cancel(futures, **kw)))

    def stop_at_first_page(stage: str, done: int, total: int | None) -> None:
        if stage == "extract" and done > 0:
            raise Cancelled

    with pytest.raises(Cancelled):
        load_corpus(small_pages, progress=stop_at_first_page, workers=2, extract_all=on_dask.extract_all)
    assert cancelled, "no task was cancelled"
    assert all(f.cancelled() for f in cancelled)
