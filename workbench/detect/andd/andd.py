"""ANDD: adaptive near-duplicate detection with learned k-gram weights.

Hajishirzi, Yih and Kolcz, "Adaptive Near-Duplicate Detection via Similarity Learning",
SIGIR 2010. A page is a vector of its k-grams, each weighted by a linear function of its
features (term and document frequency, position, page length, capitals, title; see
:mod:`workbench.detect.andd.features`); the weights of the features are learned from
clusters a person has checked (:mod:`workbench.detect.andd.train`). Two pages are near
duplicates when the cosine of their vectors reaches the threshold. The paper's best
settings for news are ours: unigrams (k = 1) and cosine.

The paper turns the vectors into random-hyperplane (LSH) signatures to compare them
quickly; that approximates the cosine and can miss pairs. Here every pair at or above
the threshold is found with its exact cosine (:mod:`workbench.detect.andd.join`), which
at the workbench's sizes costs well under a second per thousand pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.andd.features import GramMatrix, PageGrams, gram_matrix, page_grams
from workbench.detect.andd.join import cosine_pairs
from workbench.detect.andd.model import AnddWeights, unit_vectors
from workbench.detect.detector import Detector, PageText
from workbench.detect.join.matcher import PairResult


def weighted_rows(matrix: GramMatrix, weights: AnddWeights) -> tuple[np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """(ptr, col, value) of the unit-length vectors, k-grams weighted zero left out."""
    values = unit_vectors(matrix, weights.vector)
    keep = values > 0
    rows = matrix.rows()[keep]
    ptr = np.zeros(matrix.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=matrix.n), out=ptr[1:])
    return ptr, matrix.col[keep], values[keep]


# The unit weights' best threshold on the dev Gold Set.
UNIT_THRESHOLD = 0.4


def grid() -> list[float]:
    """The thresholds a comparison sweeps, and training chooses from (ascending): near
    duplicates sit high on the cosine scale, so the grid is finer there."""
    coarse = [round(0.05 * k, 2) for k in range(2, 16)]
    return coarse + [round(0.8 + 0.025 * k, 3) for k in range(8)] + [1.0]


class AnddDetector(Detector):
    """ANDD with given (learned) weights, or the unit weights when untrained."""

    name: ClassVar[str] = "andd"
    label: ClassVar[str] = "ANDD (Hajishirzi, Yih and Kolcz, SIGIR 2010)"
    similarity: ClassVar[str] = (
        "cosine of k-gram vectors weighted by a linear function of each k-gram's features "
        "(tf, df, position, page length, capitals, in title), weights learned from coded "
        "clusters; all pairs exact (no LSH)")
    exact: ClassVar[bool] = True

    def __init__(self, weights: AnddWeights | Mapping[str, Any] | None = None, k: int | None = None) -> None:
        """``k``: words per k-gram; by default the weights' (unit weights: 1). ``weights``
        may be as a run recorded them (``AnddWeights.to_dict()``), so a run with learned
        weights can be run again from its parameters."""
        if isinstance(weights, Mapping):
            weights = AnddWeights.from_dict(weights)
        if weights is None:
            weights = AnddWeights.unit(1 if k is None else k)
        if k is not None and k != weights.k:
            raise ValueError(f"These ANDD weights were learned for k={weights.k}, not k={k}.")
        self.weights = weights
        self.k = weights.k

    def parameters(self) -> dict[str, Any]:
        return {"k": self.k, "similarity": "cosine", "trained": self.weights.trained,
                "weights": self.weights.to_dict()}

    def default_threshold(self) -> float:
        """The threshold learned with the weights; for the unit weights 0.4, their best
        on the dev Gold Set (pair F1 0.952 there; 0.35 to 0.4 on either half)."""
        return self.weights.threshold if self.weights.threshold is not None else UNIT_THRESHOLD

    def thresholds(self) -> Sequence[float]:
        return grid()

    def featurize(self, page: PageText) -> PageGrams:
        return page_grams(page, self.k)

    def find_pairs(self, features: Sequence[Any], threshold: float,
                   progress: ProgressFn = no_progress) -> PairResult:
        ptr, col, val = weighted_rows(gram_matrix(features, self.k), self.weights)
        return cosine_pairs(ptr, col, val, threshold, progress)
