"""The signature matrix's rows and the repeated blocks' table made by the cluster's tasks.

Once the boilerplate is decided (each site's, from workbench.cluster.filters.reduce, and the corpus
boilerplate), every page's row of the matrix is known from the page alone: its spots
without the boilerplate's blocks, as a multiset (``page_multisets``). So one task per page
shard reads its pages, masks their boilerplate and writes their rows (row pointers,
signature ids, counts) into a ``rows-*.npz`` file in the work directory, with the pages'
part of the repeated blocks' table (``member_overlap.repeated_part``). The ids are written
as the matrix holds them, numbered by their place in the crawl's vocabulary (every id of
the rows, sorted), which the document frequencies' reduction has on its last task anyway
(workbench.cluster.filters.doc_freqs): the client never holds the 64-bit ids nor renumbers them,
the step whose peak was the client's (``MatrixBuilder.finish``). The table's part needs the
whole crawl's repeated blocks (compared blocks on two pages or more), counted first by a
tree reduction over the shards, as the site counts are (``member_overlap.compared_block_pages``
per shard, added up pairwise on the workers): the rows tasks take its answer straight from
the cluster.

The tasks apply the filters too: the reduction's last task knows, per id of the
vocabulary, whether the IDF filter counts it and whether a second page has it
(``doc_freqs.id_filters``), so each task writes its pages' final rows (counted and indexed
ids only), each page's length and unindexed count (a page too short left empty), and the
table's part with the matrix's 32-bit ids. The client reads each page's figures first
(``pipeline.filter_corpus`` sets aside the pages with too little text from the lengths),
then copies the files, one at a time and in page order, straight into the matrix's
arrays, sized once: the same arrays as the local run's, without ever holding the pages'
packed arrays or the matrix before the filters next to its filtered copy (about 1 KB a
page at the filter stage's peak). The table stays in the files until the doubtful
members' shares ask for the rows they read (:class:`RepeatedInFiles`), and is then
copied the same way, with 32-bit ids, those rows only.

The corpus boilerplate is decided before the rows are made, from only the blocks that
weigh in it, which tasks give the client (workbench.cluster.filters.corpus_blocks).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.cluster.filters.doc_freqs import IdFilters
from workbench.cluster.filters.reduce import SPLIT_EVERY, merge_counts, shard_bag, shard_units
from workbench.cluster.records.light_pages import LightPages
from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.saved_rows import SavedRows, UnitRows, rows_here
from workbench.cluster.records.shards import ShardPage, ShardRef, new_shard, read_pages
from workbench.cluster.tasks import wait_all
from workbench.core.clusters.heap import release_free_memory
from workbench.core.mapped_arrays import let_go, mapped_empty
from workbench.core.progress import ProgressFn
from workbench.detect.join.matcher import SignatureMatrix
from workbench.detect.spotsigs import matrix_kernels
from workbench.detect.spotsigs.boilerplate import boilerplate_masks
from workbench.detect.spotsigs.extract import ExtractedPage, page_multisets
from workbench.detect.spotsigs.member_overlap import (
    RepeatedBlocks,
    compared_block_pages,
    part_with_matrix_ids,
    repeated_part,
)

ROWS_TASK = "matrix-rows"  # the rows tasks' names on the scheduler: matrix-rows-<id>
RETRIES = 2
_INT32_MAX = np.iinfo(np.int32).max
# (compared block hashes sorted, how many pages carry each).
BlockPages = tuple[np.ndarray, np.ndarray]
# A run of consecutive pages of the run: (unit, first position, end) among a shard unit's
# rows (``shard_units``), or unit -1: the client's own pages, positions among them.
Segment = tuple[int, int, int]


def where_pages_are(pages: Sequence[ExtractedPage]) -> Sequence[Any]:
    """Each page's place: the shard row of a page left in its shard, else the page. Light
    pages give the places they were read from, a few bytes a page (a list of refs was an
    object a page, held for the whole filter stage)."""
    if isinstance(pages, LightPages):
        return pages.places
    return [p.ref if isinstance(p, ShardPage) else p for p in pages]


def segments(refs: Sequence[Any]) -> list[Segment]:
    """``refs`` (the pages in the run's order) as runs of consecutive rows of one unit of
    ``shard_units(refs)`` (units numbered in their order there), or of the client's pages."""
    if isinstance(refs, ShardPlaces):
        return _place_segments(refs)
    unit_of: dict[str, int] = {}
    taken: list[int] = []  # rows of each unit met so far
    here = 0
    out: list[Segment] = []
    for ref in refs:
        if isinstance(ref, ShardRef):
            unit = unit_of.setdefault(ref.shard, len(unit_of))
            if unit == len(taken):
                taken.append(0)
            at = taken[unit]
            taken[unit] += 1
        elif isinstance(ref, ExtractedPage):
            unit, at = -1, here
            here += 1
        else:
            continue
        if out and out[-1][0] == unit and out[-1][2] == at:
            out[-1] = (unit, out[-1][1], at + 1)
        else:
            out.append((unit, at, at + 1))
    return out


def _place_segments(places: ShardPlaces) -> list[Segment]:
    """:func:`segments` of places, from their arrays: a unit is a shard, numbered as in
    ``places.paths`` (the order of their first pages, as ``shard_units`` numbers them), and
    each page's position is its rank among its unit's pages (-1: the client's pages)."""
    unit = places.shards.astype(np.int64)
    n = len(unit)
    if not n:
        return []
    order = np.argsort(unit, kind="stable")
    ordered = unit[order]
    first = np.ones(n, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    at = np.empty(n, dtype=np.int64)
    at[order] = np.arange(n) - group_start
    new = np.ones(n, dtype=bool)  # a run ends where the unit changes (ranks follow on within it)
    new[1:] = unit[1:] != unit[:-1]
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n)
    return list(zip(unit[starts].tolist(), at[starts].tolist(), (at[ends - 1] + 1).tolist(), strict=True))


def _ptr(counts: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


# -- The repeated blocks: a tree reduction of compared blocks' page counts ------------------

def page_block_pages(pages: Sequence[ExtractedPage], boiler: dict[str, np.ndarray]) -> BlockPages:
    """The compared blocks of ``pages`` (boilerplate ``boiler`` left out) and their pages."""
    hashes = [p.block_hashes for p in pages]
    return compared_block_pages(hashes, boilerplate_masks([p.info for p in pages], hashes, boiler))


def repeated_of(counts: BlockPages) -> BlockPages:
    """The repeated blocks: the compared blocks on two pages or more, with their pages."""
    ids, pages = counts
    keep = pages >= 2
    return ids[keep], pages[keep]


def _read(shard: str, rows: UnitRows | SavedRows) -> list[ExtractedPage]:
    pages = read_pages(shard)
    return [pages[r] for r in rows_here(rows)]


def _count_partition(items: Iterable[tuple[str, UnitRows | SavedRows]], boiler: dict[str, np.ndarray]
                     ) -> list[BlockPages]:
    return [merge_counts(page_block_pages(_read(shard, rows), boiler) for shard, rows in items)]


# -- The rows --------------------------------------------------------------------------------

def rows_of(pages: Sequence[ExtractedPage], boiler: dict[str, np.ndarray], block_ids: np.ndarray,
            filters: IdFilters, min_sigs: int) -> dict[str, np.ndarray]:
    """The pages' rows of the signature matrix after the filters, as ``filter_corpus``
    makes them here (``SignatureMatrix.filtered``): their ids numbered by their place in
    the crawl's vocabulary (as ``MatrixBuilder.finish`` numbers them), only the counted
    and indexed ones, each page's length (its counted signatures) and its counted but
    unindexed signatures' count, a page shorter than ``min_sigs`` left empty; and their
    part of the repeated blocks' table with matrix ids (``with_matrix_ids``)."""
    vocabulary, counted, indexed = filters
    infos, hashes = [p.info for p in pages], [p.block_hashes for p in pages]
    masks = boilerplate_masks(infos, hashes, boiler)
    ptr, ids, counts = page_multisets(pages, masks)
    dense = np.searchsorted(vocabulary, ids)
    if len(ids) and not np.array_equal(vocabulary[np.minimum(dense, len(vocabulary) - 1)], ids):
        raise RuntimeError("a page's signature is not in the crawl's vocabulary")
    del ids
    sig = dense.astype(np.int32)
    cnt = np.minimum(counts, _INT32_MAX).astype(np.int32)
    del dense, counts
    lengths, left_out = matrix_kernels.row_totals(ptr, sig, cnt, counted, indexed)
    # Indexed ids are counted ones (doc_freqs.id_filters); pages too short never stay.
    kept_ptr, kept_sig, kept_cnt = matrix_kernels.keep_entries(ptr, sig, cnt, indexed,
                                                               lengths >= max(min_sigs, 1))
    part = part_with_matrix_ids(
        repeated_part([p.spot_ids for p in pages], [p.spot_block for p in pages], hashes, masks, block_ids),
        vocabulary)
    return {"ptr": kept_ptr, "ids": kept_sig, "counts": kept_cnt, "lengths": lengths, "left_out": left_out,
            "with_sigs": np.array([np.count_nonzero(np.diff(ptr))], dtype=np.int64),
            "blocks_of_page": part[0], "page_block": part[1], "spots_of_page": part[2], "sig_id": part[3],
            "sig_block": part[4]}


def rows_task(shard: str, rows: UnitRows | SavedRows, boiler: dict[str, np.ndarray], repeated: BlockPages,
              filters: IdFilters, min_sigs: int, work_dir: str) -> tuple[str, int]:
    """Task: the rows of rows ``rows`` of a page shard, written into the work directory;
    returns the file and its pages with any signature before the filters."""
    got = rows_of(_read(shard, rows), boiler, repeated[0], filters, min_sigs)
    path = new_shard(work_dir, "rows").with_suffix(".npz")
    part = path.with_suffix(".part")
    with open(part, "wb") as out:  # whole or not at all, as the page shards
        arrays: dict[str, Any] = got
        np.savez(out, **arrays)
    os.replace(part, path)
    return str(path), int(got["with_sigs"][0])


# Each page's figures in the rows files, read first (a few bytes a page).
_PER_PAGE = ("ptr", "lengths", "left_out", "blocks_of_page", "spots_of_page")


class _RowsFiles:
    """The rows tasks' files (and the rows of the pages the client holds) walked in the
    run's order, a unit's file read once a walk and only the arrays asked for: each walk
    copies straight into arrays sized once, so no unit's arrays outlive its turn and
    nothing is concatenated."""

    def __init__(self, refs: Sequence[Any], files: list[str], mine: dict[str, np.ndarray] | None) -> None:
        self.segments = segments(refs)
        self.files = files
        self.mine = mine

    def walk(self, names: Sequence[str]) -> Iterator[tuple[int, int, dict[str, np.ndarray]]]:
        """Each segment's first and end row in its unit and the unit's arrays ``names``."""
        loaded: tuple[int, dict[str, np.ndarray]] | None = None
        for unit, lo, hi in self.segments:
            if unit < 0:
                assert self.mine is not None
                yield lo, hi, self.mine
                continue
            if loaded is None or loaded[0] != unit:
                loaded = None  # the last unit's arrays go before the next one's are read
                with np.load(self.files[unit]) as npz:
                    loaded = unit, {name: npz[name] for name in names}
            yield lo, hi, loaded[1]


def matrix_rows_on(client: Any, work_dir: Path, refs: Sequence[Any], boiler: dict[str, np.ndarray],
                   filters: Any, min_sigs: int, progress: ProgressFn) -> tuple[FilteredMade, RepeatedInFiles]:
    """The signature matrix's rows after the filters and the repeated blocks of the pages
    ``refs`` names (ShardRefs; an ExtractedPage there is a page the client holds and is
    done here), made by the cluster's tasks with the boilerplate ``boiler`` decided.
    ``filters``: the vocabulary and what the IDF filter makes of each id
    (``doc_freqs.id_filters``; or a Dask future of them, from the document frequencies'
    reduction), by which the tasks number and filter their ids: the client never holds
    64-bit ids, nor the matrix before the filters (it held the matrix and its filtered
    copy at once: about 3.5 KB a page at the filter stage's peak)."""
    from dask.delayed import delayed

    units, here = shard_units(refs)
    own = page_block_pages(here, boiler)
    futures: list[Any] = []
    if units:
        [shared] = client.scatter([boiler], hash=False)  # into the cluster once, not into every task
        counted = shard_bag(units).map_partitions(_count_partition, delayed(boiler, traverse=False))
        tree = counted.reduction(merge_counts, merge_counts, split_every=SPLIT_EVERY, name="repeated-blocks")
        repeated = client.compute(tree.apply(lambda whole: repeated_of(merge_counts([whole, own]))))
        futures = [client.submit(rows_task, shard, rows, shared, repeated, filters, min_sigs, str(work_dir),
                                 pure=False, retries=RETRIES, key=f"{ROWS_TASK}-{uuid.uuid4().hex}")
                   for shard, rows in units]

        def report(done: int) -> None:
            progress("tasks", done, len(futures))

        done = wait_all(client, futures, report)
        block_ids, block_pages = repeated.result()
        if not isinstance(filters, tuple):
            filters = filters.result()
    else:
        done = []
        block_ids, block_pages = repeated_of(own)
    mine = rows_of(here, boiler, block_ids, filters, min_sigs) if here else None
    files = _RowsFiles(refs, [path for path, _ in done], mine)
    made = FilteredMade(files, len(refs), filters[0], filters[1],
                        sum(with_sigs for _, with_sigs in done) + (int(mine["with_sigs"][0]) if mine else 0))
    return made, RepeatedInFiles(files, made, block_ids, block_pages)


class FilteredMade:
    """The filtered rows read back: each page's figures first (its length, for the
    caller to say which pages stay), then the matrix (:meth:`finish`)."""

    def __init__(self, files: _RowsFiles, pages: int, vocabulary: np.ndarray, counted: np.ndarray,
                 with_sigs: int) -> None:
        self.files: _RowsFiles | None = files
        self.vocabulary = np.asarray(vocabulary, np.int64)
        self.counted = counted
        self.with_sigs = with_sigs  # pages with any signature before the filters
        self.lengths = np.empty(pages, dtype=np.int64)
        self.left_out = np.empty(pages, dtype=np.int64)
        self.entries = np.empty(pages, dtype=np.int64)  # each page's entries left by the tasks
        self.blocks_of_page = np.empty(pages, dtype=np.int64)
        self.spots_of_page = np.empty(pages, dtype=np.int64)
        at = 0
        for lo, hi, got in files.walk(_PER_PAGE):
            self.lengths[at : at + hi - lo] = got["lengths"][lo:hi]
            self.left_out[at : at + hi - lo] = got["left_out"][lo:hi]
            self.entries[at : at + hi - lo] = np.diff(got["ptr"][lo : hi + 1])
            self.blocks_of_page[at : at + hi - lo] = got["blocks_of_page"][lo:hi]
            self.spots_of_page[at : at + hi - lo] = got["spots_of_page"][lo:hi]
            at += hi - lo
        if at != pages:
            raise RuntimeError(f"the rows files held {at:,} pages, not {pages:,}")

    def too_common_ids(self) -> frozenset[int]:
        """The raw ids the IDF filter left out (as ``filter_corpus`` finds them in the
        matrix before the filter: every id of the vocabulary is on some page)."""
        return frozenset(self.vocabulary[~self.counted].tolist())

    def finish(self, keep_rows: np.ndarray) -> SignatureMatrix:
        """The matrix, the rows where ``keep_rows`` is false empty (lengths included):
        ``SignatureMatrix.filtered``'s, filled in place from the files."""
        if self.files is None:
            raise RuntimeError("the matrix is finished")
        files, self.files = self.files, None
        keep = np.asarray(keep_rows, dtype=bool)
        ptr = _ptr(np.where(keep, self.entries, 0))
        # In a mapped file, not in the client's own memory (0.7 KB a small page: it grew
        # the client with the crawl): each unit's rows are let go once written, and the
        # matrix's readers after this go over it a part at a time (SignatureMatrix).
        sig = mapped_empty(int(ptr[-1]), np.int32)
        cnt = mapped_empty(int(ptr[-1]), np.int32)
        page = 0
        for lo, hi, got in files.walk(("ptr", "ids", "counts")):
            # A page the caller set aside for another reason: its entries stay out.
            kept, at = keep[page : page + hi - lo], int(ptr[page])
            _copy_rows(got["ids"], got["ptr"], lo, hi, kept, sig, at)
            _copy_rows(got["counts"], got["ptr"], lo, hi, kept, cnt, at)
            page += hi - lo
            let_go(sig[at : int(ptr[page])], cnt[at : int(ptr[page])])
        unindexed = np.where(keep, self.left_out, 0)
        self.entries = self.left_out = np.empty(0, np.int64)
        # As filter_corpus's matrix: a crawl without signatures has no raw ids.
        raw_ids = self.vocabulary if len(self.vocabulary) else None
        release_free_memory()  # the same for the rows' arrays read
        return SignatureMatrix(ptr, sig, cnt, raw_ids, unindexed)


class RepeatedInFiles:
    """The repeated blocks' table left in the rows files until boilerplate shares ask for
    the rows they read (``member_overlap.RepeatedSource``): the whole table is about
    0.5 KB a small page (about 500 MB on a million), which the client then does not hold
    while it matches and clusters, and afterwards holds only the references' and members'
    spot rows. Each call copies the rows asked for from the files, a unit at a time, into
    arrays sized once (``joined_parts`` and ``with_matrix_ids`` without their copies)."""

    def __init__(self, files: _RowsFiles, made: FilteredMade, block_ids: np.ndarray,
                 block_pages: np.ndarray) -> None:
        self.files = files
        self.block_ids, self.block_pages = block_ids, block_pages
        # Each page's rows in the table: a few bytes a page, to size the copies.
        self.blocks_of_page = made.blocks_of_page.astype(np.int32)
        self.spots_of_page = made.spots_of_page.astype(np.int32)
        made.blocks_of_page = made.spots_of_page = np.empty(0, np.int64)

    @property
    def n_pages(self) -> int:
        return len(self.blocks_of_page)

    def for_pages(self, spots: np.ndarray, blocks: np.ndarray) -> RepeatedBlocks:
        n = self.n_pages
        spots, blocks = np.asarray(spots[:n], dtype=bool), np.asarray(blocks[:n], dtype=bool)
        page_block_ptr = _ptr(np.where(blocks, self.blocks_of_page, 0))
        sig_ptr = _ptr(np.where(spots, self.spots_of_page, 0))
        page_block = np.empty(int(page_block_ptr[-1]), dtype=np.int32)
        sig_id = np.empty(int(sig_ptr[-1]), dtype=np.int32)
        sig_block = np.empty(int(sig_ptr[-1]), dtype=np.int32)
        page = 0
        for lo, hi, got in self.files.walk(("blocks_of_page", "spots_of_page", "page_block", "sig_id",
                                            "sig_block")):
            on_page, end = _ptr(got["blocks_of_page"]), page + hi - lo
            _copy_rows(got["page_block"], on_page, lo, hi, blocks[page:end], page_block,
                       int(page_block_ptr[page]))
            on_page = _ptr(got["spots_of_page"])
            _copy_rows(got["sig_id"], on_page, lo, hi, spots[page:end], sig_id, int(sig_ptr[page]))
            _copy_rows(got["sig_block"], on_page, lo, hi, spots[page:end], sig_block, int(sig_ptr[page]))
            page = end
        return RepeatedBlocks(self.block_ids, self.block_pages, page_block_ptr, page_block, sig_ptr, sig_id,
                              sig_block, matrix_ids=True)


def _copy_rows(values: np.ndarray, ptr: np.ndarray, lo: int, hi: int, wanted: np.ndarray, out: np.ndarray,
               at: int) -> None:
    """Rows ``lo:hi`` of a file's table (``values`` by row pointers ``ptr``), those of the
    ``wanted`` pages only, into ``out`` from ``at``."""
    a, b = int(ptr[lo]), int(ptr[hi])
    if wanted.all():
        out[at : at + b - a] = values[a:b]
    elif wanted.any():
        kept = values[a:b][np.repeat(wanted, np.diff(ptr[lo : hi + 1]))]
        out[at : at + len(kept)] = kept
