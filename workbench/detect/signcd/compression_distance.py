"""Normalized compression distance with LZ4, and every pair within a threshold (P1).

NCD(x, y) = (C(xy) - min(C(x), C(y))) / max(C(x), C(y)) (Cilibrasi and Vitányi 2005),
with C the compressed size. Similarity is 1 - NCD, clipped to [0, 1].

The compressor is LZ4's raw block format (``lz4.block`` with ``store_size=False``): the
LZ4 sequences alone. The frame format (``lz4.frame``) wraps them in a magic number, a
descriptor, block sizes and an end mark, 22 bytes whatever the input as python-lz4 writes
it (14 without the content size): on signatures of about 200 bytes (the dev Gold Set's
mean) that constant would be a tenth of every C() and would bend every NCD; the block's
stored size is 4 such bytes too. Snappy, the paper's compressor, is a raw format as well.

Pruning P1 (Zhang et al. 2016, Lemma 3 and Remark 4): for C(x) <= C(y),
NCD >= 1 - C(x)/C(y) because a *normal* compressor has C(xy) >= C(y); so with pages
sorted by C, page x need only meet the following pages while C(x)/C(y) >= 1 - tau.
LZ4 is not normal. It starts no match in a block's last 12 bytes, so y = "iris olive
sage sage sage" is stored as literals, while in y + x the repeated "sage" is matched and
C(yx) < C(y); and its one-pass search, which skips ahead after misses and finds a match
by hashing, can recover a long stretch of y once x follows it. Taken on trust, the bound
loses x = "amber", y = "president president" at the paper's best threshold (similarity
0.3): C(x)/C(y) = 6/21 < 0.3, yet C(yx) = 19 gives a similarity of 8/21 = 0.38. No
constant bounds the shortfall (random texts gave up to 58 bytes), so no margin on the
bound can be proved.
What is guaranteed is what we compute: C(xy) is taken as max(C(xy), C(y)), monotonicity
(the axiom Lemma 3 uses) holding by construction, and then similarity <= C(x)/C(y) for
every pair, so P1 drops no pair at or above the threshold. The property test compares P1
with all pairs.

The floor changes a pair's similarity only where LZ4 compresses y better after x than
alone. To make that rare, the larger signature goes first (C(yx), not C(xy)): LZ4 makes
the same decisions on y in yx as on y alone until it nears y's end (the last 12 bytes,
where y alone must stop matching; when both are under 64 KB or both over, as LZ4 hashes
differently past it), so only the literals still pending there can come out differently.
On the dev Gold Set's 550,725 pairs the floor changed none this way; with the smaller
first it would have changed 30 (C(xy) up to 21 bytes below C(y)).

Two identical signatures have similarity 1 (idempotency, NCD(x, x) = 0, the first axiom
of a normal compressor; LZ4 gives C(xx) a few bytes above C(x)), and an empty signature
is never paired: there is nothing to compare.
"""

from __future__ import annotations

from collections.abc import Sequence

import lz4
import lz4.block
import numpy as np

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join.matcher import PairResult

# LZ4 HC's compression levels; 0 is LZ4's default (fast) mode.
MAX_LEVEL = 12
# P1 keeps a page's partition as long as C(x) >= (1 - tau) C(y); its end is found with
# floats, so it reaches this much (relative) further, far above any rounding error, and
# no pair at the threshold can be lost to rounding. Pairs it adds are compared as usual.
_BOUND_SLACK = 1e-9
# Rows of the sorted order between progress reports.
_PROGRESS_ROWS = 64


class LZ4Size:
    """C(x): the size of ``data`` compressed to an LZ4 block without a size header.

    ``level`` 0 is LZ4's default mode (acceleration 1); 1 to 12 are LZ4 HC's levels.
    """

    def __init__(self, level: int = 0) -> None:
        if not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"LZ4 level {level} does not exist: use 0 (the fast default "
                             f"mode) or 1 to {MAX_LEVEL} (high compression).")
        self.level = level
        self._compress = lz4.block.compress

    def __call__(self, data: bytes) -> int:
        if self.level == 0:
            return len(self._compress(data, store_size=False))
        return len(self._compress(data, mode="high_compression", compression=self.level,
                                  store_size=False))

    def after(self, ys: Sequence[bytes], x: bytes) -> np.ndarray:
        """C(y + x) for every y of ``ys``: the inner loop of matching, kept tight (a list
        comprehension over the bound function is a quarter faster than calling self)."""
        compress = self._compress
        if self.level == 0:
            sizes = [len(compress(y + x, store_size=False)) for y in ys]
        else:
            level = self.level
            sizes = [len(compress(y + x, mode="high_compression", compression=level, store_size=False))
                     for y in ys]
        return np.array(sizes, dtype=np.int64)

    @staticmethod
    def library_version() -> str:
        """The LZ4 library's version: sizes, and so similarities, may differ across versions."""
        return str(lz4.library_version_string())


def pair_similarity(x: bytes, cx: int, y: bytes, cy: int, size: LZ4Size) -> float:
    """1 - NCD of two non-empty signatures with compressed sizes ``cx`` and ``cy``.

    The arguments may come in either order: the larger is put first (by size, then
    bytes), so the result is the same.
    """
    if (cx, x) > (cy, y):
        x, cx, y, cy = y, cy, x, cx
    if x == y:
        return 1.0
    return max(0.0, (cx + cy - max(size(y + x), cy)) / cy)


def ncd_pairs(signatures: Sequence[bytes], sizes: np.ndarray, threshold: float, size: LZ4Size,
              prune: bool = True, progress: ProgressFn = no_progress) -> PairResult:
    """Every pair of non-empty signatures with :func:`pair_similarity` >= ``threshold``.

    ``sizes[i]`` is ``size(signatures[i])``. With ``prune`` (P1), pages are compared in
    order of compressed size and each only with the next ones while the size ratio allows
    the threshold; without it every pair is compressed (for measuring what P1 saves).
    ``candidates`` of the result counts the pairs compared.
    """
    keep = [k for k, s in enumerate(signatures) if s]
    order = sorted(keep, key=lambda k: (int(sizes[k]), signatures[k]))
    sigs = [signatures[k] for k in order]
    c = np.asarray(sizes, dtype=np.int64)[order]
    index = np.asarray(order, dtype=np.int64)
    n = len(order)
    ends = _partition_ends(c, threshold) if prune else np.full(n, n, dtype=np.int64)
    # Pages of one size form a run in the order; only inside it can two be identical.
    same_size_ends = np.searchsorted(c, c, side="right")

    found_a: list[np.ndarray] = []
    found_b: list[np.ndarray] = []
    found_s: list[np.ndarray] = []
    compared = 0
    for i in range(n):
        if i % _PROGRESS_ROWS == 0:
            progress("match", i, n)
        end = int(ends[i])
        if end <= i + 1:
            continue
        x = sigs[i]
        # Larger first: the later page in the order is y, and y + x is compressed.
        cyx = size.after(sigs[i + 1:end], x)
        compared += end - i - 1
        cy = c[i + 1:end]
        similarity = np.maximum(0.0, (c[i] + cy - np.maximum(cyx, cy)) / cy)
        for j in range(i + 1, min(end, int(same_size_ends[i]))):
            if sigs[j] == x:
                similarity[j - i - 1] = 1.0
        hits = np.flatnonzero(similarity >= threshold)
        if len(hits):
            a, b = index[i], index[i + 1 + hits]
            found_a.append(np.minimum(a, b))
            found_b.append(np.maximum(a, b))
            found_s.append(similarity[hits])
    progress("match", n, n)
    return _result(found_a, found_b, found_s, compared)


def _partition_ends(c: np.ndarray, threshold: float) -> np.ndarray:
    """For each position i of the size-sorted order, the end of its P1 partition: the
    first position whose size exceeds c[i] / threshold (beyond it C(x)/C(y) < threshold,
    so similarity < threshold)."""
    n = len(c)
    if threshold <= 0.0:
        return np.full(n, n, dtype=np.int64)
    limit = c / threshold * (1.0 + _BOUND_SLACK)
    return np.searchsorted(c, limit, side="right").astype(np.int64)


def _result(a: list[np.ndarray], b: list[np.ndarray], s: list[np.ndarray], compared: int) -> PairResult:
    if not a:
        empty = np.empty(0, dtype=np.int64)
        return PairResult(empty, empty.copy(), np.empty(0, dtype=np.float64), compared)
    pa, pb, ps = np.concatenate(a), np.concatenate(b), np.concatenate(s)
    order = np.lexsort((pb, pa))
    return PairResult(pa[order], pb[order], ps[order].astype(np.float64), compared)
