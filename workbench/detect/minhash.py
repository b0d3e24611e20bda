"""Shingling with MinHash LSH (Broder et al. 1997), the baseline both papers compare with.

A page is the set of its word 5-grams ("shingles", lower-cased ``\\w+`` words of its kept
text), each a 64-bit id. datasketch's MinHash sketches every set with 128 permutations
(fixed seed) and its MinHashLSH index, banded for the threshold by datasketch's own
optimiser, proposes candidate pairs; each candidate is verified by the exact Jaccard of
the two shingle sets, which is also the pair's similarity. So every pair reported is
right, but pairs at or above the threshold that share no band are missed (``exact`` is
False); :func:`banding_recall` counts how many.

A page with fewer words than a shingle is one shingle of all its words (so two short
pages with the same words match); a page without words has no shingle and no pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version
from typing import Any, ClassVar, NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from workbench.core.distinct import distinct
from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.detector import Detector, PageText
from workbench.detect.join import matcher
from workbench.detect.join.matcher import PairResult, SignatureMatrix
from workbench.detect.spotsigs.hashing import chain_ids, signature_id
from workbench.text.tokenize import words_of

# datasketch is imported where it is used, not here: it loads scipy (about a second),
# which listing the detectors (the GUI's start, the command line's help) need not wait for.

# datasketch's 64-bit permutation scheme: the shingle ids are 64-bit, and its 32-bit
# schemes would first fold them to 32 bits (more collisions on large pages).
_SCHEME = "affine64"
_PROGRESS_STEP = 256  # pages between progress calls (each may cancel)


@dataclass(frozen=True, slots=True)
class MinHashFeatures:
    """A page's shingle ids (int64, sorted, unique) and its MinHash values (uint64)."""

    shingles: np.ndarray
    minhashes: np.ndarray


class BandingRecall(NamedTuple):
    """How many of the pairs at or above a threshold (``exact``) the index ``found``."""

    found: int
    exact: int

    @property
    def recall(self) -> float:
        return self.found / self.exact if self.exact else 1.0


def shingle_hashes(words: Sequence[str], size: int) -> np.ndarray:
    """The ids of the word ``size``-grams of ``words`` (int64, sorted, unique).

    Each distinct word is hashed once; the n-gram ids are then chained from the word
    ids with numpy (:func:`workbench.detect.spotsigs.hashing.chain_ids`), so ids are the same in
    every process. Fewer words than ``size`` make one shingle of all of them.
    """
    if not words:
        return np.empty(0, dtype=np.int64)
    code_of: dict[str, int] = {}
    codes = np.fromiter((code_of.setdefault(w, len(code_of)) for w in words), np.int64, count=len(words))
    word_ids = np.fromiter((signature_id(w) for w in code_of), dtype=np.int64, count=len(code_of))
    rows = codes[None, :] if len(codes) < size else sliding_window_view(codes, size)
    return distinct(chain_ids(f"word-shingle-{size}", word_ids.view(np.uint64), rows))


def _same_value(value: np.uint64) -> np.uint64:
    """datasketch's hash function for ids that are hashes already."""
    return value


@lru_cache(maxsize=32)
def lsh_layout(threshold: float, permutations: int) -> tuple[int, int]:
    """The (bands, rows per band) datasketch's MinHashLSH chooses for ``threshold``.

    Its optimiser weighs false positives and false negatives equally. Near 1.0 it wants
    a single band, which its index refuses; then two bands of half the permutations
    are used, the layout it chooses itself just below (0.97-0.98 for 128 permutations).
    """
    from datasketch import MinHashLSH

    try:
        index = MinHashLSH(threshold=threshold, num_perm=permutations)
    except ValueError:
        return 2, permutations // 2
    return index.b, index.r


def lsh_candidates(features: Sequence[MinHashFeatures], threshold: float,
                   progress: ProgressFn = no_progress) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (a < b) that share at least one LSH band, before verification.

    Each page is queried before it is inserted, which yields every colliding pair
    exactly once without a second pass.
    """
    from datasketch import MinHash, MinHashLSH

    pages = [i for i, f in enumerate(features) if len(f.shingles)]
    found_a: list[int] = []
    found_b: list[int] = []
    if len(pages) < 2:
        progress("match", len(features), len(features))
        return np.empty(0, np.int64), np.empty(0, np.int64)
    permutations = len(features[pages[0]].minhashes)
    index = MinHashLSH(num_perm=permutations, params=lsh_layout(threshold, permutations))
    # The index reads only the hash values; the permutations are shared, not re-drawn.
    template = MinHash(num_perm=permutations, scheme=_SCHEME)
    for done, i in enumerate(pages):
        if done % _PROGRESS_STEP == 0:
            progress("match", done, len(features))
        sketch = MinHash(hashvalues=features[i].minhashes, permutations=template.permutations, scheme=_SCHEME)
        for j in index.query(sketch):
            found_a.append(j)
            found_b.append(i)
        index.insert(i, sketch, check_duplication=False)
    progress("match", len(features), len(features))
    return np.asarray(found_a, dtype=np.int64), np.asarray(found_b, dtype=np.int64)


def shingle_matrix(features: Sequence[MinHashFeatures]) -> SignatureMatrix:
    """The pages' shingle sets as the matcher's matrix (sets: every count 1)."""
    return SignatureMatrix.from_vectors([(f.shingles, np.ones(len(f.shingles), np.int64)) for f in features])


def exact_jaccard(features: Sequence[MinHashFeatures], a: np.ndarray, b: np.ndarray,
                  matrix: SignatureMatrix | None = None) -> np.ndarray:
    """|A n B| / |A u B| of the shingle sets of pages a[k] and b[k], for every k."""
    m = shingle_matrix(features) if matrix is None else matrix
    common = matcher.intersections(m, a, b).astype(np.float64)
    lengths = m.lengths().astype(np.float64)
    union = lengths[a] + lengths[b] - common
    jaccard: npt.NDArray[np.float64] = np.divide(common, union, out=np.zeros_like(common), where=union > 0)
    return jaccard


def banding_recall(features: Sequence[MinHashFeatures], threshold: float) -> BandingRecall:
    """How many of the pairs with exact shingle Jaccard >= ``threshold`` the LSH index
    proposes (and verification then keeps), out of all of them (found by the exact join)."""
    _check_threshold(threshold)
    matrix = shingle_matrix(features)
    exact = matcher.find_pairs(matrix, threshold)
    a, b = lsh_candidates(features, threshold)
    n = np.int64(max(len(features), 1))
    found = np.intersect1d(distinct(exact.a * n + exact.b), distinct(a * n + b), assume_unique=True)
    return BandingRecall(len(found), len(exact))


def _check_threshold(threshold: float) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"the similarity threshold must be in (0, 1], not {threshold}")


class MinHashDetector(Detector):
    """Word-shingle sets, MinHash LSH candidates, exact Jaccard."""

    name: ClassVar[str] = "minhash"
    label: ClassVar[str] = "shingling with MinHash LSH (Broder et al. 1997; datasketch)"
    similarity: ClassVar[str] = (
        "exact Jaccard of the pages' sets of word 5-gram shingles, for the pairs MinHash LSH proposes"
    )
    exact: ClassVar[bool] = False

    def __init__(self, shingle: int = 5, permutations: int = 128, seed: int = 1) -> None:
        if shingle < 1:
            raise ValueError(f"a shingle needs at least one word, not {shingle}")
        if permutations < 2:
            raise ValueError(f"MinHash LSH needs at least 2 permutations, not {permutations}")
        self.shingle = shingle
        self.permutations = permutations
        self.seed = seed

    def parameters(self) -> dict[str, Any]:
        return {
            "shingle": self.shingle,
            "permutations": self.permutations,
            "seed": self.seed,
            "words": "lower-cased \\w+ tokens of the kept text",
            "minhash": f"datasketch {version('datasketch')} MinHash, scheme {_SCHEME}",
            "lsh": "datasketch MinHashLSH, bands and rows chosen for the threshold (weights 0.5/0.5)",
            "verification": "exact Jaccard of the shingle sets",
        }

    def default_threshold(self) -> float:
        # On the dev Gold Set pair F1 falls as the threshold rises (0.94 at 0.1, 0.92 at
        # 0.2, 0.71 at 0.5, precision >= 0.99 throughout): near copies of a news story on
        # other sites share few 5-word runs. 0.2 keeps nearly all of 0.1's recall with a
        # third fewer LSH bands (28 of 2 rows instead of 64) to hash and probe.
        return 0.2

    def featurize(self, page: PageText) -> MinHashFeatures:
        return self.features_of(shingle_hashes(words_of(page.text), self.shingle))

    def features_of(self, shingles: np.ndarray) -> MinHashFeatures:
        """The features of a page whose shingle ids (int64, sorted, unique) are known."""
        from datasketch import MinHash

        sketch = MinHash(num_perm=self.permutations, seed=self.seed, hashfunc=_same_value, scheme=_SCHEME)
        sketch.update_batch(shingles.view(np.uint64))
        return MinHashFeatures(shingles, np.asarray(sketch.hashvalues, dtype=np.uint64))

    def find_pairs(self, features: Sequence[Any], threshold: float,
                   progress: ProgressFn = no_progress) -> PairResult:
        _check_threshold(threshold)
        a, b = lsh_candidates(features, threshold, progress)
        similarity = exact_jaccard(features, a, b)
        keep = similarity >= threshold
        order = np.lexsort((b[keep], a[keep]))
        return PairResult(a[keep][order], b[keep][order], similarity[keep][order], candidates=len(a))
