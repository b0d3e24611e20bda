"""How much of what a member shares with its reference is text unrelated pages carry too.

A member that matches its reference mostly through blocks found verbatim on pages that
are not copies of the reference (a box of teasers, a signature paragraph no filter caught)
is a doubtful member: the coder should look before tagging it. Pages that are themselves
near duplicates of the reference (at or above the run's pair floor, in this cluster or
split off into another) carry the same story, so their blocks do not count against it.
For each member, the share of the signatures it shares with the reference (by multiset
count) that stand in such blocks is recorded with the cluster
(``Cluster.boilerplate_share``).

Everything is computed over flat arrays, a chunk of pages or clusters at a time: on
30,000 pages a loop per page and member with a few ``np.isin`` calls each took seconds,
and its per-page lists cost ~200 bytes of overhead per page and block. The loop version
is kept in the tests as the definition (tests/detect/spotsigs/member_overlap_reference.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Protocol

import numpy as np
import numpy.typing as npt
from numba import njit

from workbench.core.distinct import distinct
from workbench.core.mapped_arrays import RowReads, rows_at_once
from workbench.core.records import Cluster
from workbench.detect.join.matcher import SignatureMatrix, expand_ranges

# Rows (spot occurrences, expanded signature entries, ...) handled at once: bounds memory.
_CHUNK_ROWS = 2_000_000


@dataclass(slots=True)
class RepeatedBlocks:
    """Compared blocks found on more than one page, in two CSR tables over pages.

    Blocks are numbered densely in the order of their hashes (``block_ids``). Page p
    carries the blocks ``page_block[page_block_ptr[p]:page_block_ptr[p + 1]]`` (each once)
    among the blocks the run compares, and its spots that stand in them are
    ``sig_id``/``sig_block`` ``[sig_ptr[p]:sig_ptr[p + 1]]``: (signature raw id, block),
    in spot order. Only flat numpy arrays: this lives as long as the run, and a million
    pages must cost bytes per page, not Python objects.
    """

    block_ids: np.ndarray  # int64, sorted: the hash of each repeated block
    block_pages: np.ndarray  # int64 per block: how many pages carry it (>= 2)
    page_block_ptr: np.ndarray  # int64, n + 1
    page_block: np.ndarray  # int32 dense block numbers
    sig_ptr: np.ndarray  # int64, n + 1
    sig_id: np.ndarray  # int64 raw signature ids, or int32 matrix ids (``matrix_ids``)
    sig_block: np.ndarray  # int32 dense block numbers
    # Whether sig_id holds the matrix's dense ids (with_matrix_ids) instead of raw ids.
    matrix_ids: bool = False

    @property
    def n_pages(self) -> int:
        return len(self.sig_ptr) - 1

    def for_pages(self, spots: np.ndarray, blocks: np.ndarray) -> RepeatedBlocks:
        """The table, which holds every page's rows already (:class:`RepeatedSource`)."""
        return self

    def pages_of(self, block_id: int) -> np.ndarray:
        """The pages that carry the block with this hash, ascending (empty if it is not a
        repeated block). A scan of the whole table: for tests and inspection only."""
        pos = int(np.searchsorted(self.block_ids, block_id))
        if pos == len(self.block_ids) or self.block_ids[pos] != block_id:
            return np.empty(0, np.int64)
        page = np.repeat(np.arange(self.n_pages, dtype=np.int64), np.diff(self.page_block_ptr))
        carrying: npt.NDArray[np.int64] = page[self.page_block == pos]
        return carrying


class RepeatedSource(Protocol):
    """Where the repeated blocks' table is read from: held whole (:class:`RepeatedBlocks`),
    or left in files until :func:`boilerplate_shares` asks for the rows it reads (a cluster
    run's rows files, workbench.cluster.filters.rows): the whole table is about 0.5 KB a
    small page, which a million-page run's client then does not hold while it matches and
    clusters."""

    @property
    def n_pages(self) -> int: ...

    def for_pages(self, spots: np.ndarray, blocks: np.ndarray) -> RepeatedBlocks:
        """The table with the spot rows (``sig_ptr``, ``sig_id``, ``sig_block``) of the
        pages where ``spots`` is true and the block rows (``page_block_ptr``,
        ``page_block``) of those where ``blocks`` is true (boolean, a page each); the
        other pages' rows empty. The blocks' ids and page counts are the whole crawl's."""
        ...


def repeated_blocks(
    spot_ids: Sequence[np.ndarray],
    spot_block: Sequence[np.ndarray],
    block_hashes: Sequence[np.ndarray],
    left_out: Sequence[np.ndarray | None],
) -> RepeatedBlocks:
    """``left_out[p]``: a mask over page p's blocks that the run does not compare
    (boilerplate), or None. Only numpy arrays are kept: this lives as long as the run."""
    n = len(block_hashes)
    if not len(spot_ids) == len(spot_block) == len(left_out) == n:
        raise ValueError("spot_ids, spot_block, block_hashes and left_out must be one per page")
    n_blocks, block_ptr, flat, compared = _compared(block_hashes, left_out)

    # The page of each flat position (int32: a crawl has far fewer than 2**31 pages).
    page_at = np.repeat(np.arange(n, dtype=np.int32), n_blocks)
    block_ids, block_pages, dense_at, first = _number_blocks(flat, compared, page_at)
    del flat, compared
    # Page -> its repeated blocks: the first position of each (hash, page), taken in
    # position order, which is page order.
    page_block = dense_at[first]
    page_block_ptr = _ptr(np.bincount(page_at[first], minlength=n))
    del first, page_at

    sig_ptr, sig_id, sig_block = _signatures_in_blocks(spot_ids, spot_block, block_ptr, dense_at)
    return RepeatedBlocks(block_ids, block_pages, page_block_ptr, page_block, sig_ptr, sig_id, sig_block)


def _compared(block_hashes: Sequence[np.ndarray], left_out: Sequence[np.ndarray | None]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every page's block hashes flat (int64), and whether each position is compared (not
    left out); with each page's blocks and where they start."""
    n = len(block_hashes)
    n_blocks = np.fromiter(map(len, block_hashes), dtype=np.int64, count=n)
    block_ptr = _ptr(n_blocks)
    flat = (np.concatenate(block_hashes).astype(np.int64, copy=False) if int(block_ptr[-1])
            else np.empty(0, np.int64))
    compared = np.ones(len(flat), dtype=bool)
    masked = np.flatnonzero(np.fromiter((m is not None for m in left_out), dtype=bool, count=n))
    if len(masked) and int(n_blocks[masked].sum()):
        compared[expand_ranges(block_ptr[masked], n_blocks[masked])] = ~np.concatenate(
            [left_out[p] for p in masked.tolist()]).astype(bool, copy=False)
    return n_blocks, block_ptr, flat, compared


# The repeated blocks of some pages, in terms of the whole crawl's repeated blocks (their
# dense numbers): per page its repeated blocks' count, and its spots' in them; the blocks
# and the spots' (raw id, block), all in the order of :class:`RepeatedBlocks`' arrays.
RepeatedPart = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def compared_block_pages(block_hashes: Sequence[np.ndarray], left_out: Sequence[np.ndarray | None]
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The compared blocks of these pages (hashes sorted) and how many of the pages carry
    each: counts that add up over any split of a crawl's pages. The blocks counted on two
    pages or more in all are the crawl's repeated blocks (:func:`repeated_blocks`)."""
    n_blocks, _, flat, compared = _compared(block_hashes, left_out)
    page_at = np.repeat(np.arange(len(block_hashes), dtype=np.int64), n_blocks)[compared]
    flat = flat[compared]
    order = np.lexsort((page_at, flat))
    flat, page_at = flat[order], page_at[order]
    once = np.ones(len(flat), dtype=bool)  # each (hash, page) once
    once[1:] = (flat[1:] != flat[:-1]) | (page_at[1:] != page_at[:-1])
    ids, pages = np.unique(flat[once], return_counts=True)
    return ids, pages.astype(np.int64)


def repeated_part(
    spot_ids: Sequence[np.ndarray],
    spot_block: Sequence[np.ndarray],
    block_hashes: Sequence[np.ndarray],
    left_out: Sequence[np.ndarray | None],
    block_ids: np.ndarray,
) -> RepeatedPart:
    """These pages' share of the crawl's :class:`RepeatedBlocks`, whose repeated blocks
    are ``block_ids`` (sorted; from :func:`compared_block_pages` of all pages): what
    :func:`repeated_blocks` gives these pages, to be joined in page order
    (:func:`joined_parts`)."""
    n = len(block_hashes)
    if not len(spot_ids) == len(spot_block) == len(left_out) == n:
        raise ValueError("spot_ids, spot_block, block_hashes and left_out must be one per page")
    n_blocks, block_ptr, flat, compared = _compared(block_hashes, left_out)
    at = np.minimum(np.searchsorted(block_ids, flat), max(len(block_ids) - 1, 0))
    hit = compared & (block_ids[at] == flat) if len(block_ids) else np.zeros(len(flat), dtype=bool)
    dense_at = np.where(hit, at, -1).astype(np.int32)
    # Each page's repeated blocks once, at their first position, in position order.
    where = np.flatnonzero(hit)
    page_at = np.repeat(np.arange(n, dtype=np.int64), n_blocks)[where]
    key = page_at * max(len(block_ids), 1) + dense_at[where]
    order = np.argsort(key, kind="stable")
    first = np.ones(len(order), dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    firsts = np.sort(where[order[first]])
    page_block = dense_at[firsts]
    blocks_of_page = np.bincount(page_at[order[first]], minlength=n).astype(np.int64)
    sig_ptr, sig_id, sig_block = _signatures_in_blocks(spot_ids, spot_block, block_ptr, dense_at)
    return blocks_of_page, page_block, np.diff(sig_ptr), sig_id, sig_block


def joined_parts(block_ids: np.ndarray, block_pages: np.ndarray, parts: list[RepeatedPart]) -> RepeatedBlocks:
    """The crawl's :class:`RepeatedBlocks` from its pages' parts in page order (emptied
    as they are joined)."""
    blocks_of_page = np.concatenate([p[0] for p in parts]) if parts else np.empty(0, np.int64)
    spots_of_page = np.concatenate([p[2] for p in parts]) if parts else np.empty(0, np.int64)
    page_block, sig_id, sig_block = ([p[k] for p in parts] for k in (1, 3, 4))
    parts.clear()
    return RepeatedBlocks(block_ids, block_pages, _ptr(blocks_of_page),
                          _concatenate_freeing(page_block, np.int32), _ptr(spots_of_page),
                          _concatenate_freeing(sig_id, np.int64), _concatenate_freeing(sig_block, np.int32))


def with_matrix_ids(repeated: RepeatedBlocks, raw_ids: np.ndarray | None) -> RepeatedBlocks:
    """The table with each spot's raw id replaced by its dense id in a matrix whose
    ``raw_ids`` (sorted) are given, and the spots whose signature the matrix does not
    have left out: :func:`boilerplate_shares` looks every raw id up there and passes over
    those anyway (a matrix without ``raw_ids`` has none). Four bytes a spot instead of
    eight, for as long as the run lives (on 300,000 small pages the raw ids were 196 MB).
    One compiled pass writes the new arrays; nothing else of their size is made."""
    if repeated.matrix_ids:
        return repeated
    size = len(repeated.sig_id)
    # Written from the start only: the pages of the room left over are never touched.
    ids = np.empty(size, dtype=np.int32)
    blocks = np.empty(size, dtype=np.int32)
    ptr = np.zeros(repeated.n_pages + 1, dtype=np.int64)
    kept = _keep_matrix_ids(repeated.sig_ptr, repeated.sig_id, repeated.sig_block,
                            np.asarray(() if raw_ids is None else raw_ids, np.int64), ids, blocks, ptr)
    return RepeatedBlocks(repeated.block_ids, repeated.block_pages, repeated.page_block_ptr,
                          repeated.page_block, ptr, ids[:kept], blocks[:kept], matrix_ids=True)


def part_with_matrix_ids(part: RepeatedPart, raw_ids: np.ndarray) -> RepeatedPart:
    """:func:`with_matrix_ids` of a part of the table (:func:`repeated_part`): its spots'
    raw ids as their places in ``raw_ids`` (sorted), those not there left out, for the
    parts to be joined with matrix ids (a cluster's rows tasks make them so: the client
    then never holds the table's 64-bit ids). A binary search per spot, as the rows'
    own ids are numbered there, instead of a hash table of every id per part."""
    blocks_of_page, page_block, spots_of_page, sig_id, sig_block = part
    at = np.searchsorted(raw_ids, sig_id)
    hit = (raw_ids[np.minimum(at, len(raw_ids) - 1)] == sig_id if len(raw_ids)
           else np.zeros(len(sig_id), dtype=bool))
    page = np.repeat(np.arange(len(spots_of_page), dtype=np.int64), spots_of_page)
    kept = np.bincount(page[hit], minlength=len(spots_of_page)).astype(np.int64)
    return blocks_of_page, page_block, kept, at[hit].astype(np.int32), np.asarray(sig_block[hit], np.int32)


@njit(cache=True, nogil=True)
def _keep_matrix_ids(sig_ptr: np.ndarray, raw: np.ndarray, block: np.ndarray, raw_ids: np.ndarray,
                     ids: np.ndarray, blocks: np.ndarray, ptr: np.ndarray) -> int:
    """The loop of :func:`with_matrix_ids`: the spots whose raw id is in ``raw_ids``, page
    by page, as (position in raw_ids, block); their number.

    Positions are found in a hash table of ``raw_ids`` (open addressing): a binary search
    per spot, among a few hundred thousand ids, took 3.3 s on 300,000 small pages."""
    size = 1
    while size < 2 * len(raw_ids):
        size *= 2
    mask = np.uint64(size - 1)
    keys = np.empty(size, dtype=np.int64)
    slot_of = np.zeros(size, dtype=np.int64)  # position + 1; 0: an empty slot
    for at in range(len(raw_ids)):
        h = _slot(raw_ids[at], mask)
        while slot_of[h] != 0:
            h = (h + np.uint64(1)) & mask
        keys[h] = raw_ids[at]
        slot_of[h] = at + 1
    k = 0
    for p in range(len(sig_ptr) - 1):
        for e in range(sig_ptr[p], sig_ptr[p + 1]):
            h = _slot(raw[e], mask)
            while slot_of[h] != 0 and keys[h] != raw[e]:
                h = (h + np.uint64(1)) & mask
            if slot_of[h] != 0:
                ids[k] = slot_of[h] - 1
                blocks[k] = block[e]
                k += 1
        ptr[p + 1] = k
    return k


@njit(cache=True, nogil=True, inline="always")
def _slot(key: np.int64, mask: np.uint64) -> np.uint64:
    """A table slot for a 64-bit id (Fibonacci hashing: the ids are hashes already, but
    their low bits alone may not be evenly spread)."""
    return (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(20)) & mask


def _number_blocks(
    flat: np.ndarray, compared: np.ndarray, page_at: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The repeated blocks among the compared positions of ``flat`` (every page's block
    hashes, one after the other): their sorted hashes and page counts; per position the
    block's dense number (-1 where it is left out or on one page only), and whether the
    position is its page's first of that block.

    Each compared (page, hash) once, sorted by hash then page, tells the pages of a hash.
    The sort is done a range of hashes at a time (ranges cut at quantiles of a sample), so
    that only a few million positions are sorted at once.
    """
    dense_at = np.full(len(flat), -1, dtype=np.int32)
    first = np.zeros(len(flat), dtype=bool)
    ids_parts: list[np.ndarray] = []
    pages_parts: list[np.ndarray] = []
    total = int(np.count_nonzero(compared))
    parts = -(-total // _CHUNK_ROWS)
    if parts > 1:
        step = max(len(flat) // (64 * parts), 1)  # ~64 samples per range, taken as views
        sample = np.sort(flat[::step][compared[::step]])
        cuts = distinct(sample[(np.arange(1, parts) * len(sample)) // parts]) if len(sample) else sample
    else:
        cuts = np.empty(0, np.int64)
    numbered = 0
    for k in range(len(cuts) + 1):
        wanted = compared.copy()
        if k:
            wanted &= flat >= cuts[k - 1]
        if k < len(cuts):
            wanted &= flat < cuts[k]
        where = np.flatnonzero(wanted)
        del wanted
        by_hash = np.argsort(flat[where], kind="stable")  # pages ascending within a hash
        order = where[by_hash]
        del where, by_hash
        hashes = flat[order]
        new_hash = np.ones(len(order), dtype=bool)
        new_hash[1:] = hashes[1:] != hashes[:-1]
        pages = page_at[order]
        new_page = new_hash.copy()
        new_page[1:] |= pages[1:] != pages[:-1]
        del pages
        run_start = np.flatnonzero(new_hash)
        page_count = _segment_sums(new_page.astype(np.int64), run_start,
                                   np.diff(np.append(run_start, len(order))))
        is_repeated = page_count > 1
        ids_parts.append(hashes[run_start[is_repeated]])
        pages_parts.append(page_count[is_repeated])
        del hashes
        dense_of_run = np.where(is_repeated, numbered + np.cumsum(is_repeated) - 1, -1).astype(np.int32)
        dense = dense_of_run[np.cumsum(new_hash) - 1]
        dense_at[order] = dense
        first[order] = new_page & (dense >= 0)
        numbered += int(np.count_nonzero(is_repeated))
    return np.concatenate(ids_parts), np.concatenate(pages_parts), dense_at, first


def _signatures_in_blocks(
    spot_ids: Sequence[np.ndarray],
    spot_block: Sequence[np.ndarray],
    block_ptr: np.ndarray,
    dense_at: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per page, its (spot id, dense block) pairs in repeated compared blocks, in spot
    order. Pages are taken a chunk at a time so only that chunk's spots are flattened."""
    n = len(spot_ids)
    n_spots = np.fromiter(map(len, spot_ids), dtype=np.int64, count=n)
    per_page = np.zeros(n, dtype=np.int64)
    ids_parts: list[np.ndarray] = []
    block_parts: list[np.ndarray] = []
    cum = np.cumsum(n_spots)
    lo = 0
    while lo < n:
        base = int(cum[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(cum, base + _CHUNK_ROWS, side="right")), lo + 1)
        counts = n_spots[lo:hi]
        if int(counts.sum()):
            at = np.repeat(block_ptr[lo:hi], counts)  # each spot's block, as a flat position
            at += np.concatenate(spot_block[lo:hi])
            block = dense_at[at]
            del at
            hit = block >= 0
            ids_parts.append(np.concatenate(spot_ids[lo:hi]).astype(np.int64, copy=False)[hit])
            block_parts.append(block[hit])
            per_page[lo:hi] = _segment_sums(hit, _ptr(counts)[:-1], counts)
        lo = hi
    sig_id = _concatenate_freeing(ids_parts, np.int64)
    sig_block = _concatenate_freeing(block_parts, np.int32)
    return _ptr(per_page), sig_id, sig_block


def _concatenate_freeing(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    """np.concatenate(parts), emptying ``parts`` as it goes: each part is let go once it
    is copied, so the parts and the whole are not all held at once (np.concatenate held
    both: 580 MB above the rest on 300,000 small pages, for a 300 MB result)."""
    out: np.ndarray = np.empty(sum(len(p) for p in parts), dtype=dtype)  # committed as it is written
    at = 0
    parts.reverse()
    while parts:
        part = parts.pop()
        out[at : at + len(part)] = part
        at += len(part)
        del part
    return out


def boilerplate_shares(
    matrix: SignatureMatrix,
    clusters: list[Cluster],
    repeated: RepeatedSource,
    pair_a: np.ndarray,
    pair_b: np.ndarray,
) -> None:
    """Fill ``boilerplate_share`` of every cluster (None for the reference itself and for
    members that share nothing counted with it). ``pair_a``/``pair_b``: the run's pairs
    (down to its floor), to tell copies of the reference from unrelated pages."""
    if matrix.raw_ids is None or not clusters:
        return
    n = max(matrix.n, repeated.n_pages)
    refs = np.fromiter((c.reference for c in clusters), dtype=np.int64, count=len(clusters))
    sizes = np.fromiter((len(c.members) for c in clusters), dtype=np.int64, count=len(clusters))
    members = np.fromiter(chain.from_iterable(c.members for c in clusters), dtype=np.int64,
                          count=int(sizes.sum()))
    member_ptr = _ptr(sizes)
    adj_ptr, adj = _neighbours(refs, np.asarray(pair_a, np.int64), np.asarray(pair_b, np.int64), n)
    repeated = repeated.for_pages(*_pages_read(n, refs, members, adj_ptr, adj))
    width = _widths(matrix.ptr, n)
    rep_width = _widths(repeated.sig_ptr, n)
    carried = _widths(repeated.page_block_ptr, n)

    # What a cluster costs in rows: its pages' signature entries, spot entries and blocks
    # (the reference counted twice, as it is matched with every member), and its
    # reference's neighbours' blocks. Clusters are taken in groups of about _CHUNK_ROWS.
    page_cost = width + rep_width + carried
    member_cost = _segment_sums(page_cost[members], member_ptr[:-1], sizes)
    neighbour_cost = _segment_sums(carried[adj], adj_ptr[refs], np.diff(adj_ptr)[refs])
    cost = np.cumsum(member_cost + 2 * page_cost[refs] + neighbour_cost + 1)

    shares = np.zeros(len(members), dtype=np.float64)
    counted = np.zeros(len(members), dtype=bool)
    lo = 0
    while lo < len(clusters):
        base = int(cost[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(cost, base + _CHUNK_ROWS, side="right")), lo + 1)
        group = _Group(refs[lo:hi], members[member_ptr[lo] : member_ptr[hi]],
                       sizes[lo:hi], adj_ptr, adj)
        s, ok = group.shares(matrix, repeated, width, rep_width)
        matrix.let_go()  # the group's rows of a mapped matrix (SignatureMatrix)
        shares[member_ptr[lo] : member_ptr[hi]] = s
        counted[member_ptr[lo] : member_ptr[hi]] = ok
        lo = hi

    values = shares.astype(object)
    values[~counted] = None
    for k, cluster in enumerate(clusters):
        cluster.boilerplate_share = values[member_ptr[k] : member_ptr[k + 1]].tolist()


class _Group:
    """A run of clusters handled together. Every (cluster, page) they involve (each
    reference, then each member) is a *slot*; signatures and blocks are keyed by slot."""

    def __init__(self, refs: np.ndarray, members: np.ndarray, sizes: np.ndarray,
                 adj_ptr: np.ndarray, adj: np.ndarray) -> None:
        k = len(refs)
        self.refs, self.members = refs, members
        self.member_cluster = np.repeat(np.arange(k, dtype=np.int64), sizes)
        # Slot of cluster c's reference: ref_slot[c]; of its j-th member: ref_slot[c] + 1 + j.
        self.ref_slot = np.arange(k, dtype=np.int64) + np.concatenate(([0], np.cumsum(sizes)[:-1]))
        slot_page = np.empty(k + len(members), dtype=np.int64)
        slot_cluster = np.empty(k + len(members), dtype=np.int64)
        member_slot = self.member_cluster + 1 + np.arange(len(members), dtype=np.int64)
        slot_page[self.ref_slot], slot_cluster[self.ref_slot] = refs, np.arange(k)
        slot_page[member_slot], slot_cluster[member_slot] = members, self.member_cluster
        self.member_slot, self.slot_page, self.slot_cluster = member_slot, slot_page, slot_cluster
        # Pages related to each cluster's reference: its members and its neighbours.
        deg = np.diff(adj_ptr)[refs]
        rel_cluster = np.concatenate([self.member_cluster, np.repeat(np.arange(k, dtype=np.int64), deg)])
        rel_page = np.concatenate([members, adj[expand_ranges(adj_ptr[refs], deg)]])
        self.rel_cluster, self.rel_page = rel_cluster, rel_page

    def shares(self, matrix: SignatureMatrix, repeated: RepeatedBlocks, width: np.ndarray,
               rep_width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each member's share, and whether it shares anything counted with its reference."""
        out = np.zeros(len(self.members), dtype=np.float64)
        ok = np.zeros(len(self.members), dtype=bool)
        # Dense ids index raw_ids, which may be longer than the ids left in the matrix.
        assert matrix.raw_ids is not None
        n_sig = np.int64(max(len(matrix.raw_ids), 1))
        # Every slot's signature entries, keyed slot * n_sig + dense id: ascending, since
        # slots are numbered in order and ids ascend within a page.
        slot_width = width[self.slot_page]
        slot_ptr = _ptr(slot_width)
        # The slots' rows copied out once (entry i of slot k at slot_ptr[k] + i): every read
        # below is of these, not of the matrix here and there.
        slot_sig, slot_cnt = _slot_rows(matrix, self.slot_page, slot_width, slot_ptr)
        keys = np.repeat(np.arange(len(self.slot_page), dtype=np.int64), slot_width) * n_sig + slot_sig
        flagged = self._flagged(matrix, repeated, rep_width, keys, n_sig)

        # (reference, member) pairs, the reference itself left out; the shorter side's
        # entries are looked up among the longer side's, a few million at a time.
        pair = np.flatnonzero(self.members != self.refs[self.member_cluster])
        ref_slot = self.ref_slot[self.member_cluster[pair]]
        mem_slot = self.member_slot[pair]
        swap = slot_width[ref_slot] > slot_width[mem_slot]
        short = np.where(swap, mem_slot, ref_slot)
        long = np.where(swap, ref_slot, mem_slot)
        short_width = slot_width[short]
        cum = np.cumsum(short_width)
        lo = 0
        while lo < len(pair):
            base = int(cum[lo - 1]) if lo else 0
            hi = max(int(np.searchsorted(cum, base + _CHUNK_ROWS, side="right")), lo + 1)
            row = np.repeat(np.arange(hi - lo, dtype=np.int64), short_width[lo:hi])
            mine = expand_ranges(slot_ptr[short[lo:hi]], short_width[lo:hi])
            sig = slot_sig[mine]
            probe = long[lo:hi][row] * n_sig + sig
            pos = np.minimum(np.searchsorted(keys, probe), max(len(keys) - 1, 0))
            common = keys[pos] == probe if len(keys) else np.zeros(len(probe), dtype=bool)
            row, sig, mine, pos = row[common], sig[common], mine[common], pos[common]
            weight = np.minimum(slot_cnt[mine], slot_cnt[pos]).astype(np.float64)
            # Flagged when either page has the signature in a block found outside.
            bad = flagged[mine] | flagged[pos]
            total = np.bincount(row, weights=weight, minlength=hi - lo)
            outside = np.bincount(row, weights=np.where(bad, weight, 0.0), minlength=hi - lo)
            some = np.bincount(row, minlength=hi - lo) > 0
            out[pair[lo:hi][some]] = outside[some] / total[some]
            ok[pair[lo:hi][some]] = True
            lo = hi
        return out, ok

    def _flagged(self, matrix: SignatureMatrix, repeated: RepeatedBlocks, rep_width: np.ndarray,
                 keys: np.ndarray, n_sig: np.int64) -> np.ndarray:
        """Over the slots' signature entries (``keys``), whether the signature stands, on
        the slot's page, in a block some page unrelated to the slot's cluster carries."""
        assert matrix.raw_ids is not None
        n_blocks = np.int64(max(len(repeated.block_ids), 1))
        # How many related pages of each cluster carry each block (related pages once).
        rel = distinct(self.rel_cluster * np.int64(max(repeated.n_pages, 1)) + self.rel_page) \
            if len(self.rel_page) else np.empty(0, np.int64)
        rel_cluster, rel_page = np.divmod(rel, np.int64(max(repeated.n_pages, 1)))
        carried = np.diff(repeated.page_block_ptr)[rel_page]
        blocks = repeated.page_block[expand_ranges(repeated.page_block_ptr[rel_page], carried)]
        known, related_pages = np.unique(np.repeat(rel_cluster, carried) * n_blocks + blocks,
                                         return_counts=True)
        # A block is outside when fewer of the cluster's related pages carry it than pages do.
        outside_known = related_pages < repeated.block_pages[known % n_blocks]
        del rel, rel_cluster, rel_page, carried, blocks

        slot_width = rep_width[self.slot_page]
        ent = expand_ranges(repeated.sig_ptr[self.slot_page], slot_width)
        slot = np.repeat(np.arange(len(self.slot_page), dtype=np.int64), slot_width)
        if repeated.matrix_ids:
            dense = repeated.sig_id[ent].astype(np.int64)
            known_id = np.ones(len(dense), dtype=bool)
        else:
            raw = repeated.sig_id[ent]
            dense = np.minimum(np.searchsorted(matrix.raw_ids, raw), max(len(matrix.raw_ids) - 1, 0))
            known_id = matrix.raw_ids[dense] == raw if len(matrix.raw_ids) else np.zeros(len(raw), dtype=bool)
        query = self.slot_cluster[slot] * n_blocks + repeated.sig_block[ent]
        at = np.minimum(np.searchsorted(known, query), max(len(known) - 1, 0))
        # Blocks no related page carries (a reference outside its own cluster) are outside.
        outside = ~(known[at] == query) | outside_known[at] if len(known) else np.ones(len(query), bool)
        keep = known_id & outside
        flagged = np.zeros(len(keys), dtype=bool)
        found = slot[keep] * n_sig + dense[keep]
        if len(keys):
            at = np.minimum(np.searchsorted(keys, found), len(keys) - 1)
            flagged[at[keys[at] == found]] = True
        return flagged


def _slot_rows(matrix: SignatureMatrix, slot_page: np.ndarray, slot_width: np.ndarray,
               slot_ptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The slots' pages' signature entries (ids and counts), slot after slot. Read a few
    rows at a time and let go (``RowReads``): the slots' pages lie all over the matrix,
    and reading them at once from a mapped matrix brought most of it into memory (a
    fault maps the cached pages around it too: +361 MB at 300,000 small pages)."""
    sig = np.empty(int(slot_ptr[-1]), dtype=matrix.sig.dtype)
    cnt = np.empty(int(slot_ptr[-1]), dtype=matrix.cnt.dtype)
    reads = RowReads(matrix.sig, matrix.cnt)
    step = rows_at_once(matrix.sig, len(slot_page))
    for lo in range(0, len(slot_page), step):
        hi = min(lo + step, len(slot_page))
        ent = expand_ranges(matrix.ptr[slot_page[lo:hi]], slot_width[lo:hi])
        at, end = int(slot_ptr[lo]), int(slot_ptr[hi])
        sig[at:end] = matrix.sig[ent]
        cnt[at:end] = matrix.cnt[ent]
        reads.read(hi - lo)
    return sig, cnt


def _neighbours(refs: np.ndarray, a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pages paired with each reference, as CSR over all pages (others have none)."""
    is_ref = np.zeros(n, dtype=bool)
    is_ref[refs] = True
    from_a, from_b = is_ref[a], is_ref[b]
    src = np.concatenate([a[from_a], b[from_b]])
    dst = np.concatenate([b[from_a], a[from_b]])
    order = np.argsort(src, kind="stable")
    return _ptr(np.bincount(src, minlength=n)), dst[order]


def _segment_sums(values: np.ndarray, start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """values[start[k]:start[k] + count[k]].sum() for every k (empty segments give 0)."""
    cum = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=cum[1:])
    sums: npt.NDArray[np.int64] = cum[start + count] - cum[start]
    return sums


def _pages_read(n: int, refs: np.ndarray, members: np.ndarray, adj_ptr: np.ndarray,
                adj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pages whose spot rows :func:`boilerplate_shares` reads (references and members:
    its slots) and those whose block rows it reads (those, and the references' neighbours:
    the pages related to a cluster)."""
    spots = np.zeros(n, dtype=bool)
    spots[refs] = True
    spots[members] = True
    blocks = spots.copy()
    blocks[adj[expand_ranges(adj_ptr[refs], np.diff(adj_ptr)[refs])]] = True
    return spots, blocks


def _ptr(counts: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


def _widths(ptr: np.ndarray, n: int) -> np.ndarray:
    """Row lengths of a CSR pointer array, padded with zeros to ``n`` rows."""
    width = np.zeros(n, dtype=np.int64)
    width[: len(ptr) - 1] = np.diff(ptr)
    return width


