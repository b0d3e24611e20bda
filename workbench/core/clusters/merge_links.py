"""Why a re-run would merge clusters: the pairs of pages that link its parts.

A proposed merge (:class:`workbench.core.clusters.andd_preview.ClusterChange`) brings together
pages that are in different clusters now. The new clustering linked them because some
page of one part is at least the threshold similar to a page of another: those pairs,
strongest first, are what a coder needs to judge the merge (two stories joined by one
shared paragraph show as a single weak link).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.core.clusters.andd_preview import ClusterChange, PageRef


@dataclass(frozen=True, slots=True)
class MergeLink:
    """Two pages from different parts of a merge and how similar the re-run found them."""

    first: PageRef
    second: PageRef
    similarity: float


def merge_links(change: ClusterChange, a: np.ndarray, b: np.ndarray, similarity: np.ndarray,
                threshold: float, limit: int = 3) -> tuple[list[MergeLink], int]:
    """The ``limit`` strongest pairs (``a``, ``b``, ``similarity``: page indexes and
    scores of the re-run's pairs) at or above ``threshold`` that join different parts of
    ``change``, and how many such pairs there are in all."""
    part_of = {page.index: k for k, part in enumerate(change.parts) for page in part}
    ref = {page.index: page for part in change.parts for page in part}
    members = np.fromiter(part_of, dtype=np.int64, count=len(part_of))
    a, b, similarity = np.asarray(a), np.asarray(b), np.asarray(similarity)
    inside = np.isin(a, members) & np.isin(b, members) & (similarity >= threshold)
    found = [(float(s), int(i), int(j)) for i, j, s in zip(a[inside].tolist(), b[inside].tolist(),
                                                           similarity[inside].tolist(), strict=True)
             if part_of[int(i)] != part_of[int(j)]]
    found.sort(key=lambda t: (-t[0], t[1], t[2]))
    return [MergeLink(ref[i], ref[j], s) for s, i, j in found[:limit]], len(found)
