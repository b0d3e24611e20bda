"""Learning ANDD's weights: the loss's gradient, the optimiser, the pairs it learns from,
and (issue 12) weights learned on half of the dev Gold Set beating the unit weights on
the other half."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import shared_path
from workbench.core.clusters.evaluation import pairs_of_groups
from workbench.detect.andd.andd import AnddDetector
from workbench.detect.andd.features import feature_names, gram_matrix, page_grams
from workbench.detect.andd.learn import PreferenceLoss, lbfgs, pair_entries
from workbench.detect.andd.model import AnddWeights
from workbench.detect.andd.train import positive_pairs, sample_negatives, train
from workbench.detect.detector import PageText


def _collection(seed: int, stories: int = 6, copies: int = 4) -> tuple[list[PageText], list[list[int]]]:
    """Near duplicates that share a story's words, each page padded with words of its own
    (a comment section, say) and common words every page has."""
    rng = np.random.default_rng(seed)
    texts, groups = [], []
    for s in range(stories):
        story = [f"s{seed}x{s}w{i}" for i in range(25)]
        group = []
        for c in range(copies):
            own = [f"p{seed}x{s}x{c}w{i}" for i in range(int(rng.integers(5, 60)))]
            common = [f"c{i}" for i in rng.integers(0, 30, size=40)]
            words = story[: 20 + int(rng.integers(0, 6))] + own + common
            rng.shuffle(words)
            group.append(len(texts))
            texts.append(PageText(" ".join(words)))
        groups.append(group)
    return texts, groups


def _separation(weights: AnddWeights, texts: list[PageText], groups: list[list[int]]) -> float:
    """Lowest cosine within a group minus highest across groups."""
    d = AnddDetector(weights)
    found = d.find_pairs([d.featurize(t) for t in texts], 0.01)
    group_of = {p: g for g, members in enumerate(groups) for p in members}
    same = np.array([group_of[a] == group_of[b] for a, b in zip(found.a, found.b, strict=True)],
                    dtype=bool)
    within = sum(len(g) * (len(g) - 1) // 2 for g in groups)
    lowest = found.similarity[same].min() if same.sum() == within else 0.0  # one below 0.01
    return float(lowest - found.similarity[~same].max(initial=0.0))


def test_the_gradient_is_the_losss_slope():
    texts, groups = _collection(1)
    m = gram_matrix([page_grams(t) for t in texts])
    rng = np.random.default_rng(3)
    p, q = rng.integers(0, m.n, 60), rng.integers(0, m.n, 60)
    keep = p != q
    loss = PreferenceLoss(m, pair_entries(m, p[keep], q[keep]), rng.integers(0, 20, 200),
                          rng.integers(20, int(keep.sum()), 200), gamma=10.0)
    weights = rng.normal(size=len(feature_names(1))) + 0.3  # some k-grams cut to zero
    _, grad = loss(weights)
    step = 1e-6
    numeric = [(loss(weights + step * e)[0] - loss(weights - step * e)[0]) / (2 * step)
               for e in np.eye(len(weights))]
    assert np.allclose(grad, numeric, atol=1e-7)


def test_lbfgs_finds_the_bottom_of_a_curved_valley():
    def rosenbrock(x: np.ndarray) -> tuple[float, np.ndarray]:
        a, b = x
        value = (1 - a) ** 2 + 100 * (b - a * a) ** 2
        return value, np.array([-2 * (1 - a) - 400 * a * (b - a * a), 200 * (b - a * a)])

    found = lbfgs(rosenbrock, np.array([-1.2, 1.0]), iterations=200, tolerance=1e-14)
    assert np.allclose(found.x, [1.0, 1.0], atol=1e-4) and found.value < 1e-8


def test_pairs_come_from_groups_and_across_them():
    groups = [[0, 1, 2], [3, 4], [5]]
    assert positive_pairs(groups) == [(0, 1), (0, 2), (1, 2), (3, 4)]
    negatives = sample_negatives(groups, 8, np.random.default_rng(0), exclude={(0, 3)})
    group_of = {p: g for g, members in enumerate(groups) for p in members}
    assert len(negatives) == 8 == len(set(negatives)) and (0, 3) not in negatives
    assert all(a < b and group_of[a] != group_of[b] for a, b in negatives)
    assert sample_negatives([[0, 1, 2]], 5, np.random.default_rng(0), set()) == []


def test_training_separates_near_duplicates_better_on_unseen_pages():
    texts, groups = _collection(1)
    weights = train(texts, groups)
    assert weights.trained and dict(weights.trained_on)["positive_pairs"] == 36
    assert max(abs(v) for _, v in weights.weights) == pytest.approx(1.0)
    fresh, fresh_groups = _collection(2)
    assert _separation(weights, fresh, fresh_groups) > _separation(AnddWeights.unit(), fresh,
                                                                   fresh_groups)


def test_training_finds_the_threshold_that_separates_the_groups_best():
    texts, groups = _collection(1)
    weights = train(texts, groups)
    d = AnddDetector(weights)
    assert weights.threshold is not None and d.default_threshold() == weights.threshold
    assert weights.threshold in d.thresholds()
    found = d.find_pairs([d.featurize(t) for t in texts], weights.threshold)
    assert sorted(zip(found.a.tolist(), found.b.tolist(), strict=True)) == positive_pairs(groups)


def test_given_negatives_are_learned_from():
    texts, groups = _collection(1, stories=2)
    weights = train(texts, groups, negatives=[(0, 5), (5, 0), (1, 1)])
    # The 12 positive pairs are matched by 12 negatives: the one given and 11 sampled.
    assert dict(weights.trained_on)["negative_pairs"] == 12


def test_nothing_to_learn_from_is_said_plainly():
    texts, _ = _collection(1, stories=2)
    with pytest.raises(ValueError, match="code some clusters first"):
        train(texts, [[0], [1]])
    with pytest.raises(ValueError, match="not near duplicates"):
        train(texts, [[0, 1, 2]])
    with pytest.raises(ValueError, match="not among the 8 pages"):
        train(texts, [[0, 1], [2, 9]])


# -------------------------------------------------------------- the test
def _max_f1(detector: AnddDetector, features: list, keys: list[str]) -> float:
    """Pair Max F1 over the detector's thresholds (score_pairs' F1, counted with numpy:
    a pair is right when both pages are in one folder)."""
    folder = np.array([key.split("/")[0] for key in keys])
    truth = len(pairs_of_groups(_folders(keys).values()))
    found = detector.find_pairs(features, min(detector.thresholds()))
    right = folder[found.a] == folder[found.b]
    best = 0.0
    for t in detector.thresholds():
        kept = found.similarity >= t
        best = max(best, 2 * int(np.count_nonzero(right & kept)) / (int(kept.sum()) + truth))
    return best


def _folders(keys: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key in keys:
        out.setdefault(key.split("/")[0], []).append(key)
    return out


def test_weights_learned_on_half_the_gold_set_beat_unit_weights_on_the_other_half():
    from workbench.detect.texts import read_texts

    texts = read_texts(shared_path("goldset-dev"))
    keys = [p.key for p in texts.pages]
    folders = sorted(_folders(keys))
    np.random.default_rng(0).shuffle(folders)  # seeded: the same halves every time
    learn = set(folders[: len(folders) // 2])
    train_idx = [i for i, k in enumerate(keys) if k.split("/")[0] in learn]
    test_idx = [i for i, k in enumerate(keys) if k.split("/")[0] not in learn]
    groups: dict[str, list[int]] = {}
    for j, i in enumerate(train_idx):
        groups.setdefault(keys[i].split("/")[0], []).append(j)
    weights = train([texts.texts[i] for i in train_idx], list(groups.values()))

    untrained, trained = AnddDetector(), AnddDetector(weights)
    features = [untrained.featurize(texts.texts[i]) for i in test_idx]  # same k: same features
    test_keys = [keys[i] for i in test_idx]
    before = _max_f1(untrained, features, test_keys)
    after = _max_f1(trained, features, test_keys)
    assert after > before + 0.005, (before, after, weights.to_dict())
