"""MinHash LSH over word shingles: candidates from datasketch's index, pairs by exact Jaccard."""

from __future__ import annotations

import itertools
import pickle
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.progress import Cancelled
from workbench.detect.detector import PageText
from workbench.detect.minhash import (
    MinHashDetector,
    MinHashFeatures,
    banding_recall,
    exact_jaccard,
    lsh_layout,
    shingle_hashes,
)
from workbench.text.tokenize import words_of

VOCABULARY = [f"w{k}" for k in range(60)]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def _edited(rng: random.Random, text: str, changes: int) -> str:
    """``text`` with ``changes`` words replaced: a near duplicate of it."""
    words = text.split()
    for _ in range(changes):
        words[rng.randrange(len(words))] = rng.choice(VOCABULARY)
    return " ".join(words)


def _shingle_sets(texts: list[str], size: int = 5) -> list[set[tuple[str, ...]]]:
    """The brute-force reference: word shingles as tuples of words."""
    out = []
    for text in texts:
        words = words_of(text)
        if not words:
            out.append(set())
        elif len(words) < size:
            out.append({tuple(words)})
        else:
            out.append({tuple(words[i : i + size]) for i in range(len(words) - size + 1)})
    return out


def _brute_force(sets: list[set], threshold: float) -> dict[tuple[int, int], float]:
    out = {}
    for i, j in itertools.combinations(range(len(sets)), 2):
        if sets[i] and sets[j]:
            sim = len(sets[i] & sets[j]) / len(sets[i] | sets[j])
            if sim >= threshold:
                out[(i, j)] = sim
    return out


def _corpus(seed: int) -> list[str]:
    """Originals with near copies at several edit distances, and unrelated pages."""
    rng = random.Random(seed)
    texts = []
    for _ in range(6):
        base = _text(rng, 80)
        texts.append(base)
        for changes in (1, 3, 6, 12):
            texts.append(_edited(rng, base, changes))
    texts += [_text(rng, 80) for _ in range(6)]
    return texts


def test_shingles_are_the_pages_word_5_grams() -> None:
    texts = ["The cat sat on the mat today", "the CAT sat on the mat", "cat sat on the mat today"]
    hashes = [shingle_hashes(words_of(t), 5) for t in texts]
    assert [len(h) for h in hashes] == [3, 2, 2]  # 7 words give 3 five-grams, 6 give 2
    # lower-cased words: the first two pages share "the cat sat on the", "cat sat on the mat"
    assert len(np.intersect1d(hashes[0], hashes[1])) == 2
    assert len(np.intersect1d(hashes[0], hashes[2])) == 2
    for h in hashes:
        assert h.dtype == np.int64 and np.all(np.diff(h) > 0)  # sorted, unique


def test_a_page_shorter_than_a_shingle_is_one_shingle_of_all_its_words() -> None:
    detector = MinHashDetector()
    pages = ["breaking news today", "Breaking news, today!", "breaking news", "breaking news today and more"]
    features = [detector.featurize(PageText(t)) for t in pages]
    assert [len(f.shingles) for f in features] == [1, 1, 1, 1]
    result = detector.find_pairs(features, 0.5)
    assert list(zip(result.a.tolist(), result.b.tolist(), strict=True)) == [(0, 1)]
    assert result.similarity.tolist() == [1.0]


def test_features_are_compact_arrays_that_pickle_and_repeat() -> None:
    detector = MinHashDetector()
    text = _text(random.Random(3), 200)
    first, again = detector.featurize(PageText(text)), detector.featurize(PageText(text))
    assert isinstance(first, MinHashFeatures)
    assert first.minhashes.dtype == np.uint64 and len(first.minhashes) == 128
    assert np.array_equal(first.minhashes, again.minhashes)  # fixed seed
    copy = pickle.loads(pickle.dumps(first))
    assert np.array_equal(copy.shingles, first.shingles) and np.array_equal(copy.minhashes, first.minhashes)
    other_seed = MinHashDetector(seed=2).featurize(PageText(text))
    assert not np.array_equal(other_seed.minhashes, first.minhashes)


@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_pairs_are_exact_pairs_with_their_exact_jaccard(threshold: float) -> None:
    texts = _corpus(seed=int(threshold * 10))
    detector = MinHashDetector()
    result = detector.find_pairs([detector.featurize(PageText(t)) for t in texts], threshold)
    truth = _brute_force(_shingle_sets(texts), threshold)
    found = dict(zip(zip(result.a.tolist(), result.b.tolist(), strict=True), result.similarity.tolist(),
                     strict=True))
    assert set(found) <= set(truth)
    for pair, sim in found.items():
        assert sim == pytest.approx(truth[pair], abs=1e-12)
        assert sim >= threshold
    assert np.all(result.a < result.b)
    assert result.candidates >= len(result)
    # the near copies (1 to 3 words changed in 80) are far above any of these thresholds
    assert len(found) >= len(truth) // 2


@pytest.mark.parametrize("threshold", [0.5, 0.9, 0.99, 1.0])
def test_identical_pages_are_found_at_every_threshold(threshold: float) -> None:
    rng = random.Random(11)
    base, other = _text(rng, 120), _text(rng, 120)
    texts = [base, other, base, _edited(rng, base, 30), base.upper()]
    detector = MinHashDetector()
    result = detector.find_pairs([detector.featurize(PageText(t)) for t in texts], threshold)
    pairs = {(a, b): s for a, b, s in zip(result.a.tolist(), result.b.tolist(), result.similarity.tolist(),
                                          strict=True)}
    for pair in [(0, 2), (0, 4), (2, 4)]:
        assert pairs[pair] == 1.0


def test_pages_without_words_are_never_paired() -> None:
    detector = MinHashDetector()
    features = [detector.featurize(PageText(t)) for t in ["", "  ...  ", "", "some words here"]]
    assert len(features[0].shingles) == 0
    assert len(detector.find_pairs(features, 0.1)) == 0


def test_the_index_layout_is_datasketchs_choice_for_the_threshold() -> None:
    assert lsh_layout(0.5, 128) == (25, 5)
    assert lsh_layout(0.9, 128) == (5, 25)
    # Near 1.0 datasketch's optimiser wants a single band, which its index refuses:
    # two bands of half the permutations each (its own choice just below) are used.
    assert lsh_layout(1.0, 128) == (2, 64)


sets = st.lists(st.sets(st.integers(0, 40), max_size=25), min_size=2, max_size=14)


@settings(max_examples=60, deadline=None)
@given(sets, st.sampled_from([0.1, 0.25, 0.5, 0.75, 1.0]))
def test_exact_verification_matches_brute_force_jaccard(id_sets: list[set[int]], threshold: float) -> None:
    detector = MinHashDetector(permutations=32)
    features = [detector.features_of(np.array(sorted(s), dtype=np.int64)) for s in id_sets]
    pairs = list(itertools.combinations(range(len(id_sets)), 2))
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    sims = exact_jaccard(features, a, b)
    for (i, j), sim in zip(pairs, sims.tolist(), strict=True):
        x, y = id_sets[i], id_sets[j]
        assert sim == pytest.approx(len(x & y) / len(x | y) if x | y else 0.0, abs=1e-12)
    truth = _brute_force(list(id_sets), threshold)
    result = detector.find_pairs(features, threshold)
    found = dict(zip(zip(result.a.tolist(), result.b.tolist(), strict=True), result.similarity.tolist(),
                     strict=True))
    assert set(found) <= set(truth)
    assert all(found[p] == pytest.approx(truth[p], abs=1e-12) for p in found)


@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.8])
def test_banding_recall_counts_the_exact_pairs_the_index_found(threshold: float) -> None:
    texts = _corpus(seed=5)
    detector = MinHashDetector(permutations=16)  # few permutations: the index misses some
    features = [detector.featurize(PageText(t)) for t in texts]
    truth = _brute_force(_shingle_sets(texts), threshold)
    result = detector.find_pairs(features, threshold)
    recall = banding_recall(features, threshold)
    assert recall.exact == len(truth)
    assert recall.found == len(set(zip(result.a.tolist(), result.b.tolist(), strict=True)) & set(truth))
    assert recall.recall == (recall.found / recall.exact if recall.exact else 1.0)


def test_banding_recall_is_complete_when_nothing_is_missed() -> None:
    detector = MinHashDetector()
    features = [detector.featurize(PageText(t)) for t in ["a b c d e f", "a b c d e f", "x y z"]]
    assert tuple(banding_recall(features, 0.9)) == (1, 1)
    assert tuple(banding_recall(features[2:], 0.9)) == (0, 0)


def test_progress_is_reported_and_cancel_propagates() -> None:
    detector = MinHashDetector()
    features = [detector.featurize(PageText(t)) for t in _corpus(seed=1)]
    calls: list[tuple[str, int, int | None]] = []
    detector.find_pairs(features, 0.5, progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert calls and all(stage == "match" for stage, _, _ in calls)
    assert calls[-1][1] == calls[-1][2] == len(features)

    def cancel(stage: str, done: int, total: int | None) -> None:
        raise Cancelled()

    with pytest.raises(Cancelled):
        detector.find_pairs(features, 0.5, progress=cancel)


def test_parameters_and_thresholds() -> None:
    detector = MinHashDetector(shingle=3, permutations=64, seed=7)
    params = detector.parameters()
    assert (params["shingle"], params["permutations"], params["seed"]) == (3, 64, 7)
    assert detector.name == "minhash" and detector.exact is False
    assert 0.0 < detector.default_threshold() <= 1.0
    with pytest.raises(ValueError, match="threshold"):
        detector.find_pairs([], 0.0)
    with pytest.raises(ValueError, match="shingle"):
        MinHashDetector(shingle=0)
