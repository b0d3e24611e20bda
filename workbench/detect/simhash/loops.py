"""The simhash index's comparison loops, compiled with numba and run on several threads.

Two loops: the candidates of one permuted table (every pair inside each run of equal
keys of the sorted table), and every pair of all fingerprints (the exact fallback when
the tables would bring nearly every pair anyway). Both are an xor and a popcount per
pair; as numpy batch operations (gathers of both sides, then the same arithmetic) a
candidate cost about 20 times more, measured on 100,000 random fingerprints. Work is
split into tasks of about equal numbers of comparisons, one thread per core (the loops
release the GIL), with a progress call (and so a chance to cancel) after each task.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import njit

from workbench.core.progress import ProgressFn

_THREADS = max(1, min(os.cpu_count() or 1, 8))
# Comparisons per task: enough to amortise a call, small enough for timely progress.
_TASK = 50_000_000

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)

Triple = tuple[np.ndarray, np.ndarray, np.ndarray]


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
def _rows_within(fps: np.ndarray, lo: int, hi: int, k: int) -> Triple:
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
        # Counts by adding comparisons (numpy bools): a numpy integer to the type checker.
        count: int | np.signedinteger[Any] = 0
        for j in range(i + 1, n):
            hits[count] = j
            count += _popcount(fi ^ fps[j]) <= limit
        for t in range(count):
            if found == len(a):
                a, b, d = _grow(a), _grow(b), _grow(d)
            hit = hits[t]
            a[found], b[found], d[found] = i, hit, _popcount(fi ^ fps[hit])
            found += 1
    return a[:found], b[:found], d[:found]


@njit(cache=True, nogil=True)
def _runs_within(sorted_fps: np.ndarray, ids: np.ndarray, run_start: np.ndarray, run_end: np.ndarray,
                 lo: int, hi: int, k: int, shifts: np.ndarray, masks: np.ndarray) -> Triple:
    """Pairs inside runs lo..hi-1 of a sorted table (run r is positions run_start[r] to
    run_end[r] - 1 of ``sorted_fps``; ``ids`` maps positions to fingerprint ids) within
    k bits and credited to this table: none of the blocks given by ``shifts`` and
    ``masks`` (those of earlier tables) is all zero in the pair's xor."""
    limit = np.uint64(k)
    hits = np.empty(0, dtype=np.int64)
    a = np.empty(1024, dtype=np.int64)
    b = np.empty(1024, dtype=np.int64)
    d = np.empty(1024, dtype=np.int64)
    found = 0
    for r in range(lo, hi):
        end = run_end[r]
        if len(hits) < end - run_start[r]:
            hits = np.empty(end - run_start[r], dtype=np.int64)
        for s in range(run_start[r], end):
            fs = sorted_fps[s]
            count: int | np.signedinteger[Any] = 0  # as in _rows_within
            for t in range(s + 1, end):  # branch-free, as in _rows_within
                hits[count] = t
                count += _popcount(fs ^ sorted_fps[t]) <= limit
            for h in range(count):
                hit = hits[h]
                x = fs ^ sorted_fps[hit]
                credited = True
                for c in range(len(shifts)):
                    if (x >> shifts[c]) & masks[c] == 0:
                        credited = False
                        break
                if not credited:
                    continue
                if found == len(a):
                    a, b, d = _grow(a), _grow(b), _grow(d)
                i, j = ids[s], ids[hit]
                a[found], b[found], d[found] = min(i, j), max(i, j), _popcount(x)
                found += 1
    return a[:found], b[:found], d[:found]


def split_work(work: np.ndarray, per_task: int | None = None) -> list[tuple[int, int]]:
    """Consecutive ranges of items whose ``work`` adds up to about ``per_task`` (default
    _TASK) each; an item is never split."""
    per_task = _TASK if per_task is None else per_task
    done = np.cumsum(work)
    ranges: list[tuple[int, int]] = []
    lo = 0
    while lo < len(work):
        before = int(done[lo - 1]) if lo else 0
        hi = min(len(work), max(lo + 1, int(np.searchsorted(done, before + per_task, side="left")) + 1))
        ranges.append((lo, hi))
        lo = hi
    return ranges


def all_pairs_within(fps: np.ndarray, k: int, progress: ProgressFn) -> Triple:
    """Every pair a < b of ``fps`` (uint64) with Hamming distance <= k: (a, b, distance)."""
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    n = len(fps)
    tasks = split_work(np.arange(n - 1, -1, -1, dtype=np.int64))  # row i compares n - 1 - i

    def after(hi: int) -> None:
        progress("match", hi, n)

    return _run_tasks(tasks, lambda lo, hi: _rows_within(fps, lo, hi, k), after)


def runs_within(sorted_fps: np.ndarray, ids: np.ndarray, run_start: np.ndarray, run_end: np.ndarray,
                k: int, earlier_blocks: list[tuple[int, int]], tick: Callable[[], None]) -> Triple:
    """Every pair inside a run of a sorted table within k bits, except those an earlier
    table finds (its blocks, given as (shift, mask), are all zero in the pair's xor):
    (a, b, distance) with a < b as ids. ``tick`` is called after every task."""
    sizes = run_end - run_start
    tasks = split_work(sizes * (sizes - 1) // 2)
    shifts = np.array([shift for shift, _ in earlier_blocks], dtype=np.uint64)
    masks = np.array([mask for _, mask in earlier_blocks], dtype=np.uint64)

    def call(lo: int, hi: int) -> Triple:
        return _runs_within(sorted_fps, ids, run_start, run_end, lo, hi, k, shifts, masks)

    return _run_tasks(tasks, call, lambda hi: tick())


def _run_tasks(tasks: list[tuple[int, int]], call: Callable[[int, int], Triple],
               after: Callable[[int], None]) -> Triple:
    """``call(lo, hi)`` for every task on the threads, ``after(hi)`` as each finishes in
    order (it may raise Cancelled: tasks not yet started are then dropped)."""
    parts: list[Triple] = []
    with ThreadPoolExecutor(max_workers=_THREADS) as pool:
        futures = [pool.submit(call, lo, hi) for lo, hi in tasks]
        try:
            for (_, hi), future in zip(tasks, futures, strict=True):
                parts.append(future.result())
                after(hi)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty
    a, b, d = (np.concatenate([p[i] for p in parts]) for i in range(3))
    return a, b, d
