"""How much of what a member shares with its reference is text unrelated pages carry too.

A member that matches its reference mostly through blocks found verbatim on pages that
are not copies of the reference (a gallery of captions, a box of teasers, a signature
paragraph no filter caught) is a doubtful member: the coder should look before tagging
it. Pages that are themselves near duplicates of the reference (at or above the run's
pair floor, in this cluster or split off into another) carry the same story, so their
blocks do not count against it. For each member, the share of the signatures it shares
with the reference (by multiset count) that stand in such blocks is recorded with the
cluster (``Cluster.boilerplate_share``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.core.records import Cluster
from workbench.detect.matcher import SignatureMatrix


@dataclass(slots=True)
class RepeatedBlocks:
    """Blocks found on more than one page: per page, its signatures that stand in them
    (signature id -> block ids), and per block, the pages that carry it."""

    spots: list[dict[int, frozenset[int]]]
    pages_of: dict[int, list[int]]


def repeated_blocks(
    spot_ids: Sequence[np.ndarray], spot_block: Sequence[np.ndarray], block_hashes: Sequence[np.ndarray]
) -> RepeatedBlocks:
    pages_of: dict[int, list[int]] = {}
    for p, hashes in enumerate(block_hashes):
        for b in set(np.asarray(hashes).tolist()):
            pages_of.setdefault(b, []).append(p)
    pages_of = {b: pages for b, pages in pages_of.items() if len(pages) > 1}
    spots: list[dict[int, frozenset[int]]] = []
    for ids, where, hashes in zip(spot_ids, spot_block, block_hashes, strict=True):
        hashes_list = np.asarray(hashes).tolist()
        found: dict[int, set[int]] = {}
        for sig, b in zip(np.asarray(ids).tolist(), np.asarray(where).tolist(), strict=True):
            if hashes_list[b] in pages_of:
                found.setdefault(sig, set()).add(hashes_list[b])
        spots.append({sig: frozenset(blocks) for sig, blocks in found.items()})
    return RepeatedBlocks(spots, pages_of)


def boilerplate_shares(
    matrix: SignatureMatrix,
    clusters: list[Cluster],
    repeated: RepeatedBlocks,
    pair_a: np.ndarray,
    pair_b: np.ndarray,
) -> None:
    """Fill ``boilerplate_share`` of every cluster (None for the reference itself and for
    members that share nothing counted with it). ``pair_a``/``pair_b``: the run's pairs
    (down to its floor), to tell copies of the reference from unrelated pages."""
    if matrix.raw_ids is None or not clusters:
        return
    copies = _neighbours({c.reference for c in clusters}, pair_a, pair_b)
    for cluster in clusters:
        ref = cluster.reference
        related = copies.get(ref, set()) | set(cluster.members)
        shares: list[float | None] = []
        for m in cluster.members:
            shares.append(None if m == ref else _share(matrix, ref, m, repeated, related))
        cluster.boilerplate_share = shares


def _neighbours(pages: set[int], a: np.ndarray, b: np.ndarray) -> dict[int, set[int]]:
    """For each of ``pages``, the pages paired with it."""
    out: dict[int, set[int]] = {}
    wanted = np.fromiter(pages, dtype=np.int64, count=len(pages))
    for x, y in ((a, b), (b, a)):
        hit = np.isin(x, wanted)
        for p, q in zip(x[hit].tolist(), y[hit].tolist(), strict=True):
            out.setdefault(p, set()).add(q)
    return out


def _share(matrix: SignatureMatrix, a: int, b: int, repeated: RepeatedBlocks,
           related: set[int]) -> float | None:
    sa, ea = matrix.ptr[a], matrix.ptr[a + 1]
    sb, eb = matrix.ptr[b], matrix.ptr[b + 1]
    common, ia, ib = np.intersect1d(matrix.sig[sa:ea], matrix.sig[sb:eb], assume_unique=True,
                                    return_indices=True)
    if not len(common):
        return None
    weight = np.minimum(matrix.cnt[sa:ea][ia], matrix.cnt[sb:eb][ib]).astype(np.float64)
    unrelated: dict[int, bool] = {}

    def elsewhere(block: int) -> bool:
        if block not in unrelated:
            unrelated[block] = any(p not in related for p in repeated.pages_of.get(block, ()))
        return unrelated[block]

    none: frozenset[int] = frozenset()
    flags = [any(elsewhere(blk) for blk in repeated.spots[a].get(s, none) | repeated.spots[b].get(s, none))
             for s in matrix.raw_ids[common].tolist()]
    return float(weight[np.array(flags, dtype=bool)].sum() / weight.sum())
