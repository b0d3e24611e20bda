"""The signature matrix's rows and the repeated blocks' table made by the cluster's tasks.

Once the boilerplate is decided (each site's, from workbench.cluster.reduce, and the corpus
boilerplate), every page's row of the matrix is known from the page alone: its spots
without the boilerplate's blocks, as a multiset (``page_multisets``). So one task per page
shard reads its pages, masks their boilerplate and writes their rows (row pointers,
signature ids, counts) into a ``rows-*.npz`` file in the work directory, with the pages'
part of the repeated blocks' table (``member_overlap.repeated_part``). The ids are written
as the matrix holds them, numbered by their place in the crawl's vocabulary (every id of
the rows, sorted), which the document frequencies' reduction has on its last task anyway
(workbench.cluster.doc_freqs): the client never holds the 64-bit ids nor renumbers them,
the step whose peak was the client's (``MatrixBuilder.finish``). The table's part needs the
whole crawl's repeated blocks (compared blocks on two pages or more), counted first by a
tree reduction over the shards, as the site counts are (``member_overlap.compared_block_pages``
per shard, added up pairwise on the workers): the rows tasks take its answer straight from
the cluster. The client reads the files in page order into the matrix's arrays and the
table's parts into :class:`RepeatedBlocks`: the same arrays as the local run's, without
ever holding the pages' packed arrays.

The corpus boilerplate's inputs (block hashes and weights) are read by the client from
their own columns of the shards (:func:`corpus_inputs`): the decision samples pages of
each frequent block across the whole crawl and takes medians over them, so it needs every
page's blocks at once; they cost 16 bytes a block for the moment of the decision only.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.cluster.reduce import SPLIT_EVERY, add_counts, shard_bag, shard_units
from workbench.cluster.shards import ShardPage, ShardRef, new_shard, read_block_inputs, read_pages
from workbench.cluster.tasks import wait_all
from workbench.core.progress import ProgressFn
from workbench.detect.join.matcher import SignatureMatrix
from workbench.detect.spotsigs.boilerplate import boilerplate_masks
from workbench.detect.spotsigs.corpus_boilerplate import block_weights
from workbench.detect.spotsigs.extract import ExtractedPage, page_multisets
from workbench.detect.spotsigs.member_overlap import (
    RepeatedBlocks,
    RepeatedPart,
    compared_block_pages,
    joined_parts,
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


def where_pages_are(pages: Sequence[ExtractedPage]) -> list[Any]:
    """Each page's place: the shard row of a page left in its shard, else the page."""
    return [p.ref if isinstance(p, ShardPage) else p for p in pages]


def segments(refs: Sequence[Any]) -> list[Segment]:
    """``refs`` (the pages in the run's order) as runs of consecutive rows of one unit of
    ``shard_units(refs)`` (units numbered in their order there), or of the client's pages."""
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


def _ptr(counts: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


# -- The corpus boilerplate's inputs (read by the client, columns only) ---------------------

def corpus_inputs(refs: Sequence[Any], blocks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every page's block hashes and weights, flat and in the run's order, and each page's
    number of blocks (``blocks`` in all): from the shards' two columns, and from the
    client's own pages."""
    units, here = shard_units(refs)
    hashes = np.empty(blocks, dtype=np.int64)
    weights = np.empty(blocks, dtype=np.float64)
    sizes = np.empty(len(refs), dtype=np.int64)
    read: tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    at = page = 0
    for unit, lo, hi in segments(refs):
        if unit < 0:
            mine = here[lo:hi]
            got = (np.concatenate([p.block_hashes for p in mine]),
                   np.concatenate([block_weights(p.spot_block, p.n_blocks) for p in mine]),
                   np.fromiter((p.n_blocks for p in mine), dtype=np.int64, count=hi - lo))
            lo, hi = 0, hi - lo
        else:
            if read is None or read[0] != unit:
                shard, rows = units[unit]
                h, w, n = read_block_inputs(shard)
                if rows != list(range(len(n))):  # some of the shard's rows only
                    ptr = _ptr(n)
                    keep = np.concatenate([np.arange(ptr[r], ptr[r + 1]) for r in rows])
                    h, w, n = h[keep], w[keep], n[rows]
                read = unit, (h, w, n)
            got = read[1]
        ptr = _ptr(got[2])
        a, b = int(ptr[lo]), int(ptr[hi])
        hashes[at : at + b - a] = got[0][a:b]
        weights[at : at + b - a] = got[1][a:b]
        sizes[page : page + hi - lo] = got[2][lo:hi]
        at, page = at + b - a, page + hi - lo
    if at != blocks or page != len(refs):
        raise RuntimeError(f"the shards held {at:,} blocks of {page:,} pages, "
                           f"not {blocks:,} of {len(refs):,}")
    return hashes, weights, sizes


# -- The repeated blocks: a tree reduction of compared blocks' page counts ------------------

def page_block_pages(pages: Sequence[ExtractedPage], boiler: dict[str, np.ndarray]) -> BlockPages:
    """The compared blocks of ``pages`` (boilerplate ``boiler`` left out) and their pages."""
    hashes = [p.block_hashes for p in pages]
    return compared_block_pages(hashes, boilerplate_masks([p.info for p in pages], hashes, boiler))


def merge(parts: Iterable[BlockPages]) -> BlockPages:
    """Partial counts added up (the reduction's step; associative and commutative)."""
    got = [p for p in parts if len(p[0])]
    if not got:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return got[0] if len(got) == 1 else add_counts(got)


def repeated_of(counts: BlockPages) -> BlockPages:
    """The repeated blocks: the compared blocks on two pages or more, with their pages."""
    ids, pages = counts
    keep = pages >= 2
    return ids[keep], pages[keep]


def _read(shard: str, rows: Sequence[int]) -> list[ExtractedPage]:
    pages = read_pages(shard)
    return [pages[r] for r in rows]


def _count_partition(items: Iterable[tuple[str, list[int]]], boiler: dict[str, np.ndarray]
                     ) -> list[BlockPages]:
    return [merge(page_block_pages(_read(shard, rows), boiler) for shard, rows in items)]


# -- The rows --------------------------------------------------------------------------------

def rows_of(pages: Sequence[ExtractedPage], boiler: dict[str, np.ndarray], block_ids: np.ndarray,
            vocabulary: np.ndarray) -> dict[str, np.ndarray]:
    """The pages' rows of the signature matrix before the IDF filter (as ``filter_corpus``
    makes them here), their ids numbered by their place in ``vocabulary`` (every id of the
    crawl's rows, sorted: as ``MatrixBuilder.finish`` numbers them), and their part of the
    repeated blocks' table."""
    infos, hashes = [p.info for p in pages], [p.block_hashes for p in pages]
    masks = boilerplate_masks(infos, hashes, boiler)
    ptr, ids, counts = page_multisets(pages, masks)
    dense = np.searchsorted(vocabulary, ids)
    if len(ids) and not np.array_equal(vocabulary[np.minimum(dense, len(vocabulary) - 1)], ids):
        raise RuntimeError("a page's signature is not in the crawl's vocabulary")
    part = repeated_part([p.spot_ids for p in pages], [p.spot_block for p in pages], hashes, masks, block_ids)
    return {"ptr": ptr, "ids": dense.astype(np.int32),
            "counts": np.minimum(counts, _INT32_MAX).astype(np.int32),
            "blocks_of_page": part[0], "page_block": part[1], "spots_of_page": part[2], "sig_id": part[3],
            "sig_block": part[4]}


def rows_task(shard: str, rows: list[int], boiler: dict[str, np.ndarray], repeated: BlockPages,
              vocabulary: np.ndarray, work_dir: str) -> tuple[str, int]:
    """Task: the rows of rows ``rows`` of a page shard, written into the work directory;
    returns the file and its matrix entries."""
    got = rows_of(_read(shard, rows), boiler, repeated[0], vocabulary)
    path = new_shard(work_dir, "rows").with_suffix(".npz")
    part = path.with_suffix(".part")
    with open(part, "wb") as out:  # whole or not at all, as the page shards
        arrays: dict[str, Any] = got
        np.savez(out, **arrays)
    os.replace(part, path)
    return str(path), len(got["ids"])


def _slice(got: dict[str, np.ndarray], lo: int, hi: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray],
                                                                     RepeatedPart]:
    """Rows lo:hi of a unit's file: their matrix rows and their repeated blocks' part."""
    ptr = got["ptr"]
    a, b = int(ptr[lo]), int(ptr[hi])
    blocks, spots = _ptr(got["blocks_of_page"]), _ptr(got["spots_of_page"])
    ba, bb, sa, sb = int(blocks[lo]), int(blocks[hi]), int(spots[lo]), int(spots[hi])
    return ((ptr[lo : hi + 1] - a, got["ids"][a:b], got["counts"][a:b]),
            (got["blocks_of_page"][lo:hi], got["page_block"][ba:bb], got["spots_of_page"][lo:hi],
             got["sig_id"][sa:sb], got["sig_block"][sa:sb]))


def matrix_rows_on(client: Any, work_dir: Path, refs: Sequence[Any], boiler: dict[str, np.ndarray],
                   vocabulary: Any, progress: ProgressFn) -> tuple[SignatureMatrix, RepeatedBlocks]:
    """The raw signature matrix (before the IDF filter) and the repeated blocks of the
    pages ``refs`` names (ShardRefs; an ExtractedPage there is a page the client holds and
    is done here), made by the cluster's tasks with the boilerplate ``boiler`` decided.
    ``vocabulary``: the rows' ids, sorted (or a Dask future of them: the document
    frequencies' reduction, workbench.cluster.doc_freqs), by which the tasks number them:
    the client never holds 64-bit ids nor renumbers them (``MatrixBuilder.finish`` held
    about 3 KB a page at its peak)."""
    from dask.delayed import delayed

    units, here = shard_units(refs)
    own = page_block_pages(here, boiler)
    futures: list[Any] = []
    if units:
        [shared] = client.scatter([boiler], hash=False)  # into the cluster once, not into every task
        counted = shard_bag(units).map_partitions(_count_partition, delayed(boiler, traverse=False))
        tree = counted.reduction(merge, merge, split_every=SPLIT_EVERY, name="repeated-blocks")
        repeated = client.compute(tree.apply(lambda whole: repeated_of(merge([whole, own]))))
        futures = [client.submit(rows_task, shard, rows, shared, repeated, vocabulary, str(work_dir),
                                 pure=False, retries=RETRIES, key=f"{ROWS_TASK}-{uuid.uuid4().hex}")
                   for shard, rows in units]

        def report(done: int) -> None:
            progress("tasks", done, len(futures))

        done = wait_all(client, futures, report)
        block_ids, block_pages = repeated.result()
        if not isinstance(vocabulary, np.ndarray):
            vocabulary = vocabulary.result()
    else:
        done = []
        block_ids, block_pages = repeated_of(own)
    mine = rows_of(here, boiler, block_ids, vocabulary) if here else None
    entries = sum(count for _, count in done) + (len(mine["ids"]) if mine else 0)
    filled = _Rows(len(refs), entries)
    parts: list[RepeatedPart] = []
    loaded: tuple[int, dict[str, np.ndarray]] | None = None
    for unit, lo, hi in segments(refs):
        if unit < 0:
            assert mine is not None
            got = mine
        else:
            if loaded is None or loaded[0] != unit:
                with np.load(done[unit][0]) as npz:
                    loaded = unit, {name: npz[name] for name in npz.files}
            got = loaded[1]
        row_part, repeated_part_ = _slice(got, lo, hi)
        filled.add(*row_part)
        parts.append(repeated_part_)
    del loaded, mine
    return filled.matrix(vocabulary), joined_parts(block_ids, block_pages, parts)


class _Rows:
    """The matrix's arrays filled row by row with ids already numbered: what
    ``MatrixBuilder`` gives for the same rows, without its 64-bit ids and renumbering."""

    def __init__(self, pages: int, entries: int) -> None:
        self.ptr = np.zeros(pages + 1, dtype=np.int64)
        self.sig = np.empty(entries, dtype=np.int32)
        self.cnt = np.empty(entries, dtype=np.int32)
        self.rows = 0

    def add(self, ptr: np.ndarray, sig: np.ndarray, cnt: np.ndarray) -> None:
        at = int(self.ptr[self.rows])
        self.sig[at : at + len(sig)] = sig
        self.cnt[at : at + len(sig)] = cnt
        self.ptr[self.rows + 1 : self.rows + len(ptr)] = at + ptr[1:]
        self.rows += len(ptr) - 1

    def matrix(self, vocabulary: np.ndarray) -> SignatureMatrix:
        if self.rows != len(self.ptr) - 1 or int(self.ptr[-1]) != len(self.sig):
            raise RuntimeError(f"{self.rows:,} rows of {len(self.ptr) - 1:,} made")
        if not len(self.sig):  # as MatrixBuilder.finish: no ids, no raw ids
            return SignatureMatrix(self.ptr, self.sig, self.cnt)
        if int(self.sig.max()) + 1 != len(vocabulary):
            raise RuntimeError("the vocabulary has ids no row has")
        return SignatureMatrix(self.ptr, self.sig, self.cnt, np.asarray(vocabulary, np.int64))
