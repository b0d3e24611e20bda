"""Whether a weak join is vouched for by text of its own: the check behind weak joins.

A weak join (workbench.core.clusters.clustering) adds a page to a cluster, or merges two
clusters, below tau because most of their pairs are weakly similar. Two kinds of page
are that similar to a cluster:

* a rewritten copy of the cluster's story: what it does not share with the cluster is
  its own wording, found on no other page;
* a page that shares one story with the cluster among others (a round-up, or gensmall's
  splices of several stories): what it does not share with the cluster is other stories,
  found on other pages of the crawl.

Joining the second kind merged different stories wholesale (cluster precision .55 on
20,000 gensmall pages). So a join counts only when enough of what the joining side does
not share with the other side is its own: signatures on no page outside the two groups.
Pairs alone cannot say that (a pair-by-pair version let through a tenth of gensmall's
false joins), so the check reads the signature matrix.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from workbench.core.clusters.clustering import PageColumn, Vouch
from workbench.core.mapped_arrays import RowReads, parts


class OwnTextCheck:
    """For a signature matrix (workbench.detect.join.matcher.SignatureMatrix: rows ``ptr``,
    ascending ids ``sig``, ``unindexed`` per page): how much of a group's unshared text is
    its own. The arrays are taken as they are, from a run or from a project that kept them
    (workbench.store.runs.signatures).

    A large crawl asks this tens of thousands of times (25,069 times on 100,000 small
    pages), so one check is a compiled pass over the two groups' rows that marks ids in
    arrays kept between checks (a check's number tells its marks from older ones), not
    numpy set operations that sort (95 µs a check there).
    """

    def __init__(self, ptr: np.ndarray, sig: np.ndarray, unindexed: np.ndarray) -> None:
        self._ptr, self._sig = ptr, sig
        # Read a part at a time: a mapped matrix's pages are let go as the pass goes
        # (workbench.core.mapped_arrays); the checks then read only their groups' rows.
        n_ids = max((int(part.max()) + 1 for part in parts(sig) if len(part)), default=0)
        # Pages each indexed signature is on (a page holds an id once: rows are sets).
        # Counted in a compiled pass: np.bincount copies the int32 ids as int64 first, the
        # client's peak at a million small pages (8 bytes an entry, about 700 MB).
        # Four arrays an id, for the run: 32-bit (a count of pages, a check's number:
        # fewer than 2**31 of either), so 16 bytes an id rather than 32.
        self._pages_with = np.zeros(n_ids, np.int32)
        for part in parts(sig):
            _count_ids(part, self._pages_with)
        self._unindexed = unindexed
        self._in_other = np.zeros(n_ids, np.int32)  # the check that saw the id in the other group
        self._on_side = np.zeros(n_ids, np.int32)  # ... on the joining side
        self._count = np.zeros(n_ids, np.int32)  # how many pages of the side have it
        self._checks = 0
        self._reads = RowReads(sig)  # a mapped matrix's rows let go as the checks read them

    def own_share(self, side: PageColumn, other: PageColumn) -> float:
        """Of the signatures of ``side``'s pages that ``other``'s pages lack, the share on
        no page outside the two groups. Signatures on one page only (left out of the
        index) are the page's own. 1.0 when ``side`` has nothing the other lacks."""
        self._checks += 1
        side_pages = np.asarray(side, dtype=np.int64)
        self._reads.read(2 * len(side_pages) + len(other))  # side's rows twice, other's once
        unshared, elsewhere = _unshared(self._ptr, self._sig, self._pages_with, side_pages,
                                        np.asarray(other, dtype=np.int64), self._in_other,
                                        self._on_side, self._count, self._checks)
        single = int(self._unindexed[side_pages].sum()) if len(side_pages) else 0
        total = unshared + single
        return 1.0 if total == 0 else (total - elsewhere) / total

    def vouch(self, minimum: float) -> Vouch:
        """The check clustering asks: at least ``minimum`` of the joining side's unshared
        text is its own."""
        return lambda side, other: self.own_share(side, other) >= minimum


@njit(cache=True, nogil=True)
def _count_ids(sig: np.ndarray, counts: np.ndarray) -> None:
    """Add to ``counts`` how many entries of ``sig`` hold each id (``np.bincount`` without
    its int64 copy of ``sig``)."""
    for s in sig:
        counts[s] += 1


@njit(cache=True, nogil=True)
def _unshared(ptr: np.ndarray, sig: np.ndarray, pages_with: np.ndarray, side: np.ndarray,
              other: np.ndarray, in_other: np.ndarray, on_side: np.ndarray, count: np.ndarray,
              check: int) -> tuple[int, int]:
    """The distinct ids of ``side``'s rows that no row of ``other`` has, and how many of
    them are on more pages than the side's own (so on a page outside both groups, since
    the other group has none of them). ``check`` numbers this call: an id is marked by
    writing it into ``in_other`` or ``on_side``, so nothing needs clearing."""
    for p in other:
        for k in range(ptr[p], ptr[p + 1]):
            in_other[sig[k]] = check
    unshared = 0
    for p in side:
        for k in range(ptr[p], ptr[p + 1]):
            s = sig[k]
            if in_other[s] == check:
                continue
            if on_side[s] != check:
                on_side[s] = check
                count[s] = 0
                unshared += 1
            count[s] += 1
    elsewhere = 0
    for p in side:
        for k in range(ptr[p], ptr[p + 1]):
            s = sig[k]
            if on_side[s] == check and in_other[s] != check:
                if pages_with[s] > count[s]:
                    elsewhere += 1
                in_other[s] = check  # counted once
    return unshared, elsewhere
