"""Exact all-pairs multiset Jaccard >= tau: a prefix-filtered inverted index.

SIGIR'08's Algorithm 1 indexes every signature of every page in tau-only length
partitions and bounds each list with delta1 (the frequency of the signatures a page has
finished). Measured on 100,000 small pages, most of its time went into candidates that
fail at low tau (21.6 million compared for 0.2 million pairs at tau 0.44). The
set-similarity-join literature prunes far more with the same exactness: a global order
of signatures by rarity, prefix filtering on *both* sides (only the first
|d| - ceil(tau |d|) + 1 items of each page are indexed and probed), the length filter and
PPJoin's positional filter, and verification that merges only what the prefixes did not
already count. The loops are in :mod:`workbench.detect.join.allpairs` (compiled with numba);
here the pages are ranked, the index sized and the probing spread over threads.

Like the paper's bounds, every filter is sound: the property tests compare the pairs
with brute force. The paper's line 17 (stop a list when delta1 + delta2 > (1 - tau) L)
is not: d = {s1: 3, s2: 7}, d' = {s2: 7}, tau = 0.5 has J = 0.7 but is cut by it.
Exact duplicates (same checksum) get similarity 1.0 without comparison.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from workbench.core.distinct import count_distinct, distinct
from workbench.core.mapped_arrays import let_go, parts, row_parts, rows_at_once
from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join import allpairs
from workbench.detect.spotsigs import matrix_kernels

# Probing reads a shared index without the GIL: one thread per core.
_THREADS = max(1, min(os.cpu_count() or 1, 8))


@dataclass(slots=True)
class SignatureMatrix:
    """Pages as sparse multisets (CSR): page i owns entries ptr[i]:ptr[i+1].

    ``sig`` holds dense signature ids, ascending within each page; ``cnt`` their counts.
    ``unindexed[i]`` counts page i's signatures that are part of the page but left out of
    the index because no other page has them (they can never be shared): they add to the
    page's length, so similarity is measured against the whole page, and cost nothing in
    the inverted lists.
    """

    ptr: np.ndarray  # int64, n + 1
    sig: np.ndarray  # integer: int32 from MatrixBuilder, any integer type accepted
    cnt: np.ndarray  # integer, as sig
    raw_ids: np.ndarray | None = None  # dense id -> the signature's 64-bit id, when known
    unindexed: np.ndarray | None = None  # int64 per page, or None for all zero

    @property
    def n(self) -> int:
        return len(self.ptr) - 1

    # A matrix whose ``sig`` and ``cnt`` lie in a mapped file (a cluster's run:
    # workbench.core.mapped_arrays) is read in parts by its whole passes, each part let go
    # once read, so a pass adds only a part to the process's memory; ``let_go`` gives back
    # what reads of a few rows left (a no-op for a matrix in the process's own memory).

    @property
    def n_signatures(self) -> int:
        return max((int(part.max()) + 1 for part in parts(self.sig) if len(part)), default=0)

    def lengths(self) -> np.ndarray:
        """|d| of every page: the total of its signature counts, indexed or not."""
        # Summed row by row in a compiled loop, not by a bincount over each entry's row
        # (that made two arrays of 8 bytes an entry: 420 MB for a moment on 300,000 small
        # pages) nor by np.add.reduceat, which copies the counts cast to int64 first.
        sums = np.empty(self.n, dtype=np.int64)
        for lo, hi in row_parts(self.ptr, self.cnt):
            sums[lo:hi] = matrix_kernels.row_sums(self.ptr[lo : hi + 1], self.cnt)
        return sums if self.unindexed is None else sums + self.unindexed

    def id_counts(self, minlength: int | None = None) -> np.ndarray:
        """How many entries hold each id (``np.bincount(sig)``, at least ``minlength``
        long), counted in a compiled pass without a 64-bit copy of ``sig``."""
        out = np.zeros(self.n_signatures if minlength is None else minlength, dtype=np.int64)
        for part in parts(self.sig):
            out = matrix_kernels.add_id_counts(part, out)
        return out

    def distinct_signatures(self) -> int:
        """How many distinct ids the matrix holds: counted by id when its ids are dense
        (a matrix's own numbering), without sorting a copy of ``sig`` (5 bytes an entry)."""
        n_ids = self.n_signatures
        if n_ids > 4 * len(self.sig) + 1024:  # sparse ids (raw 64-bit ones): sorted instead
            return count_distinct(self.sig)
        return int(np.count_nonzero(self.id_counts(n_ids)))

    def let_go(self) -> None:
        """Give back the resident pages of a mapped matrix's entries (see above)."""
        let_go(self.sig, self.cnt)

    def unindexed_counts(self) -> np.ndarray:
        return np.zeros(self.n, np.int64) if self.unindexed is None else self.unindexed

    def row_of_entries(self) -> np.ndarray:
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ptr))

    @classmethod
    def from_vectors(cls, vectors: list[tuple[np.ndarray, np.ndarray]]) -> SignatureMatrix:
        """From per-page (signature ids, counts), ids in any 64-bit space.

        The list is emptied as it is read (its arrays are let go early to keep the
        peak memory of a 100,000-page run down).
        """
        builder = MatrixBuilder(len(vectors), sum(len(v[0]) for v in vectors))
        for i in range(len(vectors)):
            builder.add(*vectors[i])
            # None in a list of vectors: the page's arrays go now, not when the list is cleared.
            vectors[i] = None  # type: ignore[call-overload]
        vectors.clear()
        return builder.finish()

    def sorted_rows(self) -> SignatureMatrix:
        """The same matrix with ids ascending inside every page (merging repeats)."""
        rows = self.row_of_entries()
        order = np.lexsort((self.sig, rows))
        rows, sig, cnt = rows[order], self.sig[order], self.cnt[order]
        if len(sig) > 1:
            new = np.ones(len(sig), dtype=bool)
            new[1:] = (rows[1:] != rows[:-1]) | (sig[1:] != sig[:-1])
            if not new.all():
                starts = np.flatnonzero(new)
                cnt = np.add.reduceat(cnt, starts)
                rows, sig = rows[starts], sig[starts]
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n), out=ptr[1:])
        return SignatureMatrix(ptr, sig, cnt, self.raw_ids, self.unindexed)

    def select_entries(self, keep: np.ndarray) -> SignatureMatrix:
        """Keep only the entries where ``keep`` is true (e.g. after the IDF filter); the
        others leave the page altogether."""
        rows = self.row_of_entries()[keep]
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n), out=ptr[1:])
        return SignatureMatrix(ptr, self.sig[keep], self.cnt[keep], self.raw_ids, self.unindexed)

    def index_only(self, indexed: np.ndarray) -> SignatureMatrix:
        """Keep the entries where ``indexed`` is true in the index; the others stay in the
        pages' lengths (``unindexed``) but are never listed or compared."""
        rows = self.row_of_entries()
        left_out = np.bincount(rows[~indexed], weights=self.cnt[~indexed], minlength=self.n)
        m = self.select_entries(indexed)
        m.unindexed = self.unindexed_counts() + left_out.astype(np.int64)
        return m

    def filtered(self, counted: np.ndarray, indexed: np.ndarray,
                 usable: Callable[[np.ndarray], np.ndarray]) -> tuple[SignatureMatrix, np.ndarray]:
        """``select_entries``, ``index_only`` and ``select_rows`` in two passes that make no
        array of the matrix's size: ``counted`` and ``indexed`` are per signature id (not
        per entry); ``usable`` gets each page's length (its counted signatures) and says
        which pages stay. Returns the matrix and those lengths."""
        lengths, left_out = matrix_kernels.row_totals(self.ptr, self.sig, self.cnt, counted, indexed)
        keep_rows = np.asarray(usable(lengths), dtype=bool)
        ptr, sig, cnt = matrix_kernels.keep_entries(self.ptr, self.sig, self.cnt, counted & indexed,
                                                    keep_rows)
        unindexed = np.where(keep_rows, self.unindexed_counts() + left_out, 0)
        return SignatureMatrix(ptr, sig, cnt, self.raw_ids, unindexed), lengths

    def select_rows(self, keep_rows: np.ndarray) -> SignatureMatrix:
        """Empty the rows where ``keep_rows`` is false (pages set aside), lengths included."""
        m = self.select_entries(keep_rows[self.row_of_entries()])
        if m.unindexed is not None:
            m.unindexed = np.where(keep_rows, m.unindexed, 0)
        return m


@dataclass(slots=True)
class FilteredRows:
    """A signature matrix's rows made with the IDF filter and the unindexed signatures
    already applied where they were made (a cluster's tasks: workbench.cluster.filters.rows), so
    that no process holds the matrix before the filters and its filtered copy at once.
    What :meth:`SignatureMatrix.filtered` gives, in two steps: each page's ``lengths``
    (its counted signatures) first, for the caller to say which pages stay, then
    ``finish(keep_rows)``: the matrix, its left-out pages' rows empty."""

    lengths: np.ndarray  # int64 per page
    too_common_ids: frozenset[int]  # the raw ids the IDF filter left out of the pages
    idf_applied: bool
    finish: Callable[[np.ndarray], SignatureMatrix]


class MatrixBuilder:
    """A :class:`SignatureMatrix` filled page by page into arrays sized once.

    At a million pages, a list of per-page arrays cost more than the matrix: every small
    array that is freed stays in the allocator's heap, where the matrix's large arrays
    cannot reuse it, so the list's memory was never given back during the run.
    ``capacity``: at least the number of entries that will be added (e.g. the pages' spot
    occurrences, which their distinct signatures never exceed).

    The finished matrix holds int32 ids and counts: half the memory of int64 for a
    matrix of a hundred million entries, and a corpus has far fewer than 2**31 distinct
    signatures (a count over 2**31 - 1 is kept at that).
    """

    def __init__(self, pages: int, capacity: int) -> None:
        self.ptr = np.zeros(pages + 1, dtype=np.int64)
        self.ids: np.ndarray | None = np.empty(capacity, dtype=np.int64)  # 64-bit until finish
        self.cnt = np.empty(capacity, dtype=np.int32)
        self.rows = 0

    def add(self, ids: np.ndarray, counts: np.ndarray) -> None:
        """The next page: its signature ids (any 64-bit values) and their counts."""
        if self.ids is None:
            raise ValueError("the matrix is finished")
        at = int(self.ptr[self.rows])
        self.ids[at : at + len(ids)] = ids
        self.cnt[at : at + len(ids)] = np.minimum(counts, _INT32_MAX)
        self.rows += 1
        self.ptr[self.rows] = at + len(ids)

    def add_rows(self, ptr: np.ndarray, ids: np.ndarray, counts: np.ndarray) -> None:
        """The next pages at once: page r's ids are ``ids[ptr[r]:ptr[r + 1]]`` (``ptr[0]``
        is 0), with their counts."""
        if self.ids is None:
            raise ValueError("the matrix is finished")
        rows = len(ptr) - 1
        at = int(self.ptr[self.rows])
        self.ids[at : at + len(ids)] = ids
        self.cnt[at : at + len(ids)] = np.minimum(counts, _INT32_MAX)
        self.ptr[self.rows + 1 : self.rows + rows + 1] = at + ptr[1:]
        self.rows += rows

    def finish(self) -> SignatureMatrix:
        """The matrix, signature ids made dense (0 .. distinct - 1, in the ids' order)."""
        if self.rows != len(self.ptr) - 1:
            raise ValueError(f"{self.rows} pages added of {len(self.ptr) - 1}")
        if self.ids is None:
            raise ValueError("the matrix is finished")
        total = int(self.ptr[-1])
        raw = self.ids[:total]
        # Copied when the capacity was larger, so that the spare room goes.
        cnt = self.cnt[:total].copy() if total < len(self.cnt) else self.cnt
        self.ids, self.cnt = None, np.empty(0, np.int32)
        if total == 0:
            return SignatureMatrix(self.ptr, np.empty(0, np.int32), cnt)
        dense, own = _number_chunks(raw)
        del raw  # the 64-bit ids go before all the distinct ones are gathered
        uniq = _renumber(dense, own)
        matrix = SignatureMatrix(self.ptr, dense, cnt, uniq)
        # Ids sorted and unique within each page stay so under the order-keeping dense
        # map; only when they are not is the (memory-hungry) full sort needed.
        if matrix_kernels.rows_ascending(self.ptr, dense):
            return matrix
        return matrix.sorted_rows()


_INT32_MAX = np.iinfo(np.int32).max

# Entries handled at once when renumbering: a chunk's temporaries stay small next to the
# matrix itself (at a million pages the matrix holds about 90 million entries).
_CHUNK = 1 << 22


def _number_chunks(raw: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Every id of ``raw`` numbered among the distinct ids of its chunk (int32), and each
    chunk's distinct ids: the first half of making the ids dense (:func:`_renumber`).

    Chunk by chunk, so that no temporary is as large as the matrix. Looking every entry up
    among all the distinct ids instead (a binary search per entry, at random places of an
    array of millions) took 3.9 s a chunk of 4 million entries; a chunk's sort and the
    sorted look-ups of its distinct ids take about 0.7 s.
    """
    dense = np.empty(len(raw), dtype=np.int32)
    own: list[np.ndarray] = []
    for i in range(0, len(raw), _CHUNK):
        ids, where = np.unique(raw[i : i + _CHUNK], return_inverse=True)  # sorts (no hash set)
        own.append(ids)
        dense[i : i + _CHUNK] = where
    return dense, own


def _renumber(dense: np.ndarray, own: list[np.ndarray]) -> np.ndarray:
    """Turn chunk numbers into numbers among all the distinct ids, in place; return those
    (sorted). ``own`` is emptied as it is used."""
    uniq = own[0] if len(own) == 1 else distinct(np.concatenate(own))
    if len(uniq) > _INT32_MAX:
        raise ValueError(f"{len(uniq):,} distinct signatures: more than int32 ids can number")
    for k, i in enumerate(range(0, len(dense), _CHUNK)):
        overall = np.searchsorted(uniq, own[k]).astype(np.int32)  # sorted lookups: near-linear
        own[k] = np.empty(0, np.int64)
        dense[i : i + _CHUNK] = overall[dense[i : i + _CHUNK]]
    return uniq


@dataclass(slots=True)
class PairResult:
    a: np.ndarray  # int64, a < b
    b: np.ndarray
    similarity: np.ndarray  # float64
    candidates: int = 0  # pairs whose multisets were compared

    def __len__(self) -> int:
        return len(self.a)


def expand_ranges(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Concatenate arange(start[k], start[k] + count[k]) for every k."""
    total = int(count.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    offsets = np.repeat(np.cumsum(count) - count, count)
    ranges: npt.NDArray[np.int64] = np.repeat(start, count) + (np.arange(total, dtype=np.int64) - offsets)
    return ranges


def intersections(m: SignatureMatrix, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """sum of min(f_i, f_j) over the signatures pages i[k] and j[k] share, for every k
    (rows are ascending in id, so each pair is one merge)."""
    i, j = np.asarray(i, np.int64), np.asarray(j, np.int64)
    return allpairs.overlaps(m.ptr, m.sig, m.cnt, i, j)


def probing_order(active: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The active pages of some length by ascending (length, page): the order pages probe in."""
    length = np.where(active, lengths, 0)
    order = np.lexsort((np.arange(len(length)), length))
    return order[length[order] > 0]


# The parts of a prefix index (see prefix_index): the ranked rows (ptr, rank, cnt, length,
# unindexed) and the inverted lists (list_ptr, pos, delta, cnt).
RankedRows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
InvertedLists = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def prefix_index(m: SignatureMatrix, active: np.ndarray, lengths: np.ndarray, tau: float,
                 in_probing_order: bool = False
                 ) -> tuple[np.ndarray, RankedRows, InvertedLists, np.ndarray, np.ndarray]:
    """The prefix index of the active pages under one global order of signatures (by
    rarity over the whole matrix): the pages by ascending (length, id), the ranked rows
    (ptr, rank, cnt, length, unindexed), the inverted lists (list_ptr, pos, delta, cnt),
    each page's last prefix rank and how many of its items follow its prefix. Shared by
    the full join and the incremental one (workbench.detect.join.incremental), which probe it
    differently.

    ``in_probing_order``: the rows and every per-page array are those of the pages in
    :func:`probing_order` (row k is its k-th page), and the order returned is 0, 1, 2...
    A list then names its pages by row, ascending: probing reads their lengths and scores
    front to back instead of looking each page up at a random place (the full join)."""
    if in_probing_order:
        pages = ranked_in_probing_order(m, active, lengths)
        ranked, n_ranks = pages.rows(), pages.n_ranks
        del pages
        order = np.arange(len(ranked[3]), dtype=np.int64)
    else:
        order = probing_order(active, lengths)
        ptr, rank, cnt, n_ranks = _rank_rows(m, active)
        ranked = (ptr, rank, cnt, np.where(active, lengths, 0).astype(np.float64),
                  m.unindexed_counts().astype(np.int64))
    index, prefix_last, prefix_rest = index_rows(order, ranked, n_ranks, tau)
    return order, ranked, index, prefix_last, prefix_rest


@dataclass(slots=True)
class RankedPages:
    """The pages a join probes, in probing order (row k is page ``pages[k]``), and what
    ranks their rows (:func:`_rank_rows`): all at once (:meth:`rows`), or a range of rows
    at a time (:meth:`ranked`), so that a join on a cluster writes them out for its tasks
    without holding them all (workbench.cluster.join_buckets)."""

    m: SignatureMatrix
    pages: np.ndarray
    ptr: np.ndarray  # where each row's ranked entries start: int64, rows + 1
    length: np.ndarray  # float64 per row, unindexed items included
    unindexed: np.ndarray  # int64 per row
    rank_of: np.ndarray  # each signature's rank, rarest first
    cnt_type: np.dtype

    @property
    def n_ranks(self) -> int:
        return len(self.rank_of)

    def ranked(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows lo:hi's entries: their ranks (int32, ascending in each row) and counts."""
        ptr = self.ptr[lo : hi + 1] - self.ptr[lo]
        rank = np.empty(int(ptr[-1]), dtype=np.int32)
        cnt = np.empty(int(ptr[-1]), dtype=self.cnt_type)
        m = self.m
        # The rows are scattered over the matrix (probing order is by length): a mapped
        # matrix's are let go every RowReads.ROWS rows read.
        step = rows_at_once(m.sig, hi - lo)
        for a in range(lo, hi, step):
            b = min(a + step, hi)
            at, end = int(ptr[a - lo]), int(ptr[b - lo])
            allpairs.ranked_rows(m.ptr, m.sig, m.cnt, self.pages[a:b], ptr[a - lo : b - lo + 1] - at,
                                 self.rank_of, rank[at:end], cnt[at:end])
            m.let_go()
        return rank, cnt

    def rows(self) -> RankedRows:
        """Every row ranked: (ptr, rank, cnt, length, unindexed)."""
        rank, cnt = self.ranked(0, len(self.pages))
        return self.ptr, rank, cnt, self.length, self.unindexed


def ranked_in_probing_order(m: SignatureMatrix, active: np.ndarray, lengths: np.ndarray) -> RankedPages:
    """The active pages in :func:`probing_order`, ready to have their rows ranked."""
    pages = probing_order(active, lengths)
    rank_of, width = _rank_order(m, active)
    ptr = np.zeros(len(pages) + 1, dtype=np.int64)
    np.cumsum(width[pages], out=ptr[1:])
    return RankedPages(m, pages, ptr, lengths[pages].astype(np.float64),
                       m.unindexed_counts()[pages].astype(np.int64), rank_of, _count_type(m))


def index_rows(order: np.ndarray, ranked: RankedRows, n_ranks: int, tau: float,
               delta_type: np.dtype | None = None) -> tuple[InvertedLists, np.ndarray, np.ndarray]:
    """The inverted lists of the prefixes of the rows in ``order``, the rows of length > 0
    (each row's ranks below ``n_ranks``; a list names its rows by their place in
    ``order``), each row's last prefix rank and its items after its prefix.

    ``delta_type``: the type of the items before each entry; default the narrowest that
    holds the longest row."""
    ptr, rank, cnt, length, unindexed = ranked
    n = len(length)
    sizes = allpairs.prefix_sizes(ptr, rank, cnt, length, unindexed, tau, n_ranks)
    list_ptr = np.zeros(n_ranks + 1, dtype=np.int64)
    np.cumsum(sizes, out=list_ptr[1:])
    del sizes
    total = int(list_ptr[-1])
    # An entry's items before it are fewer than its page's length, and its count is one of
    # the ranked rows' counts: both in the narrowest type that holds them (narrowest).
    if delta_type is None:
        delta_type = narrowest(int(length.max()) if len(length) else 0)
    index = (list_ptr, np.empty(total, np.int32), np.empty(total, delta_type), np.empty(total, cnt.dtype))
    prefix_last = np.full(n, -1, dtype=np.int64)
    prefix_rest = np.zeros(n, dtype=np.float64)
    allpairs.build_index(order, ptr, rank, cnt, length, unindexed, float(tau), *index, prefix_last,
                         prefix_rest)
    return index, prefix_last, prefix_rest


def exact_type_of(length: np.ndarray) -> type:
    """The type probing adds lengths and scores in: float32 while every length is below
    2**24 (whole numbers no larger than a length stay exact there; allpairs.probe)."""
    return np.float32 if not len(length) or length.max() < 2**24 else np.float64


def probe_facts(length: np.ndarray, prefix_last: np.ndarray, prefix_rest: np.ndarray) -> np.ndarray:
    """What a candidate is checked on, side by side per row: its length, its prefix's last
    rank and its items after its prefix (allpairs.probe's ``facts``)."""
    facts = np.empty((len(length), 3), dtype=np.float64)
    facts[:, 0], facts[:, 1], facts[:, 2] = length, prefix_last, prefix_rest
    return facts


def find_pairs(
    m: SignatureMatrix,
    tau: float,
    duplicate_group: np.ndarray | None = None,
    progress: ProgressFn = no_progress,
) -> PairResult:
    """Every pair of pages with multiset Jaccard >= tau, with its similarity.

    ``duplicate_group[i]`` (optional) names pages with identical content: pages in one
    group must have identical signature multisets; only the first is indexed.
    """
    plan = plan_join(m, tau, duplicate_group)
    if plan.rows == 0 or plan.shared is None:
        return finish_join(plan, [])
    shared = plan.shared
    local = threading.local()

    def probe(lo: int) -> Probed:
        if not hasattr(local, "score"):  # each thread its own scratch scores
            local.score = plan.scratch()
        return allpairs.probe(lo, min(lo + plan.step, plan.rows), *shared, local.score)

    parts: list[Probed] = []
    starts = plan.starts()
    with ThreadPoolExecutor(max_workers=_THREADS) as pool:
        futures = [pool.submit(probe, lo) for lo in starts]
        try:
            for k, future in enumerate(futures):
                parts.append(future.result())
                progress("match", min((k + 1) * plan.step, plan.rows), plan.rows)
        except BaseException:  # Cancelled: tasks not yet started never run
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return finish_join(plan, parts)


# What probing rows lo:hi gives: (a, b, similarity, candidates verified), a and b rows.
Probed = tuple[np.ndarray, np.ndarray, np.ndarray, int]
# allpairs.probe's arguments after lo, hi and before the scratch scores: the ranked rows
# (ptr, rank, cnt, unindexed), tau, the inverted lists (list_ptr, pos, delta, cnt), the
# facts and the lengths scanned.
ProbeIndex = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, np.ndarray, np.ndarray,
                   np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(slots=True)
class JoinPlan:
    """The join's index, ready to be probed in ranges of rows (rows in probing order:
    by ascending length). Every pair is found by exactly one range, the one holding its
    longer page (allpairs.probe), so the ranges may be probed anywhere, in any order
    (threads here; Dask tasks in workbench.cluster.join)."""

    pages: np.ndarray  # row k is page pages[k]
    rep: np.ndarray  # each page's representative among identical pages
    lengths: np.ndarray
    shared: ProbeIndex | None  # the index (None once handed on, or with no row to probe)
    exact_type: type
    rows: int
    step: int  # rows a task probes: progress and cancel points

    def starts(self) -> list[int]:
        return list(range(0, self.rows, self.step))

    def scratch(self) -> np.ndarray:
        """Zeroed scores, one per row: each prober needs its own."""
        return np.zeros(self.rows, dtype=self.exact_type)


def plan_join(m: SignatureMatrix, tau: float, duplicate_group: np.ndarray | None = None) -> JoinPlan:
    """Rank the pages and build the prefix index :func:`find_pairs` probes."""
    plan, pages = rank_join(m, tau, duplicate_group)
    if pages is None:
        return plan
    ranked, n_ranks = pages.rows(), pages.n_ranks
    del pages
    order = np.arange(plan.rows, dtype=np.int64)
    index, prefix_last, prefix_rest = index_rows(order, ranked, n_ranks, tau)
    ptr, rank, cnt, length, unindexed = ranked
    del ranked
    facts = probe_facts(length, prefix_last, prefix_rest)
    lengths_scanned: np.ndarray = length.astype(plan.exact_type)
    del length, prefix_last, prefix_rest
    plan.shared = (ptr, rank, cnt, unindexed, float(tau), *index, facts, lengths_scanned)
    return plan


def rank_join(m: SignatureMatrix, tau: float, duplicate_group: np.ndarray | None = None
              ) -> tuple[JoinPlan, RankedPages | None]:
    """The join's plan without its index (``shared`` None) and its pages, ready to have
    their rows ranked (None with no row to probe): what :func:`plan_join` indexes, and
    what a join on a cluster writes out for its tasks to index (workbench.cluster.join)."""
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"tau must be in (0, 1], not {tau}")
    n = m.n
    lengths = m.lengths().astype(np.int64)
    rep = np.arange(n, dtype=np.int64)
    if duplicate_group is not None and n:
        _, first, inverse = np.unique(duplicate_group, return_index=True, return_inverse=True)
        rep = first[inverse].astype(np.int64)
    active = (lengths > 0) & (rep == np.arange(n))
    if not active.any():
        return JoinPlan(np.empty(0, np.int64), rep, lengths, None, np.float32, 0, 1), None
    pages = ranked_in_probing_order(m, active, lengths)  # row k is page pages.pages[k]
    rows = len(pages.pages)
    plan = JoinPlan(pages.pages, rep, lengths, None, exact_type_of(pages.length), rows, max(256, rows // 200))
    return plan, pages


def finish_join(plan: JoinPlan, parts: list[Probed]) -> PairResult:
    """The probed ranges' pairs (in range order) as pages, with the identical pages' pairs.
    ``parts`` is emptied as it is read: each range's arrays go once copied, so the ranges'
    rows, the pages' arrays and their sorted copies are never all held at once (they were:
    72 bytes a pair traced above the ranges' own, now 40; tests/detect/join)."""
    total = sum(len(p[0]) for p in parts)
    a = np.empty(total, dtype=np.int64)
    b = np.empty(total, dtype=np.int64)
    similarity = np.empty(total, dtype=np.float64)
    candidates = 0
    at = 0
    parts.reverse()
    while parts:
        rows_a, rows_b, sims, verified = parts.pop()
        x, y = plan.pages[rows_a], plan.pages[rows_b]  # rows back to pages
        end = at + len(x)
        np.minimum(x, y, out=a[at:end])
        np.maximum(x, y, out=b[at:end])
        similarity[at:end] = sims
        candidates += verified
        at = end
        del rows_a, rows_b, sims, x, y
    return _with_duplicates(PairResult(a, b, similarity, candidates), plan.rep, plan.lengths)


def narrowest(largest: int) -> np.dtype:
    """The narrowest of uint8, uint16 and int32 that holds 0..``largest``.

    The join copies the matrix's counts (ranked) and lists every prefix entry's count and
    items before it: as int32 that was 12 bytes an indexed entry and 4 a matrix entry, about
    a gigabyte at a million small pages, where almost every count is 1 and every page far
    shorter than 65,536 items. (The compiled loops take either type; numba compiles each
    once.)"""
    for kind in (np.uint8, np.uint16):
        if largest <= np.iinfo(kind).max:
            return np.dtype(kind)
    return np.dtype(np.int32)


def _rank_rows(m: SignatureMatrix, active: np.ndarray,
               rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The active pages' rows with signatures renumbered by ascending document frequency
    (ties by id) and sorted in that order: rarest first, as the prefix filter wants.
    With ``rows`` (active pages), only those, row k being page rows[k].

    Only two int32 arrays the size of the matrix are made (a million pages have about
    a hundred million entries): inactive rows become empty and every row is sorted in
    place.
    """
    rank_of, width = _rank_order(m, active)
    if rows is None:
        rows = np.arange(m.n, dtype=np.int64)
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(width[rows], out=ptr[1:])
    rank = np.empty(int(ptr[-1]), dtype=np.int32)
    cnt = np.empty(int(ptr[-1]), dtype=_count_type(m))
    allpairs.ranked_rows(m.ptr, m.sig, m.cnt, rows, ptr, rank_of, rank, cnt)
    return ptr, rank, cnt, len(rank_of)


def _count_type(m: SignatureMatrix) -> np.dtype:
    return narrowest(int(m.cnt.max()) if len(m.cnt) else 0)


def _rank_order(m: SignatureMatrix, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each signature's rank by ascending document frequency among the active pages (ties
    by id), and each page's entries (none for an inactive page)."""
    width = np.diff(m.ptr)
    n_sig = m.n_signatures
    df = m.id_counts(n_sig)  # np.bincount would copy sig as int64 first
    inactive = np.flatnonzero(~active & (width > 0))
    if len(inactive):
        # A mapped matrix's rows are let go as they are read, RowReads.ROWS rows at a time.
        step = rows_at_once(m.sig, len(inactive))
        gone = []
        for lo in range(0, len(inactive), step):
            gone.append(allpairs.gather_rows(m.ptr, m.sig, inactive[lo : lo + step]))
            m.let_go()
        df -= np.bincount(np.concatenate(gone), minlength=n_sig)
        del gone
        width = np.where(active, width, 0)
    # Ranked by (frequency, id) by counting: sorting a key of both took 16 bytes an id
    # above the counts (traced; the sort's own buffer besides) and 2.75 s for 20 million
    # ids; counting takes the ranks' 4 bytes and 0.17 s.
    rank_of = matrix_kernels.ranks_by_count(df)
    del df
    return rank_of, width


def _with_duplicates(result: PairResult, rep: np.ndarray, lengths: np.ndarray) -> PairResult:
    """Give every exact duplicate the pairs of its representative, and 1.0 among each other."""
    n = len(rep)
    is_copy = rep != np.arange(n)
    if not is_copy.any():
        return _sorted(result)
    # Only the groups of two pages or more, and only their pairs, are walked in Python: a
    # list of every pair (three Python objects a pair) was the largest thing the client
    # held at the end of a join (about 120 MB for a million pairs).
    pages = np.flatnonzero(lengths > 0)
    size = np.bincount(rep[pages], minlength=n)
    members: dict[int, list[int]] = {}
    for i in pages[size[rep[pages]] > 1].tolist():
        members.setdefault(int(rep[i]), []).append(i)
    shared = (size[result.a] > 1) | (size[result.b] > 1)
    a, b, s = result.a[shared].tolist(), result.b[shared].tolist(), result.similarity[shared].tolist()
    extra_a: list[int] = []
    extra_b: list[int] = []
    extra_s: list[float] = []
    for group in members.values():
        for x in range(len(group)):
            for y in range(x + 1, len(group)):
                extra_a.append(group[x])
                extra_b.append(group[y])
                extra_s.append(1.0)
    for x, y, sim in zip(a, b, s, strict=True):
        gx, gy = members.get(x, [x]), members.get(y, [y])
        for u in gx:
            for v in gy:
                if (u, v) != (x, y):
                    extra_a.append(min(u, v))
                    extra_b.append(max(u, v))
                    extra_s.append(sim)
    merged = PairResult(
        np.concatenate([result.a, np.asarray(extra_a, dtype=np.int64)]),
        np.concatenate([result.b, np.asarray(extra_b, dtype=np.int64)]),
        np.concatenate([result.similarity, np.asarray(extra_s, dtype=np.float64)]),
        result.candidates,
    )
    return _sorted(merged)


def _sorted(result: PairResult) -> PairResult:
    """The pairs by (a, b), each array put in order in its own place, one after the other:
    a sorted copy of all three next to the unsorted ones cost 24 bytes a pair more."""
    order = np.lexsort((result.b, result.a))
    for column in (result.a, result.b, result.similarity):
        column[:] = column[order]
    return result
