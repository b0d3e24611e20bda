"""The near-duplicate graph clustering reads: each page's links (the pages it is paired
with, and how similar), held as three arrays rather than a dictionary a page.

A million small pages have about two million pairs down to the pair floor. As a Python
dictionary a page (every link twice, a float and often an int object each) they took
about 385 bytes a pair, 770 MB: the largest thing the client held at that size. As
arrays (a row start a page; a neighbour and a similarity a link) they take 32 bytes a
pair. A page's links are made into a dictionary only when clustering looks at that page,
and let go after.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt
from numba import njit

# A column of the pair table: numpy arrays from a run, lists from the tests and calibration.
PageColumn = Sequence[int] | npt.NDArray[np.integer]
SimilarityColumn = Sequence[float] | npt.NDArray[np.floating]


# Python sums floats with Neumaier's compensation from 3.12 on, one by one before.
_COMPENSATED_SUM = sys.version_info >= (3, 12)


class Rows(Protocol):
    """Page -> its links (neighbour -> similarity): :class:`Links`, or a dictionary of a
    few pages' rows that a step over one cluster reads many times."""

    def __getitem__(self, x: int, /) -> Mapping[int, float]: ...


class Links:
    """Page ``x``'s links are ``to[ptr[x]:ptr[x + 1]]`` with similarities ``sim[...]``, in
    the order the pairs gave them (as a dictionary filled pair by pair would hold them:
    a pair given twice keeps its first place and its last similarity)."""

    __slots__ = ("ptr", "to", "sim")

    def __init__(self, ptr: np.ndarray, to: np.ndarray, sim: np.ndarray) -> None:
        self.ptr, self.to, self.sim = ptr, to, sim

    @classmethod
    def of_pairs(cls, n: int, a: PageColumn, b: PageColumn, sim: SimilarityColumn) -> Links:
        xs, ys = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        values = np.asarray(sim, dtype=np.float64)
        if not len(xs) == len(ys) == len(values):
            raise ValueError(f"pair columns differ in length: {len(xs)}, {len(ys)}, {len(values)}")
        if len(xs) and (min(int(xs.min()), int(ys.min())) < 0 or max(int(xs.max()), int(ys.max())) >= n):
            raise ValueError(f"a pair names a page outside 0..{n - 1}")
        return cls(*_rows(n, xs, ys, values))

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def __getitem__(self, x: int) -> dict[int, float]:
        """Page ``x``'s links, made for the caller (changing it changes nothing here)."""
        start, end = self.ptr[x], self.ptr[x + 1]
        return dict(zip(self.to[start:end].tolist(), self.sim[start:end].tolist(), strict=True))

    def neighbours(self, x: int) -> list[int]:
        return self.to[self.ptr[x]:self.ptr[x + 1]].tolist()  # type: ignore[no-any-return]

    def degrees(self) -> np.ndarray:
        return np.diff(self.ptr)

    def sums(self) -> np.ndarray:
        """Each page's similarities summed as Python's ``sum`` over its dictionary's values
        would (so ties in the greedy order break as they did)."""
        return _row_sums(self.ptr, self.sim, _COMPENSATED_SUM)

    def at_least(self, threshold: float) -> Links:
        """The links >= threshold; this object itself when every link is (weak joins at
        the pair floor, as by default: no copy)."""
        if not len(self.sim) or float(self.sim.min()) >= threshold:
            return self
        keep = self.sim >= threshold
        kept_before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
        return Links(kept_before[self.ptr], self.to[keep], self.sim[keep])

    def rows_of(self, pages: Sequence[int]) -> dict[int, dict[int, float]]:
        """The links of a few pages (one cluster's), for a step that reads them often."""
        return {y: self[y] for y in pages}


@njit(cache=True)
def _rows(n: int, a: np.ndarray, b: np.ndarray, sim: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each page's links from the pairs, both ways, in pair order; a neighbour named twice
    in a row (a pair given twice, or a page paired with itself) keeps its first place and
    takes its last similarity."""
    ptr = np.zeros(n + 1, np.int64)
    for i in range(len(a)):
        ptr[a[i] + 1] += 1
        ptr[b[i] + 1] += 1
    for x in range(n):
        ptr[x + 1] += ptr[x]
    to = np.empty(ptr[n], np.int64)
    val = np.empty(ptr[n], np.float64)
    fill = ptr[:n].copy()
    for i in range(len(a)):
        x, y = a[i], b[i]
        to[fill[x]] = y
        val[fill[x]] = sim[i]
        fill[x] += 1
        to[fill[y]] = x
        val[fill[y]] = sim[i]
        fill[y] += 1
    # Where each neighbour was last written; a place before the row's start is an
    # earlier row's. Rows are compacted in place: the write position never passes the read.
    seen_at = np.full(n, -1, np.int64)
    out = np.zeros(n + 1, np.int64)
    k = 0
    for x in range(n):
        start = k
        for j in range(ptr[x], ptr[x + 1]):
            y = to[j]
            if seen_at[y] >= start:
                val[seen_at[y]] = val[j]
            else:
                seen_at[y] = k
                to[k] = y
                val[k] = val[j]
                k += 1
        out[x + 1] = k
    if k == len(to):
        return out, to, val
    return out, to[:k].copy(), val[:k].copy()


@njit(cache=True)
def _row_sums(ptr: np.ndarray, sim: np.ndarray, compensated: bool) -> np.ndarray:
    """Each row's values summed in order as CPython's ``sum`` does: the first added to
    the int 0 (exactly), then each in turn, with Neumaier's running compensation added
    at the end when ``compensated`` (CPython 3.12 and later)."""
    n = len(ptr) - 1
    out = np.zeros(n, np.float64)
    for x in range(n):
        start, end = ptr[x], ptr[x + 1]
        if start == end:
            continue
        total = sim[start]
        c = 0.0
        for j in range(start + 1, end):
            v = sim[j]
            t = total + v
            if compensated:
                if abs(total) >= abs(v):
                    c += (total - t) + v
                else:
                    c += (v - t) + total
            total = t
        if compensated and c != 0.0 and np.isfinite(c):
            total += c
        out[x] = total
    return out
