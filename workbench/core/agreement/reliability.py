"""Inter-coder agreement on one variable: Krippendorff's alpha, Cohen's kappa, percent
agreement (no I/O, no Qt).

The input is a reliability matrix, as in Krippendorff's "Computing Krippendorff's
Alpha-Reliability" (2011): one row per coder, one column per unit (a cluster, a
page), the value a coder gave a unit in the cell and NaN where the coder did not code
the unit. Alpha comes from the maintained ``krippendorff`` package at any level of
measurement; only the units two or more coders coded (the "pairable" units) enter it.
A bootstrap confidence interval comes from :mod:`workbench.core.agreement.bootstrap`.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import krippendorff
import numpy as np

from workbench.core.agreement.bootstrap import (
    ConfidenceInterval,
    alpha_interval,
    nominal_alphas,
    value_counts,
)
from workbench.core.agreement.matrix import (
    LEVELS,
    AgreementError,
    Level,
    Matrix,
    check_matrix,
    pairable_units,
    value_domain,
)

# The largest units x values x values array alpha is left to the package for (32 MB).
PACKAGE_CELLS = 4_000_000

# What callers (the per-tag table, the command line, the report) take from here.
__all__ = ["LEVELS", "AgreementError", "ConfidenceInterval", "Level", "Reliability", "alpha",
           "cohen_kappa", "percent_agreement", "reliability"]


@dataclass(frozen=True)
class Reliability:
    """Agreement on one variable.

    ``alpha`` is None when it is undefined: every pairable value is the same, so there is
    no variation to agree on (``undefined_reason`` says so); ``kappa`` is None unless there
    are exactly two coders (or, with two, when chance agreement is already perfect);
    ``percent_agreement`` is a share in [0, 1]."""

    level: Level
    alpha: float | None
    interval: ConfidenceInterval | None
    kappa: float | None
    percent_agreement: float
    n_units: int  # columns of the matrix
    n_pairable_units: int  # units at least two coders coded: those alpha is computed on
    n_coders: int  # rows of the matrix
    n_values: int  # pairable values (coder-unit cells in pairable units)
    undefined_reason: str | None = None


def alpha(data: Matrix, level: Level = "nominal") -> float | None:
    """Krippendorff's alpha of a checked matrix, or None when it is undefined (every
    pairable value the same: no variation, 0/0)."""
    domain = value_domain(data)
    if len(domain) < 2:
        return None
    pairable = data[:, pairable_units(data)]
    if level == "nominal" and pairable.shape[1] * len(domain) ** 2 > PACKAGE_CELLS:
        # The package would hold units x values x values floats (a tag set of hundreds of
        # distinct sets: gigabytes); the same formula from per-unit counts (bootstrap module).
        return float(nominal_alphas(value_counts(pairable, domain), np.ones((1, pairable.shape[1])))[0])
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def undefined_reason(data: Matrix) -> str:
    only = value_domain(data)
    return f"every coder gave every unit the same value ({only[0]:g}): no variation to agree on"


def percent_agreement(data: Matrix) -> float:
    """Average pairwise agreement: for every pair of coders that both coded some unit, the
    share of those units they gave the same value; the mean over such pairs. With two
    coders it is simply the share of units both coded on which they agree."""
    shares = []
    for a, b in itertools.combinations(range(data.shape[0]), 2):
        both = ~np.isnan(data[a]) & ~np.isnan(data[b])
        if both.any():
            shares.append(float((data[a, both] == data[b, both]).mean()))
    return float(np.mean(shares)) if shares else float("nan")


def cohen_kappa(first: Sequence[Hashable | None], second: Sequence[Hashable | None]) -> float | None:
    """Cohen's (unweighted) kappa of two coders over the units both coded (None: not coded).

    kappa = (p_o - p_e) / (1 - p_e): p_o the share of units they agree on, p_e the
    agreement expected by chance from each coder's own distribution of categories,
    sum over categories k of p_first(k) * p_second(k). None when p_e is 1 (both coders
    used one and the same category throughout: kappa is 0/0)."""
    if len(first) != len(second):
        raise AgreementError(f"the two coders have {len(first)} and {len(second)} units; give the same units")
    pairs = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    if not pairs:
        raise AgreementError("no unit was coded by both coders, so nothing can be compared")
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first_counts: dict[Hashable, int] = {}
    second_counts: dict[Hashable, int] = {}
    for a, b in pairs:
        first_counts[a] = first_counts.get(a, 0) + 1
        second_counts[b] = second_counts.get(b, 0) + 1
    expected = sum(count * second_counts.get(k, 0) for k, count in first_counts.items()) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def matrix_kappa(data: Matrix) -> float | None:
    """Cohen's kappa of a two-row matrix (None with any other number of coders)."""
    if data.shape[0] != 2:
        return None
    rows = [[None if np.isnan(v) else float(v) for v in row] for row in data]
    return cohen_kappa(rows[0], rows[1])


def reliability(matrix: Matrix, level: Level = "nominal", *, draws: int = 1000, seed: int = 1,
                confidence: float = 0.95) -> Reliability:
    """Alpha (with a bootstrap interval over ``draws`` resamplings of the units, ``seed``ed),
    kappa for two coders, percent agreement and the counts, for one variable.

    AgreementError when the matrix cannot give any figure (fewer than two coders, no
    unit, every cell empty, no unit two coders coded)."""
    if level not in LEVELS:
        raise AgreementError(f"unknown level of measurement {level!r}; one of {', '.join(LEVELS)}")
    data = check_matrix(matrix)
    value = alpha(data, level)
    pairable = pairable_units(data)
    return Reliability(
        level=level, alpha=value,
        interval=alpha_interval(data, level, draws=draws, seed=seed, confidence=confidence)
        if value is not None else None,
        kappa=matrix_kappa(data), percent_agreement=percent_agreement(data),
        n_units=data.shape[1], n_pairable_units=int(pairable.sum()), n_coders=data.shape[0],
        n_values=int((~np.isnan(data[:, pairable])).sum()),
        undefined_reason=None if value is not None else undefined_reason(data))
