"""Whether a weak join is vouched for by text of its own: the check behind weak joins.

A weak join (workbench.core.clustering) adds a page to a cluster, or merges two
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

from collections.abc import Sequence

import numpy as np

from workbench.core.clustering import Vouch
from workbench.detect.matcher import SignatureMatrix


class OwnTextCheck:
    """For a signature matrix: how much of a group's unshared text is its own."""

    def __init__(self, matrix: SignatureMatrix) -> None:
        self._matrix = matrix
        n_ids = int(matrix.sig.max()) + 1 if len(matrix.sig) else 0
        # Pages each indexed signature is on (a page holds an id once: rows are sets).
        self._pages_with = np.bincount(matrix.sig, minlength=n_ids)
        self._unindexed = matrix.unindexed_counts()

    def _ids(self, pages: Sequence[int]) -> np.ndarray:
        m = self._matrix
        rows = [m.sig[m.ptr[p]:m.ptr[p + 1]] for p in pages]
        return np.concatenate(rows) if rows else np.empty(0, m.sig.dtype)

    def own_share(self, side: Sequence[int], other: Sequence[int]) -> float:
        """Of the signatures of ``side``'s pages that ``other``'s pages lack, the share on
        no page outside the two groups. Signatures on one page only (left out of the
        index) are the page's own. 1.0 when ``side`` has nothing the other lacks."""
        side_ids = self._ids(side)
        unshared, on_side = np.unique(side_ids, return_counts=True)
        keep = ~np.isin(unshared, self._ids(other))
        unshared, on_side = unshared[keep], on_side[keep]
        # Pages of the other group hold none of these, so the side's own count is all
        # the two groups hold.
        elsewhere = int((self._pages_with[unshared] > on_side).sum())
        single = int(self._unindexed[np.asarray(side, dtype=np.int64)].sum()) if len(side) else 0
        total = len(unshared) + single
        return 1.0 if total == 0 else (total - elsewhere) / total

    def vouch(self, minimum: float) -> Vouch:
        """The check clustering asks: at least ``minimum`` of the joining side's unshared
        text is its own."""
        return lambda side, other: self.own_share(side, other) >= minimum
