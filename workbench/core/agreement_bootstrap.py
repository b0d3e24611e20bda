"""A bootstrap confidence interval for Krippendorff's alpha (no I/O, no Qt).

Method: the percentile bootstrap over units. Each draw picks as many units as the data
has pairable ones (units two or more coders coded), uniformly with replacement, keeps
each picked unit's values together (its coders' codes stay one observation, as they are
not independent of each other), and computes alpha of that resample with the
``krippendorff`` package at the same level and over the same value domain; the interval
is the 2.5th and 97.5th percentiles of the draws (for 95 %). The random generator is
numpy's default (PCG64) seeded with ``seed``, so the same data and seed give the same
interval. A draw whose units all carry one and the same value has no variation and no
alpha (0/0); such draws are left out and counted (``defined_draws``).

This differs from Hayes & Krippendorff's (2007) bootstrap, which resamples pairs of
values from the coincidence matrix; resampling whole units is the usual cluster
bootstrap and needs no assumption that a unit's pairs are independent.
"""

from __future__ import annotations

from dataclasses import dataclass

import krippendorff
import numpy as np
import numpy.typing as npt

from workbench.core.agreement_matrix import Level, Matrix, pairable_units, value_domain


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap percentile interval for alpha."""

    low: float
    high: float
    level: float  # 0.95
    draws: int  # draws asked for
    defined_draws: int  # draws in which alpha was defined (the interval is over these)
    seed: int


def value_counts(data: Matrix, domain: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """units x values: how many coders gave each unit each value of ``domain``."""
    return np.stack([(data == v).sum(axis=0) for v in domain], axis=1).astype(np.int64)


def alpha_interval(data: Matrix, level: Level, *, draws: int = 1000, seed: int = 1,
                   confidence: float = 0.95) -> ConfidenceInterval | None:
    """The percentile interval of alpha over ``draws`` unit resamplings (module docstring);
    None when no draw had a defined alpha or ``draws`` is 0."""
    if draws < 0 or not 0.0 < confidence < 1.0:
        raise ValueError("draws must be >= 0 and confidence in (0, 1)")
    if draws == 0:
        return None
    domain = value_domain(data)
    counts = value_counts(data[:, pairable_units(data)], domain)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(counts), size=(draws, len(counts)))
    values = np.full(draws, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):  # a draw without variation: 0/0
        for k, pick in enumerate(picks):
            sample = counts[pick]
            if np.count_nonzero(sample.sum(axis=0)) >= 2:  # at least two distinct values
                values[k] = krippendorff.alpha(value_counts=sample, value_domain=domain,
                                               level_of_measurement=level)
    defined = values[np.isfinite(values)]
    if len(defined) == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return ConfidenceInterval(low=float(low), high=float(high), level=confidence, draws=draws,
                              defined_draws=len(defined), seed=seed)
