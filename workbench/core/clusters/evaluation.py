"""Pair-level precision, recall and F1, the measure of the SpotSigs papers."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

# An unordered pair of items, its smaller (by str) first.
Pair = tuple[Hashable, Hashable]


@dataclass(frozen=True, slots=True)
class Scores:
    precision: float
    recall: float
    f1: float
    true_pairs: int
    predicted_pairs: int
    correct_pairs: int


def _norm(pairs: Iterable[tuple[Hashable, Hashable]]) -> set[Pair]:
    out: set[Pair] = set()
    for a, b in pairs:
        if a != b:
            out.add((a, b) if str(a) <= str(b) else (b, a))
    return out


def pairs_of_groups(groups: Iterable[Iterable[Hashable]]) -> set[Pair]:
    """All unordered pairs of items that share a group."""
    out: set[Pair] = set()
    for g in groups:
        out |= _norm(itertools.combinations(sorted(set(g), key=str), 2))
    return out


def score_pairs(
    predicted: Iterable[tuple[Hashable, Hashable]], truth: Iterable[tuple[Hashable, Hashable]]
) -> Scores:
    """Micro precision/recall/F1 of predicted pairs against true pairs.

    Precision is 1.0 when nothing is predicted (nothing wrong was said), recall
    is 1.0 when there is nothing to find.
    """
    p, t = _norm(predicted), _norm(truth)
    correct = len(p & t)
    precision = correct / len(p) if p else 1.0
    recall = correct / len(t) if t else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(precision, recall, f1, len(t), len(p), correct)


def score_groups(predicted: Iterable[Iterable[Hashable]], truth: Iterable[Iterable[Hashable]]) -> Scores:
    """:func:`score_pairs` of the pairs within groups, counted without listing them.

    Each side's groups must not overlap (clusters, true clusters). Listing the pairs
    takes a tuple per pair: a million gensmall pages have millions of true pairs, while
    counting takes a dictionary of pages and one of (predicted, true) group pairs.
    """
    true_of: dict[Hashable, int] = {}
    true_pairs = 0
    for k, group in enumerate(truth):
        items = set(group)
        true_pairs += len(items) * (len(items) - 1) // 2
        true_of.update(dict.fromkeys(items, k))
    predicted_pairs = correct = 0
    for group in predicted:
        items = set(group)
        predicted_pairs += len(items) * (len(items) - 1) // 2
        shared: dict[int, int] = {}
        for item in items:
            if item in true_of:
                shared[true_of[item]] = shared.get(true_of[item], 0) + 1
        correct += sum(c * (c - 1) // 2 for c in shared.values())
    precision = correct / predicted_pairs if predicted_pairs else 1.0
    recall = correct / true_pairs if true_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(precision, recall, f1, true_pairs, predicted_pairs, correct)
