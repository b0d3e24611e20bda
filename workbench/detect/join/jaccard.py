"""Multiset Jaccard similarity (SIGIR'08 eq. 4) and the brute-force reference join."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence


def multiset_jaccard(a: Mapping[int, int], b: Mapping[int, int]) -> float:
    """sum min(f_a, f_b) / sum max(f_a, f_b); 0.0 for two empty multisets."""
    inter = sum(min(f, b[s]) for s, f in a.items() if s in b)
    union = sum(a.values()) + sum(b.values()) - inter
    return inter / union if union else 0.0


def brute_force_pairs(
    docs: Sequence[Mapping[int, int]], tau: float
) -> dict[tuple[int, int], float]:
    """Every pair (i < j) with multiset Jaccard >= tau, by comparing all pairs."""
    out: dict[tuple[int, int], float] = {}
    for i, j in itertools.combinations(range(len(docs)), 2):
        sim = multiset_jaccard(docs[i], docs[j])
        if sim >= tau and sim > 0.0:
            out[(i, j)] = sim
    return out
