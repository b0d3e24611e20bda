"""How much of what a member shares with its reference is text other pages carry too.

A member that matches its reference mostly through blocks found verbatim on pages
outside the cluster (a gallery of captions, a box of teasers, a signature paragraph no
filter caught) is a doubtful member: the coder should look before tagging it. For each
member, the share of the signatures it shares with the reference (by multiset count)
that stand in such blocks is recorded with the cluster (``Cluster.boilerplate_share``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from workbench.core.records import Cluster
from workbench.detect.matcher import SignatureMatrix


def repeated_block_spots(
    spot_ids: Sequence[np.ndarray], spot_block: Sequence[np.ndarray], block_hashes: Sequence[np.ndarray]
) -> tuple[list[dict[int, frozenset[int]]], Counter[int]]:
    """Per page, its signatures that stand in blocks found on more than one page (signature
    id -> those blocks' ids), and on how many pages each block is found."""
    pages_with: Counter[int] = Counter()
    for hashes in block_hashes:
        pages_with.update(set(np.asarray(hashes).tolist()))
    out: list[dict[int, frozenset[int]]] = []
    for ids, where, hashes in zip(spot_ids, spot_block, block_hashes, strict=True):
        hashes_list = np.asarray(hashes).tolist()
        found: dict[int, set[int]] = {}
        for sig, b in zip(np.asarray(ids).tolist(), np.asarray(where).tolist(), strict=True):
            block = hashes_list[b]
            if pages_with[block] > 1:
                found.setdefault(sig, set()).add(block)
        out.append({sig: frozenset(blocks) for sig, blocks in found.items()})
    return out, pages_with


def boilerplate_shares(
    matrix: SignatureMatrix,
    clusters: list[Cluster],
    spots_in_repeated: Sequence[dict[int, frozenset[int]]],
    page_blocks: Sequence[frozenset[int]],
    pages_with: Counter[int],
) -> None:
    """Fill ``boilerplate_share`` of every cluster (None for the reference itself and for
    members that share nothing counted with it)."""
    if matrix.raw_ids is None:
        return
    for cluster in clusters:
        in_cluster: Counter[int] = Counter()
        for m in cluster.members:
            in_cluster.update(page_blocks[m])
        outside = {b for b, n in in_cluster.items() if pages_with[b] > n}
        ref = cluster.reference
        shares: list[float | None] = []
        for m in cluster.members:
            shares.append(None if m == ref else _share(matrix, ref, m, spots_in_repeated, outside))
        cluster.boilerplate_share = shares


def _share(matrix: SignatureMatrix, a: int, b: int, spots_in_repeated: Sequence[dict[int, frozenset[int]]],
           outside: set[int]) -> float | None:
    sa, ea = matrix.ptr[a], matrix.ptr[a + 1]
    sb, eb = matrix.ptr[b], matrix.ptr[b + 1]
    common, ia, ib = np.intersect1d(matrix.sig[sa:ea], matrix.sig[sb:eb], assume_unique=True,
                                    return_indices=True)
    if not len(common):
        return None
    weight = np.minimum(matrix.cnt[sa:ea][ia], matrix.cnt[sb:eb][ib]).astype(np.float64)
    raw = matrix.raw_ids[common].tolist()
    elsewhere = np.array([bool(spots_in_repeated[a].get(s, frozenset()) & outside
                               or spots_in_repeated[b].get(s, frozenset()) & outside) for s in raw])
    return float(weight[elsewhere].sum() / weight.sum())
