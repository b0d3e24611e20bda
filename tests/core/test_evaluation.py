from __future__ import annotations

import random

from workbench.core.clusters.evaluation import pairs_of_groups, score_groups, score_pairs


def _partition(rng: random.Random, items: list[str], groups: int) -> list[list[str]]:
    out: dict[int, list[str]] = {}
    for item in items:
        out.setdefault(rng.randrange(groups), []).append(item)
    return list(out.values())


def test_counting_the_pairs_scores_as_listing_them():
    rng = random.Random(7)
    for _ in range(50):
        pages = [f"p{k}" for k in range(rng.randrange(1, 60))]
        truth = _partition(rng, pages, rng.randrange(1, 20))
        # Clusters cover only some pages, as a run's clusters of two or more do.
        predicted = _partition(rng, rng.sample(pages, rng.randrange(len(pages) + 1)), rng.randrange(1, 20))
        listed = score_pairs(pairs_of_groups(predicted), pairs_of_groups(truth))
        assert score_groups(predicted, truth) == listed


def test_pages_without_a_true_cluster_are_wrong_in_any_cluster():
    s = score_groups([["a", "b", "x"]], [["a", "b"], ["c", "d"]])
    assert (s.predicted_pairs, s.correct_pairs, s.true_pairs) == (3, 1, 2)
    assert (s.precision, s.recall) == (1 / 3, 1 / 2)
    assert score_groups([], []).precision == 1.0
