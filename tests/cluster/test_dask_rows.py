"""The signature matrix's rows and the repeated blocks' table made by the cluster's tasks
(workbench.cluster.filters.rows) are the local run's arrays, whatever the shards and their order;
and a run's client never reads a page's packed arrays back: it reads the shards' record
columns and the corpus boilerplate's inputs only, and the rows are made on the workers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from tests.cluster.test_dask_same_results import cluster, small_pages  # noqa: F401 - fixtures
from tests.detect.spotsigs.member_overlap_reference import only_rows_asked
from workbench.archive.scan import scan
from workbench.cluster.filters import doc_freqs, rows
from workbench.cluster.filters.corpus_blocks import corpus_inputs_on
from workbench.cluster.filters.reduce import merge_counts
from workbench.cluster.records.shards import ShardRef, write_pages
from workbench.cluster.run import dask_run
from workbench.core.records import RawPage
from workbench.detect.join.matcher import MatrixBuilder, SignatureMatrix
from workbench.detect.spotsigs import matrix_kernels
from workbench.detect.spotsigs.boilerplate import ANY_SITE, boilerplate_masks, site_boilerplate
from workbench.detect.spotsigs.corpus_boilerplate import (
    SAMPLE,
    block_weights,
    corpus_boilerplate,
    corpus_boilerplate_weighed,
)
from workbench.detect.spotsigs.extract import ExtractedPage, PageArrays, extract_batch, page_multisets
from workbench.detect.spotsigs.member_overlap import (
    RepeatedBlocks,
    joined_parts,
    repeated_blocks,
    repeated_part,
    with_matrix_ids,
)
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases import pipeline
from workbench.usecases.pipeline import detect, idf_flags, load_corpus, run_dedup


def _pages(root: Path) -> list[ExtractedPage]:
    raw = [p for p in scan(root) if isinstance(p, RawPage)]
    return [p for p in extract_batch(raw, SpotSigsParams()) if isinstance(p, ExtractedPage)]


def _weights(pages: list[ExtractedPage]) -> PageArrays:
    return PageArrays(pages, lambda p: block_weights(p.spot_block, p.n_blocks))


def _boiler(pages: list[ExtractedPage]) -> dict[str, np.ndarray]:
    """Both kinds of boilerplate, with low bars so that there is much of it to leave out."""
    infos, hashes = [p.info for p in pages], [p.block_hashes for p in pages]
    boiler = site_boilerplate(infos, hashes, 2, 0.2)
    everywhere = corpus_boilerplate(hashes, _weights(pages), 3, 0.5)
    if len(everywhere):
        boiler[ANY_SITE] = everywhere
    return boiler


def _local(pages: list[ExtractedPage], boiler: dict[str, np.ndarray]
           ) -> tuple[SignatureMatrix, RepeatedBlocks]:
    """The raw matrix and the repeated blocks as ``pipeline.filter_corpus`` makes them here
    (before the filters)."""
    hashes = [p.block_hashes for p in pages]
    masks = boilerplate_masks([p.info for p in pages], hashes, boiler)
    builder = MatrixBuilder(len(pages), sum(p.n_spots for p in pages))
    builder.add_rows(*page_multisets(pages, masks))
    table = repeated_blocks([p.spot_ids for p in pages], [p.spot_block for p in pages], hashes, masks)
    return builder.finish(), table


def _same_arrays(got: object, want: object, names: tuple[str, ...]) -> None:
    for name in names:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


MATRIX = ("ptr", "sig", "cnt", "raw_ids")
TABLE = ("block_ids", "block_pages", "page_block_ptr", "page_block", "sig_ptr", "sig_id", "sig_block")


def test_repeated_blocks_from_parts_in_any_split_are_the_local_table(goldset_dev: Path):
    pages = _pages(goldset_dev)
    rng = np.random.default_rng(11)
    for boiler in ({}, _boiler(pages)):
        _, want = _local(pages, boiler)
        assert len(want.block_ids) and len(want.sig_id), "nothing to compare"
        cuts = sorted(set(rng.integers(1, len(pages), 7).tolist()))
        splits = [pages[a:b] for a, b in zip([0, *cuts], [*cuts, len(pages)], strict=True)]
        counts = [rows.page_block_pages(part, boiler) for part in splits]
        level = [counts[k] for k in rng.permutation(len(counts)).tolist()]  # addition does not care
        while len(level) > 1:
            level = [merge_counts(level[k:k + 3]) for k in range(0, len(level), 3)]
        block_ids, block_pages = rows.repeated_of(level[0])
        parts = []
        for part in splits:
            hashes = [p.block_hashes for p in part]
            masks = boilerplate_masks([p.info for p in part], hashes, boiler)
            spots = [p.spot_ids for p in part], [p.spot_block for p in part]
            parts.append(repeated_part(*spots, hashes, masks, block_ids))
        _same_arrays(joined_parts(block_ids, block_pages, parts), want, TABLE)


@pytest.mark.slow
def test_rows_of_shards_out_of_order_and_pages_the_client_holds(cluster, goldset_dev: Path,  # noqa: F811
                                                                 tmp_path: Path):
    """A run's pages may come from shards in any order (a revisit resolved by a later task)
    and a few may be held by the client: the rows (filtered by the tasks), the repeated
    blocks and the corpus boilerplate's inputs come out in the run's order all the same,
    as the local run's filtered matrix and table."""
    pages = _pages(goldset_dev)[:60]
    boiler = _boiler(pages)
    first, second = tmp_path / "pages-a.parquet", tmp_path / "pages-b.parquet"
    write_pages(pages[:30], first)
    write_pages(pages[30:55], second)
    # The run's order: rows of both shards interleaved and out of order, and the client's pages.
    order = [*range(0, 10), *range(30, 40), 55, 56, *range(10, 30), *range(40, 55), 57, 58, 59]
    refs: list[object] = [ShardRef(str(first), k) if k < 30 else ShardRef(str(second), k - 30) if k < 55
                          else pages[k] for k in order]
    mine = [pages[k] for k in order]
    raw, table = _local(mine, boiler)
    counts = doc_freqs.page_doc_freqs(mine, boiler)
    filters = doc_freqs.id_filters(counts, 2, 0.3)  # a low bar: the IDF filter drops ids here
    counted, indexed, _ = idf_flags(raw, SpotSigsParams(), doc_freqs.too_common(counts, 2, 0.3))
    assert not counted.all() and not indexed.all(), "nothing filtered"
    assert np.array_equal(filters[1], counted) and np.array_equal(filters[2], indexed)
    want_lengths = matrix_kernels.row_totals(raw.ptr, raw.sig, raw.cnt, counted, indexed)[0]
    keep = want_lengths >= 5
    keep[order.index(12)] = False  # a page set aside for another reason: its row goes too
    want_matrix, lengths = raw.filtered(counted, indexed, lambda _: keep)
    want_table = with_matrix_ids(table, raw.raw_ids)
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        made, in_files = rows.matrix_rows_on(run.client, run.work_dir, refs, boiler, filters, 5,
                                             lambda *_: None)
        assert np.array_equal(made.lengths, lengths)
        got_matrix = made.finish(keep)  # read from the run's work folder
        got_table = _whole(in_files)  # read from there too, once asked for
        rng = np.random.default_rng(7)
        masks = [(rng.random(len(refs)) < share, rng.random(len(refs)) < share) for share in (0.0, 0.2, 0.7)]
        some_rows = [(spots, blocks, in_files.for_pages(spots, blocks)) for spots, blocks in masks]
    assert made.with_sigs == int((np.diff(raw.ptr) > 0).sum())
    assert made.too_common_ids() == frozenset(raw.raw_ids[~counted].tolist())
    _same_arrays(got_matrix, want_matrix, (*MATRIX, "unindexed"))
    _same_arrays(got_table, want_table, TABLE)
    assert got_table.matrix_ids
    # Some pages' rows only, as boilerplate shares ask for them: the same rows, the others empty.
    for spots, blocks, got in some_rows:
        _same_arrays(got, only_rows_asked(want_table, spots, blocks), TABLE)
    # The corpus boilerplate from the blocks that weigh, made by the tasks in the run's order.
    found = 0
    for min_pages, share, own in ((5, 0.35, 0.25), (2, 0.8, 0.1), (3, 0.5, 0.0), (4, 0.8, 0.0)):
        want = corpus_boilerplate([p.block_hashes for p in mine], _weights(mine), min_pages, share,
                                  min_own_share=own)
        found += len(want)
        with dask_run(None, tmp_path / "work", cluster=cluster) as run:
            weighed = corpus_inputs_on(run.client, refs, min_pages, SAMPLE, lambda *_: None)
        got = corpus_boilerplate_weighed(*weighed, min_pages, share, SAMPLE, own)
        assert np.array_equal(got, want), (min_pages, share, own)
        if min_pages > 3:  # a block on one page or two weighs in no decision: the client never has it
            assert len(weighed[2]) < sum(p.n_blocks for p in mine)
    assert found, "nothing to compare"


@pytest.mark.slow
def test_the_client_reads_no_packed_arrays_and_the_tasks_make_the_rows(cluster, small_pages: Path,  # noqa: F811
                                                                       tmp_path: Path, monkeypatch):
    monkeypatch.setattr(rows, "SPLIT_EVERY", 2)  # a tree of several levels even for a few shards
    asked: list[list[str] | None] = []  # the columns the client read of page shards
    read_table = pq.read_table

    def reading(source, *args, columns=None, **kwargs):  # the client process only: workers are others
        if Path(source).name.startswith("pages-"):
            asked.append(None if columns is None else list(columns))
        return read_table(source, *args, columns=columns, **kwargs)

    parquet_file = pq.ParquetFile

    def opening(source, *args, **kwargs):  # the records are read a group of columns at a time
        opened = parquet_file(source, *args, **kwargs)
        if Path(source).name.startswith("pages-"):
            read = opened.read

            def read_columns(columns=None, *more, **named):
                asked.append(None if columns is None else list(columns))
                return read(columns, *more, **named)

            opened.read = read_columns
        return opened

    monkeypatch.setattr(pq, "read_table", reading)
    monkeypatch.setattr(pq, "ParquetFile", opening)
    params = SpotSigsParams()
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        run.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.task_prefixes.clear())
        corpus = load_corpus(small_pages, params, workers=2, **run.corpus_hooks)
        assert len({p for p in (tmp_path / "work").rglob("pages-*.parquet")}) >= 3
        dask = detect(corpus, join=run.join)
        ran = run.client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
        assert isinstance(corpus.repeated, rows.RepeatedInFiles)
        table = _whole(corpus.repeated)  # read while the run's files are there
    monkeypatch.setattr(pq, "read_table", read_table)
    monkeypatch.setattr(pq, "ParquetFile", parquet_file)

    assert asked, "the client read nothing of the page shards"
    assert all(columns is not None and "_packed" not in columns for columns in asked), \
        [c for c in asked if c is None or "_packed" in c]
    # The rows were made by one task a shard, after the repeated blocks' tree reduction.
    assert "matrix-rows" in ran, ran
    assert any(name.startswith("repeated-blocks-part") for name in ran), ran
    assert any(name.startswith("repeated-blocks-aggregate") for name in ran), ran

    local = run_dedup(small_pages, params, workers=2)
    local_corpus = load_corpus(small_pages, params, workers=2)
    _same_arrays(corpus.matrix, local_corpus.matrix, MATRIX)
    assert local_corpus.repeated is not None
    _same_arrays(table, local_corpus.repeated, TABLE)
    assert corpus.filters == local_corpus.filters and corpus.filters.boilerplate
    assert corpus.pages == local_corpus.pages
    assert [(c.reference, c.members, c.similarities, c.boilerplate_share) for c in dask.clusters] == \
           [(c.reference, c.members, c.similarities, c.boilerplate_share) for c in local.clusters]
    assert dask.pairs.similarity.tobytes() == local.pairs.similarity.tobytes()


def _whole(table: rows.RepeatedInFiles) -> RepeatedBlocks:
    """Every page's rows of the table left in the files (as the local run holds it)."""
    every = np.ones(table.n_pages, dtype=bool)
    return table.for_pages(every, every)


class _CountingNpz:
    """An opened ``.npz`` file that adds up the bytes of every array read from it."""

    def __init__(self, npz: object, read: dict[str, int]) -> None:
        self.npz, self.read = npz, read

    def __enter__(self) -> _CountingNpz:
        return self

    def __exit__(self, *exc: object) -> None:
        self.npz.close()  # type: ignore[attr-defined]

    @property
    def files(self) -> list[str]:
        return self.npz.files  # type: ignore[attr-defined, no-any-return]

    def __getitem__(self, name: str) -> np.ndarray:
        got: np.ndarray = self.npz[name]  # type: ignore[index]
        self.read[name] = self.read.get(name, 0) + got.nbytes
        return got


@pytest.mark.slow
def test_the_client_reads_final_rows_and_never_filters_a_matrix(cluster, small_pages: Path,  # noqa: F811
                                                                tmp_path: Path, monkeypatch):
    """The rows tasks apply the IDF filter, leave out the ids no other page has and empty
    the rows of pages with too little text, and write the repeated blocks' table with the
    matrix's 32-bit ids: the client reads exactly the entries the corpus keeps, never
    holds the matrix before the filters next to its filtered copy (the filter stage's
    peak on a large crawl), and the corpus is the local one to the last array."""
    params = SpotSigsParams(idf_low=0.5)  # a high bar: the IDF filter leaves ids out of a small crawl
    local = load_corpus(small_pages, params, workers=2)
    assert local.idf_applied and local.filters.common, "the IDF filter left nothing out"
    assert local.matrix.unindexed is not None and local.matrix.unindexed.any(), "no unindexed signatures"
    assert any(p.skip_reason and p.skip_reason.startswith("too little text") for p in local.pages)

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the client filtered a matrix made before the filters")

    read: dict[str, int] = {}
    load = np.load

    def counting(source, *args, **kwargs):  # the client process only: workers are others
        got = load(source, *args, **kwargs)
        return _CountingNpz(got, read) if Path(source).name.startswith("rows-") else got

    monkeypatch.setattr(SignatureMatrix, "filtered", never)
    monkeypatch.setattr(pipeline, "idf_flags", never)
    monkeypatch.setattr(np, "load", counting)
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        corpus = load_corpus(small_pages, params, workers=2, **run.corpus_hooks)
        # The repeated blocks' table stays in the files until it is asked for.
        assert "sig_id" not in read and "page_block" not in read, read
        assert isinstance(corpus.repeated, rows.RepeatedInFiles)
        table = _whole(corpus.repeated)
    monkeypatch.undo()

    m = corpus.matrix
    assert local.repeated is not None
    assert read["ids"] == m.sig.nbytes and read["counts"] == m.cnt.nbytes, (read, m.sig.nbytes)
    assert read["sig_id"] == table.sig_id.nbytes and table.sig_id.dtype == np.int32
    _same_arrays(m, local.matrix, (*MATRIX, "unindexed"))
    _same_arrays(table, local.repeated, TABLE)
    assert table.matrix_ids and local.repeated.matrix_ids
    assert corpus.pages == local.pages  # lengths and "too little text" skip reasons included
    assert corpus.filters == local.filters and corpus.idf_applied
