"""The exact similarity join's inner loops, compiled with numba.

An AllPairs/PPJoin-style join (Bayardo et al. 2007; Xiao et al. 2008) for multiset
Jaccard. Signatures are ranked by ascending document frequency and every page lists its
signatures in rank order. A multiset is a set of (signature, copy) items, so the
classic arguments hold with counts:

* **length filter**: J(x, y) >= tau needs tau |x| <= |y| <= |x| / tau;
* **prefix filter**: J >= tau needs an overlap of at least tau * max(|x|, |y|), so two
  such pages share a signature among the first |x| - ceil(tau |x|) + 1 items of each
  (the *prefix*); only prefixes are indexed and probed;
* **positional filter**: when x meets y on signature s, the overlap so far (over the
  signatures before s, all of which sit in both prefixes) plus min(count) at s plus the
  smaller of what follows s in either page bounds the final overlap; a y whose bound
  falls below tau / (1 + tau) (|x| + |y|) is dropped at once.

Pages are put in ascending length order and every page's prefix is indexed once; then
each page probes the lists for the pages before it in that order (so every pair is found
once, by its longer page), from the first page long enough (the length filter: one binary
search, as the lists ascend in length too). Probing only reads the index, so it runs on
several threads (numba releases the GIL). Candidates left are verified by merging the
two pages from where their prefixes end.
Numba (the standard JIT compiler for numeric Python) runs these loops at C speed: as
numpy batch operations the same work was dominated by sorting and binary searches over
every signature entry of the corpus.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_EPS = 1e-9


@njit(cache=True, nogil=True)
def _grow(a: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(max(size, 2 * len(a)), dtype=a.dtype)
    out[: len(a)] = a
    return out


@njit(cache=True, nogil=True)
def with_room(out_a: np.ndarray, out_b: np.ndarray, out_s: np.ndarray,
              size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three pair outputs (a, b, similarity), grown if needed to hold ``size`` pairs."""
    if size > len(out_a):
        return _grow(out_a, size), _grow(out_b, size), _grow(out_s, size)
    return out_a, out_b, out_s


@njit(cache=True, nogil=True)
def least_overlap(tau: float, lx: float, ly: float) -> float:
    """The overlap two pages of these lengths need for J >= tau (less a rounding margin)."""
    return tau / (1.0 + tau) * (lx + ly) - _EPS * (lx + ly)


@njit(cache=True, nogil=True)
def _overlap(ptr: np.ndarray, rank: np.ndarray, cnt: np.ndarray, x: int, y: int, after: int = -1) -> int:
    """sum of min(count) over the signatures pages x and y share with a rank above
    ``after`` (rows sorted by rank)."""
    i, i_end = ptr[x], ptr[x + 1]
    j, j_end = ptr[y], ptr[y + 1]
    if after >= 0:
        i += np.searchsorted(rank[i:i_end], after, side="right")
        j += np.searchsorted(rank[j:j_end], after, side="right")
    total = 0
    while i < i_end and j < j_end:
        a, b = rank[i], rank[j]
        if a == b:
            total += min(cnt[i], cnt[j])
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return total


@njit(cache=True, nogil=True)
def build_index(
    order: np.ndarray,  # pages by ascending (length, id): the probing order
    ptr: np.ndarray,  # CSR rows, sorted by rank within each row
    rank: np.ndarray,
    cnt: np.ndarray,
    length: np.ndarray,  # float64 |x|, unindexed signatures included
    unindexed: np.ndarray,  # per page: its items no other page has (first in rank order)
    tau: float,
    list_ptr: np.ndarray,  # start of each signature's list in the flat list arrays
    list_pos: np.ndarray,  # int32: the page's position in ``order`` (lists ascend in it)
    list_delta: np.ndarray,  # int32: the page's items before the signature
    list_cnt: np.ndarray,  # int32
    prefix_last: np.ndarray,  # per page: the rank of its prefix's last signature (-1: none)
    prefix_rest: np.ndarray,  # per page, float64: its items after its prefix
) -> None:
    """Every page's prefix into the inverted lists, in probing order."""
    fill = list_ptr[:-1].copy()
    for k in range(len(order)):
        x = order[k]
        lx = length[x]
        prefix_end = lx - np.ceil(tau * lx - _EPS * lx)
        delta = unindexed[x]
        e = ptr[x]
        last = -1
        while e < ptr[x + 1] and delta <= prefix_end:
            r = rank[e]
            q = fill[r]
            list_pos[q] = k
            list_delta[q] = delta
            list_cnt[q] = cnt[e]
            fill[r] += 1
            last = r
            delta += cnt[e]
            e += 1
        prefix_last[x] = last
        prefix_rest[x] = lx - delta


@njit(cache=True, nogil=True)
def probe(
    lo: int,
    hi: int,  # probe the pages of rows lo:hi
    ptr: np.ndarray,  # rows in probing order: row k is the k-th page to probe
    rank: np.ndarray,
    cnt: np.ndarray,
    unindexed: np.ndarray,
    tau: float,
    list_ptr: np.ndarray,
    list_pos: np.ndarray,
    list_delta: np.ndarray,
    list_cnt: np.ndarray,
    facts: np.ndarray,  # per row, float64: length, its prefix's last rank, its items after it
    lengths: np.ndarray,  # per row: its length again, in the type of ``score``
    score: np.ndarray,  # per row, all 0 (scratch for this caller: one per thread)
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Pairs >= tau of each probed page with the pages before it (rows in probing order:
    a list names its pages by row, ascending): (a, b, similarity, candidates verified), a
    and b rows. Reads the index only, so threads may share it.

    A page's length, last prefix rank and items after its prefix sit side by side in
    ``facts``: a candidate is looked up at one place, not three. Scanning the lists reads
    only ``lengths`` and ``score``, as float32 when every length is below 2**24 (the
    scores are sums of counts, so they stay exact): half the memory to walk.

    The loops live in :func:`_scan_prefix` and :func:`_verify_touched`, whose arrays are
    never reassigned: a loop in the same function as an array that may be replaced (the
    growing outputs) ran about twice as slow in numba (measured on a million pages)."""
    touched = np.empty(max(hi, 1), dtype=np.int64)  # distinct rows before x < hi
    out_a = np.empty(64, dtype=np.int64)
    out_b = np.empty(64, dtype=np.int64)
    out_s = np.empty(64, dtype=np.float64)
    found = 0
    verified = 0
    for x in range(lo, hi):
        n_touched, last, rest_after_x = _scan_prefix(
            x, ptr, rank, cnt, unindexed, tau, list_ptr, list_pos, list_delta, list_cnt, facts, lengths,
            score, touched)
        out_a, out_b, out_s = with_room(out_a, out_b, out_s, found + n_touched)  # for every candidate
        found, checked = _verify_touched(x, n_touched, last, rest_after_x, ptr, rank, cnt, tau, facts, score,
                                         touched, out_a, out_b, out_s, found)
        verified += checked
    return out_a[:found], out_b[:found], out_s[:found], verified


@njit(cache=True, nogil=True)
def _scan_prefix(x: int, ptr: np.ndarray, rank: np.ndarray, cnt: np.ndarray, unindexed: np.ndarray,
                 tau: float, list_ptr: np.ndarray, list_pos: np.ndarray, list_delta: np.ndarray,
                 list_cnt: np.ndarray, facts: np.ndarray, lengths: np.ndarray, score: np.ndarray,
                 touched: np.ndarray) -> tuple[int, int, float]:
    """Scan the lists of x's prefix for the rows before it, adding up each candidate's
    shared items in ``score`` (-1: dropped by the positional filter) and listing the
    candidates met in ``touched``. Returns (candidates, the rank of x's last prefix
    signature, x's items after its prefix)."""
    lx = facts[x, 0]
    need_x = np.ceil(tau * lx - _EPS * lx)  # least overlap any partner needs
    prefix_end = lx - need_x  # an item at this position (0-based) or before is in the prefix
    first = np.searchsorted(facts[:x, 0], tau * lx - _EPS * lx)  # long enough from here
    n_touched = 0
    delta = unindexed[x]
    e = ptr[x]
    last = -1
    while e < ptr[x + 1] and delta <= prefix_end:
        r = rank[e]
        last = r
        c = cnt[e]
        rest_x = lx - delta - c
        begin, end = list_ptr[r], list_ptr[r + 1]
        q = begin + np.searchsorted(list_pos[begin:end], first)
        while q < end and list_pos[q] < x:
            y = list_pos[q]
            sy = score[y]
            if sy >= 0:
                ly = lengths[y]
                shared = min(c, list_cnt[q])
                rest = min(rest_x, ly - list_delta[q] - list_cnt[q])
                need = least_overlap(tau, lx, ly)
                if sy == 0:
                    touched[n_touched] = y
                    n_touched += 1
                score[y] = -1.0 if sy + shared + rest < need else sy + shared
            q += 1
        delta += c
        e += 1
    return n_touched, last, lx - delta


@njit(cache=True, nogil=True)
def _verify_touched(x: int, n_touched: int, last: int, rest_after_x: float, ptr: np.ndarray,
                    rank: np.ndarray, cnt: np.ndarray, tau: float, facts: np.ndarray, score: np.ndarray,
                    touched: np.ndarray, out_a: np.ndarray, out_b: np.ndarray, out_s: np.ndarray,
                    found: int) -> tuple[int, int]:
    """Verify x's candidates left by the scan and reset their scores; pairs >= tau are
    written from ``found`` on (the outputs have room for every candidate). Returns
    (pairs written in all, candidates verified).

    Before a candidate is verified its overlap is bounded once more (the suffix bound):
    every shared signature up to the end of the shorter-ranked of the two prefixes is in
    its score, so at most the items after that prefix (in the page it belongs to) can
    add to it. At low thresholds this leaves most candidates unverified."""
    lx = facts[x, 0]
    verified = 0
    for t in range(n_touched):
        y = touched[t]
        if score[y] > 0:
            ly, y_last, y_rest = facts[y, 0], facts[y, 1], facts[y, 2]
            rest = rest_after_x if last <= y_last else y_rest
            if score[y] + rest < least_overlap(tau, lx, ly):
                score[y] = 0.0
                continue
            verified += 1
            # Every shared signature up to the end of the shorter-ranked prefix lies in
            # both prefixes, so the score holds it exactly: only the rest is merged.
            seen = min(last, int(y_last))
            inter = score[y] + _overlap(ptr, rank, cnt, x, y, seen)
            sim = inter / (lx + ly - inter)
            if sim >= tau:
                out_a[found] = min(x, y)
                out_b[found] = max(x, y)
                out_s[found] = sim
                found += 1
        score[y] = 0.0
    return found, verified


@njit(cache=True, nogil=True)
def prefix_sizes(ptr: np.ndarray, rank: np.ndarray, cnt: np.ndarray, length: np.ndarray,
                 unindexed: np.ndarray, tau: float, n_ranks: int) -> np.ndarray:
    """How many pages have each signature in their prefix (the lists' sizes)."""
    sizes = np.zeros(n_ranks, dtype=np.int64)
    for x in range(len(ptr) - 1):
        lx = length[x]
        if lx <= 0:
            continue
        prefix_end = lx - np.ceil(tau * lx - _EPS * lx)
        delta = float(unindexed[x])
        e = ptr[x]
        while e < ptr[x + 1] and delta <= prefix_end:
            sizes[rank[e]] += 1
            delta += cnt[e]
            e += 1
    return sizes


@njit(cache=True, nogil=True)
def overlaps(ptr: np.ndarray, rank: np.ndarray, cnt: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sum of min(count) over shared signatures for every pair (a[k], b[k])."""
    out = np.empty(len(a), dtype=np.float64)
    for k in range(len(a)):
        out[k] = _overlap(ptr, rank, cnt, a[k], b[k])
    return out


@njit(cache=True, nogil=True)
def gather_rows(ptr: np.ndarray, sig: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The entries of the given rows, one after another."""
    total = 0
    for x in rows:
        total += ptr[x + 1] - ptr[x]
    out = np.empty(total, dtype=sig.dtype)
    k = 0
    for x in rows:
        for e in range(ptr[x], ptr[x + 1]):
            out[k] = sig[e]
            k += 1
    return out


@njit(cache=True, nogil=True)
def ranked_rows(ptr: np.ndarray, sig: np.ndarray, cnt: np.ndarray, rows: np.ndarray, new_ptr: np.ndarray,
                rank_of: np.ndarray, rank: np.ndarray, new_cnt: np.ndarray) -> None:
    """Copy row rows[k] into row k of ``new_ptr`` (as many of its entries as that row
    holds: none leaves it out), renumbering signatures by ``rank_of`` and sorting each
    row by rank."""
    for k in range(len(new_ptr) - 1):
        lo, hi = new_ptr[k], new_ptr[k + 1]
        if hi == lo:
            continue
        src = ptr[rows[k]]
        ranks = rank_of[sig[src : src + hi - lo]]
        order = np.argsort(ranks)
        for k in range(hi - lo):
            rank[lo + k] = ranks[order[k]]
            new_cnt[lo + k] = cnt[src + order[k]]
