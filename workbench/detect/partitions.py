"""Length partitions that depend only on tau (SIGIR'08 §4.2).

p_0 = 1 and p_{k+1} is the smallest integer > p_k with p_{k+1} - p_k > (1 - tau) p_{k+1},
i.e. tau * p_{k+1} > p_k. A pair with similarity >= tau then lies in one partition or
in two neighbouring ones, so a page is checked against its own partition and, when
its length is within reach of the next one, that one too.
"""

from __future__ import annotations

import math

import numpy as np


def partition_starts(tau: float, max_length: int) -> np.ndarray:
    """Start lengths p_0 < p_1 < ... of every partition up to ``max_length``.

    The last partition is open-ended ([p_last, inf)), the paper's rho partition.
    """
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"tau must be in (0, 1], not {tau}")
    starts = [1]
    p = 1
    while True:
        q = math.floor(p / tau) + 1
        # Guard against float error: the defining inequality must hold exactly.
        while q - p <= (1.0 - tau) * q:
            q += 1
        while q - 1 > p and (q - 1) - p > (1.0 - tau) * (q - 1):
            q -= 1
        if q > max_length:
            break
        starts.append(q)
        p = q
    return np.asarray(starts, dtype=np.int64)


def partition_of(lengths: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Index of the partition holding each length (lengths >= 1)."""
    return np.searchsorted(starts, lengths, side="right") - 1
