"""Every pair of fingerprints within Hamming distance k by comparing them all.

The permuted tables stop paying when k is large or the fingerprints crowd together:
their keys get short, so most pairs share one anyway, and each candidate costs far more
there (numpy gathers and a dedup test) than a plain xor and popcount here. This is the
exact fallback: every pair a < b is compared, in a loop compiled with numba (about 4
times faster than the same comparison as numpy chunks, measured on 100,000
fingerprints) and spread over threads by ranges of rows of about equal work.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from workbench.core.progress import ProgressFn

# The loop releases the GIL: one thread per core.
_THREADS = max(1, min(os.cpu_count() or 1, 8))
# Comparisons per task: enough to amortise a call, small enough for timely progress.
_TASK = 50_000_000

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True)
def _popcount(x: np.uint64) -> np.uint64:
    # The classic SWAR bit count (numba has no popcount of its own).
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _grow(a: np.ndarray) -> np.ndarray:
    out = np.empty(2 * len(a), dtype=a.dtype)
    out[: len(a)] = a
    return out


@njit(cache=True, nogil=True)
def _rows_within(fps: np.ndarray, lo: int, hi: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (i, j), lo <= i < hi, i < j, whose fingerprints differ in at most k bits."""
    n = len(fps)
    limit = np.uint64(k)
    # The inner loop writes every j and advances only on a hit: no branch, no growing
    # arrays there (with them in the loop it ran 20 times slower).
    hits = np.empty(n, dtype=np.int64)
    a = np.empty(1024, dtype=np.int64)
    b = np.empty(1024, dtype=np.int64)
    d = np.empty(1024, dtype=np.int64)
    found = 0
    for i in range(lo, hi):
        fi = fps[i]
        count = 0
        for j in range(i + 1, n):
            hits[count] = j
            count += _popcount(fi ^ fps[j]) <= limit
        for t in range(count):
            if found == len(a):
                a, b, d = _grow(a), _grow(b), _grow(d)
            j = hits[t]
            a[found], b[found], d[found] = i, j, _popcount(fi ^ fps[j])
            found += 1
    return a[:found], b[:found], d[:found]


def row_ranges(n: int, per_task: int | None = None) -> list[tuple[int, int]]:
    """Consecutive row ranges covering 0..n-1 with about ``per_task`` (default _TASK)
    comparisons each (row i compares with the n - 1 - i rows after it)."""
    per_task = _TASK if per_task is None else per_task
    done = np.cumsum(np.arange(n - 1, -1, -1, dtype=np.int64))  # comparisons of rows 0..i
    ranges: list[tuple[int, int]] = []
    lo = 0
    while lo < n:
        before = int(done[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(done, before + per_task, side="left")) + 1)
        ranges.append((lo, min(hi, n)))
        lo = min(hi, n)
    return ranges


Triple = tuple[np.ndarray, np.ndarray, np.ndarray]


def all_pairs_within(fps: np.ndarray, k: int, progress: ProgressFn) -> Triple:
    """Every pair a < b with Hamming distance <= k: (a, b, distance) as int64 arrays."""
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    n = len(fps)
    ranges = row_ranges(n)
    parts: list[Triple] = []
    with ThreadPoolExecutor(max_workers=_THREADS) as pool:
        futures = [pool.submit(_rows_within, fps, lo, hi, k) for lo, hi in ranges]
        try:
            for (_, hi), future in zip(ranges, futures, strict=True):
                parts.append(future.result())
                progress("match", hi, n)
        except BaseException:  # Cancelled: tasks not yet started never run
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty
    a, b, d = (np.concatenate([p[i] for p in parts]) for i in range(3))
    return a, b, d
