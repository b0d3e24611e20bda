"""Every pair of weighted vectors with cosine >= t, exactly (All-Pairs, Bayardo et al. 2007).

ANDD's paper finds its pairs with LSH (random hyperplanes for cosine), which only
approximates the similarity and misses some pairs. At the workbench's sizes the exact
cosine costs little with prefix bounds: vectors have length 1, ``maxweight[c]`` is the
largest value any vector has in column c, and a vector's entries are taken in column
order (the most common k-grams first) while the smaller of two bounds stays below t: the
sum of value * maxweight, and the length of the entries taken. Those first entries, the
vector's *prefix*,
can add less than t to a dot product with any vector of length 1, so two vectors with
cosine >= t share an entry outside the prefix of the earlier one; only the rest of each
vector is put in the inverted lists. Each page then probes the lists with all its
entries, rarest first, accumulating dot products with the earlier pages it meets and
meeting no new ones once its remaining entries are bounded below t; a page whose sum plus
what its prefix can add stays below t is dropped (the prefix's bound, or the length of
the prefix times the length of the probing page's part in the prefix's columns), the
others get what the prefixes share by merging. Nothing is estimated: every pair at or
above t is found with its exact cosine (up to float rounding).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt
from numba import njit

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join.allpairs import with_room
from workbench.detect.join.matcher import PairResult

# The bound and the final test allow this much float rounding: pairs are never lost to it.
_EPS = 1e-9
# Probing reads shared lists without the GIL: one thread per core.
_THREADS = max(1, min(os.cpu_count() or 1, 8))


@njit(cache=True, nogil=True)
def _prefix_dot(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, split: np.ndarray,
                x: int, y: int) -> float:
    """The dot product of x with the prefix of y (columns ascend in both)."""
    i, i_end = ptr[x], ptr[x + 1]
    j, j_end = ptr[y], split[y]
    total = 0.0
    while i < i_end and j < j_end:
        a, b = col[i], col[j]
        if a == b:
            total += val[i] * val[j]
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return total


@njit(cache=True, nogil=True)
def _accumulate(x: int, ptr: np.ndarray, col: np.ndarray, val: np.ndarray, bound: np.ndarray,
                list_ptr: np.ndarray, list_doc: np.ndarray, list_val: np.ndarray, t: float,
                acc: np.ndarray, touched: np.ndarray) -> int:
    """Add x's dot product with the indexed prefixes of the pages before it into ``acc``,
    listing the pages met in ``touched``; returns how many."""
    n_touched = 0
    # From the rarest k-gram of x down: once what x has left could add less than t to
    # any cosine (``bound``), a page not met yet cannot reach t, so none is added.
    for e in range(ptr[x + 1] - 1, ptr[x] - 1, -1):
        c = col[e]
        v = val[e]
        admit = bound[e] >= t - _EPS
        for q in range(list_ptr[c], list_ptr[c + 1]):
            y = list_doc[q]
            if y >= x:
                break  # lists ascend by page: the rest come later
            if acc[y] == 0.0:
                if not admit:
                    continue
                touched[n_touched] = y
                n_touched += 1
            acc[y] += v * list_val[q]
    return n_touched


@njit(cache=True, nogil=True)
def _verify(x: int, n_touched: int, ptr: np.ndarray, col: np.ndarray, val: np.ndarray, split: np.ndarray,
            reach: np.ndarray, running_sq: np.ndarray, t: float, acc: np.ndarray, touched: np.ndarray,
            out_a: np.ndarray, out_b: np.ndarray, out_s: np.ndarray, found: int) -> tuple[int, int]:
    """Bound, then merge, x's candidates and reset ``acc``; pairs >= t are written from
    ``found`` on (the outputs have room for every candidate). Returns (pairs written in
    all, candidates merged)."""
    candidates = 0
    for k in range(n_touched):
        y = touched[k]
        s = acc[y]
        acc[y] = 0.0
        if s + reach[y] < t - _EPS:
            continue  # y's prefix cannot make up the difference
        if split[y] > ptr[y]:
            # Tighter: x's part in the columns of y's prefix times the prefix's length.
            before = np.searchsorted(col[ptr[x]:ptr[x + 1]], col[split[y]])
            x_sq = running_sq[ptr[x] + before - 1] if before > 0 else 0.0
            if s + np.sqrt(x_sq * running_sq[split[y] - 1]) < t - _EPS:
                continue
        candidates += 1
        s += _prefix_dot(ptr, col, val, split, x, y)
        if s >= 1.0 - _EPS:
            s = 1.0  # the same vector, up to rounding
        if s >= t:
            out_a[found] = y
            out_b[found] = x
            out_s[found] = s
            found += 1
    return found, candidates


@njit(cache=True, nogil=True)
def _probe(lo: int, hi: int, ptr: np.ndarray, col: np.ndarray, val: np.ndarray,
           split: np.ndarray, reach: np.ndarray, bound: np.ndarray, running_sq: np.ndarray,
           list_ptr: np.ndarray, list_doc: np.ndarray, list_val: np.ndarray, t: float,
           acc: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Pairs (y, x, cosine) with y < x, lo <= x < hi and cosine >= t; candidates merged."""
    touched = np.empty(max(hi, 1), dtype=np.int64)  # distinct pages before x < hi
    out_a = np.empty(64, dtype=np.int64)
    out_b = np.empty(64, dtype=np.int64)
    out_s = np.empty(64, dtype=np.float64)
    found = 0
    candidates = 0
    for x in range(lo, hi):
        # The loops are in helpers whose arrays are never reassigned: in numba a loop in
        # the same function as a growing output ran slower (0.71 of the time without it).
        n_touched = _accumulate(x, ptr, col, val, bound, list_ptr, list_doc, list_val, t, acc, touched)
        out_a, out_b, out_s = with_room(out_a, out_b, out_s, found + n_touched)  # for every candidate
        found, merged = _verify(x, n_touched, ptr, col, val, split, reach, running_sq, t, acc, touched,
                                out_a, out_b, out_s, found)
        candidates += merged
    return out_a[:found], out_b[:found], out_s[:found], candidates


def _prefix_ends(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, t: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where each row's indexed part starts, how much its prefix (the entries before) can
    add to a cosine at most, that bound for every entry (over the row's entries up to and
    including it), and the squared length of the row up to and including every entry.

    Two bounds on the dot product of a prefix with any vector of length 1, both growing
    along the row: the sum of value * maxweight (All-Pairs), and the prefix's own length
    (Cauchy-Schwarz, as in L2AP, Anastasiu and Karypis 2014). The prefix runs while the
    smaller of the two stays below t: with flat weights, where maxweight is high in every
    column (short pages), the length bound leaves only the rarest k-grams in the lists.
    """
    n = len(ptr) - 1
    if len(col) == 0:
        return ptr[:-1].copy(), np.zeros(n), np.zeros(0), np.zeros(0)
    maxweight = np.zeros(int(col.max()) + 1)
    np.maximum.at(maxweight, col, val)
    sizes = np.diff(ptr)
    rows = np.repeat(np.arange(n), sizes)

    def running(x: np.ndarray) -> np.ndarray:  # cumulative sums restarted at every row
        total = np.cumsum(x)
        sums: npt.NDArray[np.float64] = total - np.repeat(np.concatenate([[0.0], total])[ptr[:-1]], sizes)
        return sums

    running_sq = running(val * val)
    bound = np.minimum(running(maxweight[col] * val), np.sqrt(running_sq))
    unindexed = bound < t - _EPS
    prefix = np.bincount(rows[unindexed], minlength=n)
    # The bound after the prefix's last entry (0 for an empty prefix).
    last = ptr[:-1] + prefix - 1
    reach = np.where(prefix > 0, bound[np.maximum(last, 0)], 0.0)
    return ptr[:-1] + prefix, reach, bound, running_sq


def cosine_pairs(ptr: np.ndarray, col: np.ndarray, val: np.ndarray, t: float,
                 progress: ProgressFn = no_progress) -> PairResult:
    """Every pair of rows (a < b) with dot product >= t, of rows of length 1 (CSR:
    columns ascending within a row, every value > 0; columns numbered most common first
    keep the lists short)."""
    if not 0.0 < t <= 1.0:
        raise ValueError(f"the cosine threshold must be in (0, 1], not {t}")
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    col = np.ascontiguousarray(col, dtype=np.int64)
    val = np.ascontiguousarray(val, dtype=np.float64)
    n = len(ptr) - 1
    split, reach, bound, running_sq = _prefix_ends(ptr, col, val, t)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    indexed = np.arange(len(col)) >= split[rows]
    order = np.lexsort((rows[indexed], col[indexed]))
    list_doc = rows[indexed][order]
    list_val = val[indexed][order]
    m = int(col.max()) + 1 if len(col) else 0
    list_ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(col[indexed], minlength=m), out=list_ptr[1:])
    step = max(64, n // 100)  # pages per task: progress and cancel points
    chunks = [(lo, min(lo + step, n)) for lo in range(0, n, step)]
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
    progress("match", 0, n)

    def run(bounds: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        return _probe(bounds[0], bounds[1], ptr, col, val, split, reach, bound, running_sq,
                      list_ptr, list_doc, list_val, t, np.zeros(n))

    with ThreadPoolExecutor(max_workers=_THREADS) as pool:
        futures = [pool.submit(run, bounds) for bounds in chunks]
        try:
            for (_, hi), future in zip(chunks, futures, strict=True):
                parts.append(future.result())
                progress("match", hi, n)  # may raise Cancelled
        except BaseException:
            for future in futures:
                future.cancel()  # tasks not started yet; running ones end soon
            raise
    if not parts:
        return PairResult(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    s = np.concatenate([p[2] for p in parts])
    keep = np.lexsort((b, a))
    return PairResult(a[keep], b[keep], s[keep], sum(p[3] for p in parts))
