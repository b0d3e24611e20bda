"""ANDD's k-gram weighting model: a weight per feature, nothing else.

The paper's Eq. 1: a k-gram's weight in a page is sum_j lambda_j * phi_j(k-gram, page),
a linear function of the features of :mod:`workbench.detect.andd.features`. A weight
below zero is taken as zero (the k-gram leaves the vector): a negative entry would let
cosine go below zero and say nothing a smaller weight cannot. Cosine only depends on the
direction of the weights, so learned weights are stored scaled to a largest |lambda| of 1.

Untrained, every lambda is 1 (the "unit weights"): bias plus each feature, a smoothed
tf-idf that also favours early, capitalised and title words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.detect.andd.features import GramMatrix, feature_names

# What a k-gram with much of each feature is, for a coder reading the learned weights
# (workbench.detect.andd.features has the exact definitions). A positive weight makes
# such k-grams count more in the cosine between two pages, a negative one less.
FEATURE_MEANINGS: dict[str, str] = {
    "bias": "every k-gram alike",
    "tf": "k-grams repeated in the page",
    "df": "k-grams many pages of the crawl have",
    "idf": "rare k-grams, on few pages of the crawl",
    "loc": "k-grams first found late in the page",
    "len": "k-grams of long pages",
    "cap": "capitalised k-grams (names)",
    "in_title": "k-grams in the page's title",
    "df_avg": "k-grams of common words (average)",
    "df_med": "k-grams of common words (median)",
}


@dataclass(frozen=True, slots=True)
class AnddWeights:
    """The model: k (words per k-gram) and one weight per feature, by name.

    ``trained_on`` says what the weights were learned from (empty: the unit weights),
    e.g. {"pages": 520, "positive_pairs": 4000, "negative_pairs": 4000}: a methods
    section can cite it. ``threshold`` is the cosine that best separated the groups
    learned from (highest pair F1 there), the threshold a run uses unless told otherwise.
    """

    k: int
    weights: tuple[tuple[str, float], ...]
    trained_on: tuple[tuple[str, int], ...] = field(default=())
    threshold: float | None = None

    def __post_init__(self) -> None:
        names = tuple(name for name, _ in self.weights)
        expected = feature_names(self.k)
        if names != expected:
            raise ValueError(
                f"ANDD weights for k={self.k} need the features {', '.join(expected)} in "
                f"that order, not {', '.join(names) or 'none'}; train the weights again.")
        for name, value in self.weights:
            if not math.isfinite(value):
                raise ValueError(f"ANDD weight {name} is {value}: train the weights again.")
        if self.threshold is not None and not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"An ANDD threshold is a cosine in (0, 1], not {self.threshold}.")

    @classmethod
    def unit(cls, k: int = 1) -> AnddWeights:
        """Every feature weighted 1: the model before any training."""
        return cls(k, tuple((name, 1.0) for name in feature_names(k)))

    @classmethod
    def of(cls, k: int, values: np.ndarray, trained_on: Mapping[str, int] | None = None,
           threshold: float | None = None) -> AnddWeights:
        """From a vector of weights in :func:`feature_names` order."""
        return cls(k, tuple(zip(feature_names(k), (float(v) for v in values), strict=True)),
                   tuple((key, int(v)) for key, v in (trained_on or {}).items()), threshold)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.weights)

    @property
    def vector(self) -> np.ndarray:
        return np.array([value for _, value in self.weights], dtype=np.float64)

    @property
    def trained(self) -> bool:
        return bool(self.trained_on)

    def explained(self) -> list[tuple[str, float, str]]:
        """(feature, weight, what such k-grams are) for each feature, the weightiest first:
        the whole model, as a coder can read it."""
        rows = [(name, value, FEATURE_MEANINGS.get(name, name)) for name, value in self.weights]
        return sorted(rows, key=lambda row: -abs(row[1]))

    def to_dict(self) -> dict[str, Any]:
        """A small JSON-able dict (kept in a run's params); :meth:`from_dict` reads it."""
        out: dict[str, Any] = {"k": self.k, "weights": dict(self.weights),
                               "trained_on": dict(self.trained_on)}
        if self.threshold is not None:
            out["threshold"] = self.threshold
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnddWeights:
        try:
            k = int(data["k"])
            given = dict(data["weights"])
            trained_on = {str(key): int(v) for key, v in dict(data.get("trained_on", {})).items()}
            threshold = None if data.get("threshold") is None else float(data["threshold"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"Not ANDD weights (need k and weights by feature): {exc}") from exc
        expected = feature_names(k)
        unknown = sorted(set(given) - set(expected))
        missing = [name for name in expected if name not in given]
        if unknown or missing:
            raise ValueError(
                "These ANDD weights do not fit this version's features "
                f"(missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}); "
                "train the weights again.")
        return cls.of(k, np.array([float(given[name]) for name in expected]), trained_on,
                      threshold)


def entry_weights(matrix: GramMatrix, weights: np.ndarray) -> np.ndarray:
    """Eq. 1 for every entry, negatives cut to zero."""
    if matrix.values.shape[1] != len(weights):
        raise ValueError(f"{len(weights)} weights for {matrix.values.shape[1]} features")
    weighted: npt.NDArray[np.float64] = np.maximum(matrix.values @ weights, 0.0)
    return weighted


def row_norms(matrix: GramMatrix, values: np.ndarray) -> np.ndarray:
    """The Euclidean length of every page's vector."""
    return np.sqrt(np.bincount(matrix.rows(), weights=values * values, minlength=matrix.n))


def unit_vectors(matrix: GramMatrix, weights: np.ndarray) -> np.ndarray:
    """Every page's weighted vector scaled to length 1 (all zero where nothing is left)."""
    values = entry_weights(matrix, weights)
    norms = row_norms(matrix, values)
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    units: npt.NDArray[np.float64] = values * np.repeat(scale, np.diff(matrix.ptr))
    return units
