"""The IDF filter's document frequencies, reduced as a tree on the cluster
(workbench.cluster.filters.doc_freqs), drop exactly the signatures the local filter drops, whatever
the shards and however their counts are merged; and a run's frequencies are counted by the
cluster's tasks after the boilerplate is decided, not by the client."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cluster.test_dask_same_results import cluster, small_pages  # noqa: F401 - fixtures
from workbench.archive.scan import scan
from workbench.cluster.filters import doc_freqs
from workbench.cluster.records.shards import write_pages
from workbench.cluster.run import dask_run
from workbench.core.records import RawPage
from workbench.detect.join.matcher import MatrixBuilder, SignatureMatrix
from workbench.detect.spotsigs.boilerplate import (
    ANY_SITE,
    boilerplate_masks,
    corpus_boilerplate,
    site_boilerplate,
)
from workbench.detect.spotsigs.extract import ExtractedPage, PageArrays, extract_batch, page_multisets
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import corpus_of, idf_flags, load_corpus


def _pages(root: Path) -> list[ExtractedPage]:
    raw = [p for p in scan(root) if isinstance(p, RawPage)]
    return [p for p in extract_batch(raw, SpotSigsParams()) if isinstance(p, ExtractedPage)]


def _boiler(pages: list[ExtractedPage]) -> dict[str, np.ndarray]:
    """Both kinds of boilerplate, with low bars so that there is much of it to leave out."""
    infos, hashes = [p.info for p in pages], [p.block_hashes for p in pages]
    boiler = site_boilerplate(infos, hashes, 2, 0.2)
    weights = PageArrays(pages, lambda p: np.bincount(p.spot_block, minlength=p.n_blocks))
    everywhere = corpus_boilerplate(hashes, weights, 3, 0.5)
    if len(everywhere):
        boiler[ANY_SITE] = everywhere
    return boiler


def _local_matrix(pages: list[ExtractedPage], boiler: dict[str, np.ndarray]) -> SignatureMatrix:
    """The signature matrix as ``pipeline.filter_corpus`` builds it, before the IDF filter."""
    masks = boilerplate_masks([p.info for p in pages], [p.block_hashes for p in pages], boiler)
    builder = MatrixBuilder(len(pages), sum(p.n_spots for p in pages))
    builder.add_rows(*page_multisets(pages, masks))
    return builder.finish()


def _tree(parts: list[doc_freqs.DocFreqs], split_every: int, rng: np.random.Generator) -> doc_freqs.DocFreqs:
    level = [parts[k] for k in rng.permutation(len(parts)).tolist()]  # addition does not care
    while len(level) > 1:
        level = [doc_freqs.merge(level[k:k + split_every]) for k in range(0, len(level), split_every)]
    return level[0]


def test_shards_counts_merged_in_any_split_drop_what_the_local_filter_drops(goldset_dev: Path,
                                                                           tmp_path: Path):
    pages = _pages(goldset_dev)
    boiler = _boiler(pages)
    assert len(boiler) > 1 and ANY_SITE in boiler, "nothing left out: the boilerplate would not matter"
    raw_matrix = _local_matrix(pages, boiler)
    assert raw_matrix.raw_ids is not None
    rng = np.random.default_rng(3)
    # Hand-made shards of uneven sizes, as the tasks leave them in the work folder.
    cuts = sorted(set(rng.integers(1, len(pages), 11).tolist()))
    shards = []
    for k, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(pages)], strict=True)):
        write_pages(pages[a:b], tmp_path / f"pages-{k}.parquet")
        shards.append((str(tmp_path / f"pages-{k}.parquet"), list(range(b - a))))
    parts = [doc_freqs.shard_doc_freqs(shard, rows, boiler) for shard, rows in shards]
    checked = 0
    for idf_low, min_pages in ((0.2, 50), (0.5, 50), (0.8, 2), (0.2, len(pages) + 1)):
        params = SpotSigsParams(idf_low=idf_low, idf_high=max(idf_low, 0.85), idf_min_pages=min_pages)
        want_counted, want_indexed, want_applied = idf_flags(raw_matrix, params)
        want_dropped = raw_matrix.raw_ids[~want_counted]
        for split_every in (2, 3, 8, len(parts)):
            got = doc_freqs.too_common(_tree(parts, split_every, rng), min_pages, idf_low)
            pages_with_sigs = int((np.diff(raw_matrix.ptr) > 0).sum())
            assert got[0] == pages_with_sigs
            assert (got[1] is not None) == want_applied
            if want_applied:
                assert got[1] is not None and np.array_equal(got[1], want_dropped)
            counted, indexed, applied = idf_flags(raw_matrix, params, got)
            assert applied == want_applied
            assert np.array_equal(counted, want_counted) and np.array_equal(indexed, want_indexed)
            checked += len(want_dropped)
    assert checked, "the filter dropped nothing: the test would not see a difference"


def test_counts_of_other_pages_are_refused(goldset_dev: Path):
    pages = _pages(goldset_dev)
    raw_matrix = _local_matrix(pages, {})
    fewer = doc_freqs.too_common(doc_freqs.page_doc_freqs(pages[1:], {}), 2, 0.2)
    with pytest.raises(RuntimeError, match="document frequencies were counted over"):
        idf_flags(raw_matrix, SpotSigsParams(idf_min_pages=2), fewer)


@pytest.mark.slow
def test_a_runs_document_frequencies_are_reduced_on_the_cluster(cluster, small_pages: Path,  # noqa: F811
                                                                 tmp_path: Path, monkeypatch):
    monkeypatch.setattr(doc_freqs, "SPLIT_EVERY", 2)  # a tree of several levels even for a few shards
    params = SpotSigsParams(idf_low=0.5)  # gensmall's pages, boilerplate left out, share little
    counted_here: list[int] = []
    local_page_doc_freqs = doc_freqs.page_doc_freqs

    def counting(pages, boiler):  # the client counts only pages it holds itself (none here)
        counted_here.append(len(pages))
        return local_page_doc_freqs(pages, boiler)

    monkeypatch.setattr(doc_freqs, "page_doc_freqs", counting)
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        run.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.task_prefixes.clear())
        pages, skipped = run.extract_all(small_pages, params, lambda *_: None, 2)
        assert len({p for p in (tmp_path / "work").rglob("pages-*.parquet")}) >= 3
        corpus = corpus_of(str(small_pages), params, pages, skipped, {}, site_boiler=run.site_boilerplate,
                           too_common_ids=run.too_common_ids)
        ran = run.client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    local = load_corpus(small_pages, params, workers=2)
    assert corpus.idf_applied and local.idf_applied
    assert corpus.filters == local.filters and corpus.filters.common, "the filter dropped nothing"
    for name in ("ptr", "sig", "cnt", "raw_ids"):
        assert np.array_equal(getattr(corpus.matrix, name), getattr(local.matrix, name)), name
    assert counted_here == [0]
    # The shards were counted by tasks (dask.bag's reduction: its partitions' and the tree's
    # aggregating tasks), and the ids to drop decided by a task on the merged counts.
    assert any(name.startswith("doc-freqs-part") for name in ran), ran
    assert any(name.startswith("doc-freqs-aggregate") for name in ran), ran
