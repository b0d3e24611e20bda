"""Compiled passes over a signature matrix's rows that make no array of its size.

The numpy way (a row index per entry, boolean masks, fancy indexing) builds several
temporaries as large as the matrix; at a million pages (about 90 million entries) each
is 0.1-0.7 GB, and the filters after extraction made four of them at once. These loops
walk ``ptr`` row by row instead (numba, as the join in allpairs.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rows_ascending(ptr: np.ndarray, sig: np.ndarray) -> bool:
    """Whether the ids of every row are strictly ascending."""
    for r in range(len(ptr) - 1):
        for k in range(ptr[r] + 1, ptr[r + 1]):
            if sig[k] <= sig[k - 1]:
                return False
    return True


@njit(cache=True, nogil=True)
def id_counts(ids: np.ndarray, minlength: int) -> np.ndarray:
    """``np.bincount(ids, minlength=minlength)`` of non-negative ids, without the copy of
    ``ids`` as 64-bit integers bincount makes first (8 bytes a matrix entry)."""
    size = minlength
    for k in range(len(ids)):
        if ids[k] >= size:
            size = ids[k] + 1
    out = np.zeros(size, dtype=np.int64)
    for k in range(len(ids)):
        out[ids[k]] += 1
    return out


@njit(cache=True, nogil=True)
def add_id_counts(ids: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` with each id of ``ids`` counted once more (longer when an id is beyond
    it): :func:`id_counts` over an array read a part at a time."""
    size = len(out)
    for k in range(len(ids)):
        if ids[k] >= size:
            size = ids[k] + 1
    if size > len(out):
        grown = np.zeros(size, dtype=np.int64)
        grown[: len(out)] = out
        out = grown
    for k in range(len(ids)):
        out[ids[k]] += 1
    return out


@njit(cache=True, nogil=True)
def ranks_by_count(counts: np.ndarray) -> np.ndarray:
    """Each id's place (int32) when the ids are ordered by ascending count, ties by id:
    the order ``np.argsort(counts, kind="stable")`` gives, as ranks. Counted, not sorted
    (counts are whole numbers no larger than the pages): 4 bytes an id besides the
    counts, where the sort's indexes and ranks took 16 (and its buffer)."""
    top = 0
    for k in range(len(counts)):
        if counts[k] > top:
            top = counts[k]
    start = np.zeros(top + 2, dtype=np.int64)  # start[c]: the first rank of count c
    for k in range(len(counts)):
        start[counts[k] + 1] += 1
    for c in range(1, top + 2):
        start[c] += start[c - 1]
    rank = np.empty(len(counts), dtype=np.int32)
    for k in range(len(counts)):
        c = counts[k]
        rank[k] = start[c]
        start[c] += 1
    return rank


@njit(cache=True, nogil=True)
def row_sums(ptr: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """Per row: the total of its counts (int64)."""
    n = len(ptr) - 1
    out = np.zeros(n, dtype=np.int64)
    for r in range(n):
        total = 0
        for k in range(ptr[r], ptr[r + 1]):
            total += cnt[k]
        out[r] = total
    return out


@njit(cache=True, nogil=True)
def row_totals(ptr: np.ndarray, sig: np.ndarray, cnt: np.ndarray, counted: np.ndarray,
               indexed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the total count of its counted signatures (its length), and of those
    counted but not indexed. ``counted`` and ``indexed`` are per signature id."""
    n = len(ptr) - 1
    length = np.zeros(n, dtype=np.int64)
    unindexed = np.zeros(n, dtype=np.int64)
    for r in range(n):
        total = 0
        left_out = 0
        for k in range(ptr[r], ptr[r + 1]):
            s = sig[k]
            if counted[s]:
                total += cnt[k]
                if not indexed[s]:
                    left_out += cnt[k]
        length[r] = total
        unindexed[r] = left_out
    return length, unindexed


@njit(cache=True, nogil=True)
def keep_entries(ptr: np.ndarray, sig: np.ndarray, cnt: np.ndarray, keep_sig: np.ndarray,
                 keep_row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The matrix with only the entries whose signature and row are kept (rows stay, a
    dropped row empty): new ptr, sig, cnt."""
    n = len(ptr) - 1
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        kept = 0
        if keep_row[r]:
            for k in range(ptr[r], ptr[r + 1]):
                if keep_sig[sig[k]]:
                    kept += 1
        out_ptr[r + 1] = out_ptr[r] + kept
    out_sig = np.empty(out_ptr[n], dtype=sig.dtype)
    out_cnt = np.empty(out_ptr[n], dtype=cnt.dtype)
    at = 0
    for r in range(n):
        if keep_row[r]:
            for k in range(ptr[r], ptr[r + 1]):
                if keep_sig[sig[k]]:
                    out_sig[at] = sig[k]
                    out_cnt[at] = cnt[k]
                    at += 1
    return out_ptr, out_sig, out_cnt


@njit(cache=True, nogil=True)
def row_multisets(ptr: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's ids (``ids[ptr[r]:ptr[r + 1]]``, any order, repeats allowed) as its sorted
    distinct ids and how often each occurs: new ptr, ids, counts (``np.unique`` with
    ``return_counts`` row by row, without a numpy call per row)."""
    n = len(ptr) - 1
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    out_ids = np.empty(len(ids), dtype=np.int64)
    out_cnt = np.empty(len(ids), dtype=np.int64)
    at = 0
    for r in range(n):
        row = np.sort(ids[ptr[r] : ptr[r + 1]])
        for k in range(len(row)):
            if k and row[k] == row[k - 1]:
                out_cnt[at - 1] += 1
            else:
                out_ids[at] = row[k]
                out_cnt[at] = 1
                at += 1
        out_ptr[r + 1] = at
    return out_ptr, out_ids[:at], out_cnt[:at]
