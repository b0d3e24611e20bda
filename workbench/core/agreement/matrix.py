"""The reliability matrix agreement is computed on, and what makes one unusable (no I/O).

One row per coder, one column per unit (a cluster, a page), the value a coder gave a
unit in the cell and NaN where the coder did not code the unit: the layout of
Krippendorff's "Computing Krippendorff's Alpha-Reliability" (2011).
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = get_args(Level)
Matrix = npt.NDArray[np.float64]


class AgreementError(ValueError):
    """The data cannot give an agreement figure; the message says why, for the coder."""


def check_matrix(matrix: npt.ArrayLike) -> Matrix:
    """The matrix as a 2-D float array, or AgreementError saying what makes it unusable."""
    data = np.asarray(matrix, dtype=np.float64)
    if data.ndim != 2:
        raise AgreementError("the reliability data must be a table: one row per coder, one column per unit")
    coders, units = data.shape
    if coders < 2:
        raise AgreementError(f"{'only one coder' if coders == 1 else 'no coder'}: agreement needs the "
                             "codes of at least two coders, one row each")
    if units == 0:
        raise AgreementError("no unit: the table has no column of codes")
    if np.isinf(data).any():
        raise AgreementError("a value is infinite; give finite numbers")
    if np.isnan(data).all():
        raise AgreementError("every cell is empty: no coder coded any unit")
    if pairable_units(data).sum() == 0:
        raise AgreementError("no unit was coded by two or more coders, so nothing can be compared")
    return data


def pairable_units(data: Matrix) -> npt.NDArray[np.bool_]:
    """Which units (columns) at least two coders coded: only those enter alpha."""
    return np.asarray((~np.isnan(data)).sum(axis=0) >= 2)


def value_domain(data: Matrix) -> npt.NDArray[np.float64]:
    """The distinct values of the pairable units, sorted (the package's value domain)."""
    pairable = data[:, pairable_units(data)]
    return np.unique(pairable[~np.isnan(pairable)])
