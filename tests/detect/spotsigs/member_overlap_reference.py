"""Doubtful members' boilerplate shares written page by page and member by member, as
first built: the definition the array version (workbench/detect/spotsigs/member_overlap.py) is
tested against. ``reference_repeated_blocks`` and ``reference_boilerplate_shares`` are
that module's ``repeated_blocks`` and ``boilerplate_shares`` before the rewrite, unchanged
but for their names (and ``RepeatedBlocks`` here is ``ReferenceRepeatedBlocks``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.core.records import Cluster
from workbench.detect.join.matcher import SignatureMatrix
from workbench.detect.spotsigs.member_overlap import RepeatedBlocks


@dataclass(slots=True)
class ReferenceRepeatedBlocks:
    """Compared blocks found on more than one page: per page, the signatures standing in
    them with their block (parallel arrays), and per block, the pages that carry it."""

    signatures: list[tuple[np.ndarray, np.ndarray]]
    pages_of: dict[int, np.ndarray]


def reference_repeated_blocks(
    spot_ids: Sequence[np.ndarray],
    spot_block: Sequence[np.ndarray],
    block_hashes: Sequence[np.ndarray],
    left_out: Sequence[np.ndarray | None],
) -> ReferenceRepeatedBlocks:
    """``left_out[p]``: a mask over page p's blocks that the run does not compare
    (boilerplate), or None. Only numpy arrays are kept: this lives as long as the run."""
    compared = [np.unique(h if mask is None else h[~mask])
                for h, mask in zip(block_hashes, left_out, strict=True)]
    flat = np.concatenate(compared) if compared else np.empty(0, np.int64)
    page = np.repeat(np.arange(len(compared)), [len(h) for h in compared])
    blocks, counts = np.unique(flat, return_counts=True)
    repeated = blocks[counts > 1]  # sorted
    keep = _member(flat, repeated)
    order = np.argsort(flat[keep], kind="stable")
    sorted_blocks, sorted_pages = flat[keep][order], page[keep][order]
    cuts = np.flatnonzero(np.diff(sorted_blocks)) + 1
    pages_of = {int(b[0]): p for b, p in zip(np.split(sorted_blocks, cuts), np.split(sorted_pages, cuts),
                                            strict=True) if len(b)}
    signatures = []
    for ids, where, hashes, mask in zip(spot_ids, spot_block, block_hashes, left_out, strict=True):
        ids, where = np.asarray(ids, np.int64), np.asarray(where, np.int64)
        in_block = np.asarray(hashes, np.int64)[where] if len(ids) else np.empty(0, np.int64)
        wanted = _member(in_block, repeated)
        if mask is not None and len(ids):
            wanted &= ~mask[where]
        signatures.append((ids[wanted], in_block[wanted]))
    return ReferenceRepeatedBlocks(signatures, pages_of)


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """``np.isin`` against a sorted array, without sorting it again for every page."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[pos] == values


def reference_boilerplate_shares(
    matrix: SignatureMatrix,
    clusters: list[Cluster],
    repeated: ReferenceRepeatedBlocks,
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
        related = np.fromiter(copies.get(ref, set()) | set(cluster.members), dtype=np.int64)
        outside = _Outside(repeated.pages_of, related)
        cluster.boilerplate_share = [None if m == ref else _share(matrix, ref, m, repeated, outside)
                                     for m in cluster.members]


class _Outside:
    """Whether a block is carried by a page that is no copy of the cluster's reference
    (answered once per block and cluster)."""

    def __init__(self, pages_of: dict[int, np.ndarray], related: np.ndarray) -> None:
        self._pages_of = pages_of
        self._related = related
        self._known: dict[int, bool] = {}

    def __call__(self, block: int) -> bool:
        if block not in self._known:
            self._known[block] = not np.isin(self._pages_of[block], self._related).all()
        return self._known[block]


def _neighbours(pages: set[int], a: np.ndarray, b: np.ndarray) -> dict[int, set[int]]:
    """For each of ``pages``, the pages paired with it."""
    out: dict[int, set[int]] = {}
    wanted = np.fromiter(pages, dtype=np.int64, count=len(pages))
    for x, y in ((a, b), (b, a)):
        hit = np.isin(x, wanted)
        for p, q in zip(x[hit].tolist(), y[hit].tolist(), strict=True):
            out.setdefault(p, set()).add(q)
    return out


def _share(matrix: SignatureMatrix, a: int, b: int, repeated: ReferenceRepeatedBlocks,
           outside: _Outside) -> float | None:
    sa, ea = matrix.ptr[a], matrix.ptr[a + 1]
    sb, eb = matrix.ptr[b], matrix.ptr[b + 1]
    common, ia, ib = np.intersect1d(matrix.sig[sa:ea], matrix.sig[sb:eb], assume_unique=True,
                                    return_indices=True)
    if not len(common):
        return None
    weight = np.minimum(matrix.cnt[sa:ea][ia], matrix.cnt[sb:eb][ib]).astype(np.float64)
    raw = matrix.raw_ids[common]
    flagged = np.zeros(len(raw), dtype=bool)
    for page in (a, b):
        sigs, blocks = repeated.signatures[page]
        here = np.isin(sigs, raw)
        unrelated = [blk for blk in np.unique(blocks[here]).tolist() if outside(blk)]
        flagged |= np.isin(raw, sigs[here & np.isin(blocks, unrelated)])
    return float(weight[flagged].sum() / weight.sum())


def only_rows_asked(t: RepeatedBlocks, spots: np.ndarray, blocks: np.ndarray) -> RepeatedBlocks:
    """What ``RepeatedSource.for_pages(spots, blocks)`` gives of the table ``t``, page by
    page: the spot rows of the pages where ``spots`` is true, the block rows of those where
    ``blocks`` is true, every other row empty."""
    sig_rows = [(t.sig_id[t.sig_ptr[p]:t.sig_ptr[p + 1]], t.sig_block[t.sig_ptr[p]:t.sig_ptr[p + 1]])
                if spots[p] else (t.sig_id[:0], t.sig_block[:0]) for p in range(t.n_pages)]
    block_rows = [t.page_block[t.page_block_ptr[p]:t.page_block_ptr[p + 1]] if blocks[p]
                  else t.page_block[:0] for p in range(t.n_pages)]
    sig_ptr = np.cumsum([0, *(len(ids) for ids, _ in sig_rows)]).astype(np.int64)
    block_ptr = np.cumsum([0, *map(len, block_rows)]).astype(np.int64)
    return RepeatedBlocks(t.block_ids, t.block_pages, block_ptr,
                          np.concatenate([t.page_block[:0], *block_rows]), sig_ptr,
                          np.concatenate([t.sig_id[:0], *(ids for ids, _ in sig_rows)]),
                          np.concatenate([t.sig_block[:0], *(b for _, b in sig_rows)]),
                          matrix_ids=t.matrix_ids)
