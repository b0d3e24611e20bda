"""Training ANDD's weights from checked clusters (the paper's Sec. 4.1.1 set-up).

Pages in one group are near duplicates (positive pairs); pages of different groups are
not (negative pairs), and so are the given ``negatives`` (a member the coder marked "not
this story", a page split out of a cluster). As in the paper, the negatives are sampled
to as many as there are positives, and 80,000 random (positive, negative) couples are
the preferences the loss orders (:mod:`workbench.detect.andd.learn`). Document
frequencies are those of all the texts given, so pass the whole collection the checked
clusters come from (pages outside every group count for the frequencies only). The
weights come with the threshold of the grid that separates the groups best (highest
pair F1 over the grouped pages), which a run then uses by default.

Measured on the dev Gold Set (benchmarks/bench_andd.py): the unit weights reach a pair
Max F1 of .952 on the whole set (our extracted text has little boilerplate left); over
six random half splits, weights learned on one half give .987 on the other against the
unit weights' .979, better in four of the six. The two others lose .003 and .006: their
held-out errors are mostly gold clusters that tell one story in two folders.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from workbench.detect.andd.andd import grid, weighted_rows
from workbench.detect.andd.features import GramMatrix, PageGrams, gram_matrix, page_grams
from workbench.detect.andd.join import cosine_pairs
from workbench.detect.andd.learn import PreferenceLoss, lbfgs, pair_entries
from workbench.detect.andd.model import AnddWeights
from workbench.detect.detector import PageText

NOTHING_CHECKED = ("ANDD learns from clusters of two or more pages a coder has checked, and "
                   "there is none yet: code some clusters first.")
# The paper's number of training preferences.
PREFERENCES = 80_000
# Pairs of pages whose shared k-grams are kept; beyond this they are sampled (a cluster of
# 150 pages alone has 11,175), which bounds memory and time, not what can be learned.
MAX_POSITIVE_PAIRS = 6_000
# See andd/learn.py: sharpens Eq. 4 so the pairs in the wrong order count most.
GAMMA = 10.0


def positive_pairs(groups: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Every pair (a < b) of pages that share a group."""
    out: set[tuple[int, int]] = set()
    for group in groups:
        out.update(itertools.combinations(sorted(set(group)), 2))
    return sorted(out)


def sample_negatives(groups: Sequence[Sequence[int]], count: int, rng: np.random.Generator,
                     exclude: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Up to ``count`` distinct pairs (a < b) of pages of different groups, at random."""
    group_of: dict[int, int] = {}
    for g, group in enumerate(groups):
        for page in group:
            group_of.setdefault(page, g)
    pages = np.array(sorted(group_of), dtype=np.int64)
    labels = np.array([group_of[p] for p in pages.tolist()], dtype=np.int64)
    if count <= 0 or len(set(labels.tolist())) < 2:
        return []
    found: dict[tuple[int, int], None] = {}  # in the order drawn
    for _ in range(20):  # rounds of draws; one round finds most of what is missing
        need = count - len(found)
        if need <= 0:
            break
        i = rng.integers(0, len(pages), size=2 * need + 16)
        j = rng.integers(0, len(pages), size=2 * need + 16)
        across = labels[i] != labels[j]
        for a, b in zip(pages[i[across]].tolist(), pages[j[across]].tolist(), strict=True):
            pair = (min(a, b), max(a, b))
            if pair not in exclude:
                found[pair] = None
    return sorted(list(found)[:count])


def _sample(pairs: list[tuple[int, int]], count: int, rng: np.random.Generator
            ) -> list[tuple[int, int]]:
    if len(pairs) <= count:
        return pairs
    keep = np.sort(rng.choice(len(pairs), size=count, replace=False))
    return [pairs[i] for i in keep.tolist()]


def train(texts: Sequence[PageText], groups: Sequence[Sequence[int]],
          negatives: Sequence[tuple[int, int]] = (), *, k: int = 1, seed: int = 0,
          gamma: float = GAMMA, preferences: int = PREFERENCES,
          max_positive_pairs: int = MAX_POSITIVE_PAIRS) -> AnddWeights:
    """ANDD weights that rank pairs within ``groups`` above pairs across them.

    ``groups`` and ``negatives`` hold indexes into ``texts``. Raises ValueError, saying
    what is missing, when there is nothing to learn from. (With features already made
    by workers, e.g. ``AnddDetector.featurize``'s, call :func:`train_grams`.)
    """
    return train_grams([page_grams(t, k) for t in texts], groups, negatives, k=k, seed=seed,
                       gamma=gamma, preferences=preferences,
                       max_positive_pairs=max_positive_pairs)


def train_grams(grams: Sequence[PageGrams], groups: Sequence[Sequence[int]],
                negatives: Sequence[tuple[int, int]] = (), *, k: int = 1, seed: int = 0,
                gamma: float = GAMMA, preferences: int = PREFERENCES,
                max_positive_pairs: int = MAX_POSITIVE_PAIRS) -> AnddWeights:
    """:func:`train` from every page's k-grams (:func:`page_grams` with the same k)."""
    n = len(grams)
    _check_pages(groups, negatives, n)
    rng = np.random.default_rng(seed)
    positives = _sample(positive_pairs(groups), max_positive_pairs, rng)
    if not positives:
        raise ValueError(NOTHING_CHECKED)
    positive_set = set(positives)
    given = sorted({(min(a, b), max(a, b)) for a, b in negatives if a != b} - positive_set)
    sampled = sample_negatives(groups, len(positives) - len(given), rng,
                               positive_set | set(given))
    negative = given + sampled
    if not negative:
        raise ValueError("ANDD also needs pages that are not near duplicates: check at least "
                         "two clusters, or mark a member as not this story.")
    pages = np.array(sorted({p for pair in positives + negative for p in pair}), dtype=np.int64)
    # Frequencies come from every page given; only the training pages' rows are kept.
    full = gram_matrix(grams, k)
    matrix = full.select_rows(pages)
    both = np.array(positives + negative, dtype=np.int64)
    p, q = np.searchsorted(pages, both[:, 0]), np.searchsorted(pages, both[:, 1])
    # Each preference: a near-duplicate pair that should come out above an unrelated one.
    better = rng.integers(0, len(positives), size=preferences)
    worse = len(positives) + rng.integers(0, len(negative), size=preferences)
    loss = PreferenceLoss(matrix, pair_entries(matrix, p, q), better, worse, gamma)
    # The paper starts from random weights; the unit weights are as neutral and repeatable.
    start = AnddWeights.unit(k).vector
    found = lbfgs(loss, start)
    scale = float(np.max(np.abs(found.x)))
    values = found.x / scale if scale > 0 and math.isfinite(scale) else start
    weights = AnddWeights.of(k, values, {"pages": len(pages), "positive_pairs": len(positives),
                                         "negative_pairs": len(negative),
                                         "preferences": preferences})
    return replace(weights, threshold=best_threshold(full, groups, weights))


def best_threshold(matrix: GramMatrix, groups: Sequence[Sequence[int]], weights: AnddWeights
                   ) -> float:
    """The threshold of the grid with the highest pair F1 over the grouped pages: every
    pair within a group should be found, none across (ties: the higher threshold)."""
    pages = np.array(sorted({p for group in groups for p in group}), dtype=np.int64)
    group_of = np.full(matrix.n, -1, dtype=np.int64)
    for g, group in enumerate(groups):
        group_of[np.asarray(group, dtype=np.int64)] = g
    thresholds = grid()
    ptr, col, val = weighted_rows(matrix.select_rows(pages), weights)
    found = cosine_pairs(ptr, col, val, thresholds[0])
    same = group_of[pages[found.a]] == group_of[pages[found.b]]
    truth = len(positive_pairs(groups))
    best, best_f1 = thresholds[0], -1.0
    for t in thresholds:
        kept = found.similarity >= t
        correct = int(np.count_nonzero(same & kept))
        predicted = int(np.count_nonzero(kept))
        f1 = 2 * correct / (predicted + truth) if predicted + truth else 0.0
        if f1 >= best_f1:
            best, best_f1 = t, f1
    return best


def _check_pages(groups: Sequence[Sequence[int]], negatives: Sequence[tuple[int, int]],
                 n: int) -> None:
    for group in groups:
        for page in group:
            if not 0 <= page < n:
                raise ValueError(f"Page {page} of a group is not among the {n} pages given.")
    for a, b in negatives:
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"The negative pair ({a}, {b}) is not among the {n} pages given.")
