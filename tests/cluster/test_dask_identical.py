"""Identical pages found by a tree reduction of the shards' checksums on the cluster
(workbench.cluster.filters.identical) give the join the same representatives as the local
checksums' ranks, whatever the shards and however they are merged; and a run finds them
with the cluster's tasks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cluster.test_dask_same_results import cluster  # noqa: F401 - fixture
from workbench.archive.scan import scan
from workbench.cluster.filters import identical
from workbench.cluster.records.shards import write_pages
from workbench.cluster.run import dask_run
from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import corpus_of, load_corpus


def _representatives(group: np.ndarray) -> np.ndarray:
    """What the join makes of a ``duplicate_group`` (matcher.plan_join): each page's first
    page with the same group."""
    _, first, inverse = np.unique(group, return_index=True, return_inverse=True)
    return first[inverse]


def _local_group(checksums: list[str]) -> np.ndarray:
    return np.unique(np.array([c.encode() for c in checksums], dtype=bytes), return_inverse=True)[1]


def test_shards_merged_in_any_split_give_the_local_representatives(goldset_dev: Path, tmp_path: Path):
    raw = [p for p in scan(goldset_dev) if isinstance(p, RawPage)]
    pages = [p for p in extract_batch(raw, SpotSigsParams()) if isinstance(p, ExtractedPage)]
    # A few pages again at the end, so that repeats lie in other shards than their first.
    pages += pages[5:400:37]
    want = _representatives(_local_group([p.info.checksum for p in pages]))
    assert (want != np.arange(len(pages))).sum() >= 10, "few identical pages: the test would see little"
    rng = np.random.default_rng(5)
    cuts = sorted(set(rng.integers(1, len(pages), 13).tolist()))
    parts = []
    for k, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(pages)], strict=True)):
        path = tmp_path / f"pages-{k}.parquet"
        write_pages(pages[a:b], path)
        # Rows in another order than the shard's, as a run's refs may name them.
        rows = rng.permutation(b - a).tolist()
        parts.append(identical.shard_first_pages(str(path), rows, [a + r for r in rows]))
    for split_every in (2, 3, 8, len(parts)):
        level = [parts[k] for k in rng.permutation(len(parts)).tolist()]
        while len(level) > 1:
            level = [identical.merge(level[k:k + split_every]) for k in range(0, len(level), split_every)]
        later, first = identical.repeats(level[0])
        assert len(later) == len(pages) - len(np.unique(want))  # only the pages that repeat one
        got = identical.groups(len(pages), later, first)
        assert np.array_equal(_representatives(got), want), split_every


@pytest.mark.slow
def test_a_run_finds_identical_pages_on_the_cluster(cluster, goldset_dev: Path, tmp_path: Path,  # noqa: F811
                                                    monkeypatch):
    monkeypatch.setattr(identical, "SPLIT_EVERY", 2)  # a tree of several levels even for a few shards
    params = SpotSigsParams()
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        run.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.task_prefixes.clear())
        pages, skipped = run.extract_all(goldset_dev, params, lambda *_: None, 2)
        assert len({p for p in (tmp_path / "work").rglob("pages-*.parquet")}) >= 2
        corpus = corpus_of(str(goldset_dev), params, pages, skipped, {}, checksum_groups=run.checksum_groups)
        ran = run.client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    local = load_corpus(goldset_dev, params, workers=2)
    want = _representatives(local.checksum_group)
    assert (want != np.arange(len(want))).any(), "the Gold Set has identical pages"
    assert np.array_equal(_representatives(corpus.checksum_group), want)
    assert any(name.startswith("identical-pages-part") for name in ran), ran
    assert any(name.startswith("identical-pages-aggregate") for name in ran), ran


def test_identical_pages_of_other_pages_are_refused(tmp_path: Path):
    from workbench.cluster.run import DaskRun

    run = DaskRun(None, tmp_path, 1)
    run._repeats = (3, lambda: (np.array([2]), np.array([0])))
    with pytest.raises(RuntimeError, match="among 3 pages, not 4"):
        run.checksum_groups(4)
    run._repeats = (3, lambda: (np.array([2]), np.array([0])))
    assert run.checksum_groups(3).tolist() == [0, 1, 0]
    assert run.checksum_groups(3) is None  # used once: a later run's pages are looked at locally
