"""I-Match: one SHA-1 of each page's terms in the collection's middle idf band."""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.progress import Cancelled
from workbench.detect.detector import PageText
from workbench.detect.imatch import IMatchDetector, IMatchFeatures, kept_df_range, signatures


def _pairs(result) -> set[tuple[int, int]]:
    return set(zip(result.a.tolist(), result.b.tolist(), strict=True))


def _collection(pages: list[str], size: int = 100) -> list[str]:
    """``pages`` first, then filler pages of words no other page has, up to ``size``
    pages, so that N (and with it the idf band) is known."""
    return list(pages) + [f"filler{k}a filler{k}b" for k in range(len(pages), size)]


def test_the_kept_document_frequencies_follow_the_normalised_idf_band() -> None:
    # idf = log(N/df)/log(N) in [0.4, 0.75] <=> N**0.25 <= df <= N**0.6
    assert kept_df_range(100, 0.4, 0.75) == (4, 15)  # 100**0.25 = 3.16, 100**0.6 = 15.8
    assert kept_df_range(1050, 0.4, 0.75) == (6, 64)  # 5.69 and 64.97
    assert kept_df_range(10_000, 0.5, 0.75) == (10, 100)  # exact powers stay in the band
    for n in (7, 100, 1050, 5000):
        low, high = kept_df_range(n, 0.4, 0.75)
        for df in (low, high):
            assert 0.4 - 1e-12 <= math.log(n / df) / math.log(n) <= 0.75 + 1e-12
        assert math.log(n / (low - 1)) / math.log(n) > 0.75
        assert math.log(n / (high + 1)) / math.log(n) < 0.4


def test_pages_with_the_same_kept_terms_in_any_order_are_duplicates() -> None:
    # "alpha".."delta" occur on 4 pages each (kept for N = 100), in other orders and counts
    pages = ["alpha beta gamma delta", "delta gamma beta alpha alpha", "Gamma, ALPHA; delta beta!",
             "alpha beta gamma delta"]
    detector = IMatchDetector()
    result = detector.find_pairs([detector.featurize(PageText(t)) for t in _collection(pages)], 1.0)
    assert _pairs(result) == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    assert result.similarity.tolist() == [1.0] * 6


def test_only_terms_in_the_idf_band_decide() -> None:
    # N = 100 keeps terms on 4 to 15 pages
    pages = ["common kept1 kept2"] * 5 + [
        "kept1 kept2 rare1",  # rare1 (on 1 page) is left out: a duplicate of pages 0-4
        "kept1 kept2 band band",  # "band" (on 4 pages) is kept: this page differs
        "band x1", "band x2", "band x3",  # only "band" kept: duplicates of each other
    ] + [f"common y{k}" for k in range(11)]  # "common" on 16 pages: left out
    detector = IMatchDetector()
    result = detector.find_pairs([detector.featurize(PageText(t)) for t in _collection(pages)], 1.0)
    group = range(6)
    expected = {(a, b) for a in group for b in group if a < b} | {(7, 8), (7, 9), (8, 9)}
    assert _pairs(result) == expected


def test_a_wider_band_changes_what_is_kept() -> None:
    pages = ["kept1 kept2 rare1", "kept1 kept2"] + ["kept1 kept2 other"] * 3
    texts = _collection(pages)
    narrow, wide = IMatchDetector(), IMatchDetector(idf_low=0.0, idf_high=1.0)
    assert (0, 1) in _pairs(narrow.find_pairs([narrow.featurize(PageText(t)) for t in texts], 1.0))
    # with every term kept, rare1 (df 1) tells the first page apart
    assert (0, 1) not in _pairs(wide.find_pairs([wide.featurize(PageText(t)) for t in texts], 1.0))


def test_stopwords_and_numbers_are_not_terms() -> None:
    detector = IMatchDetector()
    with_noise = detector.featurize(PageText("The 2006 report, and 14 of the reports were on it"))
    plain = detector.featurize(PageText("report reports"))
    assert np.array_equal(with_noise.terms, plain.terms)


def test_pages_with_too_few_kept_terms_get_no_signature() -> None:
    pages = ["solo", "solo", "pair duo", "pair duo"] + ["solo pair duo"] * 2
    texts = _collection(pages)
    one, two = IMatchDetector(min_terms=1), IMatchDetector(min_terms=2)
    features = [one.featurize(PageText(t)) for t in texts]
    assert {(0, 1), (2, 3), (4, 5)} <= _pairs(one.find_pairs(features, 1.0))
    assert (0, 1) not in _pairs(two.find_pairs(features, 1.0))
    assert {(2, 3), (4, 5)} <= _pairs(two.find_pairs(features, 1.0))
    # empty pages (and pages whose terms are all outside the band) are never duplicates
    empties = [one.featurize(PageText("")) for _ in range(3)]
    assert len(one.find_pairs(empties + features, 1.0)) == len(one.find_pairs(features, 1.0))


term_sets = st.lists(st.sets(st.integers(0, 12), max_size=6), min_size=2, max_size=30)


@settings(max_examples=60, deadline=None)
@given(term_sets, st.randoms(use_true_random=False))
def test_groups_are_the_pages_with_equal_kept_sets_and_order_does_not_matter(
    sets: list[set[int]], rng: random.Random
) -> None:
    detector = IMatchDetector(idf_low=0.1, idf_high=0.9)
    features = [IMatchFeatures(np.array(sorted(s), dtype=np.int64)) for s in sets]
    n = len(sets)
    low, high = kept_df_range(n, 0.1, 0.9)
    df = {t: sum(t in s for s in sets) for t in set().union(*sets)}
    kept = [frozenset(t for t in s if low <= df[t] <= high) for s in sets]
    truth = {(i, j) for i in range(n) for j in range(i + 1, n) if kept[i] and kept[i] == kept[j]}
    assert _pairs(detector.find_pairs(features, 1.0)) == truth

    order = list(range(n))
    rng.shuffle(order)
    shuffled = detector.find_pairs([features[k] for k in order], 1.0)
    back = {tuple(sorted((order[a], order[b]))) for a, b in _pairs(shuffled)}
    assert back == truth
    # the same set gives the same signature whatever the page's position
    sig = signatures(features, 0.1, 0.9)
    for i in range(n):
        for j in range(n):
            if kept[i] and kept[i] == kept[j]:
                assert sig[i] == sig[j]


def test_features_are_compact_and_pickle() -> None:
    features = IMatchDetector().featurize(PageText("Reports of the storm reached the coast"))
    assert isinstance(features, IMatchFeatures) and features.terms.dtype == np.int64
    assert np.all(np.diff(features.terms) > 0)
    assert np.array_equal(pickle.loads(pickle.dumps(features)).terms, features.terms)


def test_interface_and_progress() -> None:
    detector = IMatchDetector()
    assert detector.name == "imatch" and detector.exact is True
    assert list(detector.thresholds()) == [1.0] and detector.default_threshold() == 1.0
    assert detector.parameters()["idf_low"] == 0.4 and detector.parameters()["idf_high"] == 0.75
    features = [detector.featurize(PageText(t)) for t in _collection(["a1 b1"] * 5)]
    calls: list[str] = []
    detector.find_pairs(features, 1.0, progress=lambda stage, done, total: calls.append(stage))
    assert calls and set(calls) == {"match"}

    def cancel(stage: str, done: int, total: int | None) -> None:
        raise Cancelled()

    with pytest.raises(Cancelled):
        detector.find_pairs(features, 1.0, progress=cancel)
    assert len(detector.find_pairs(features[:1], 1.0)) == 0
    with pytest.raises(ValueError, match="idf"):
        IMatchDetector(idf_low=0.8, idf_high=0.5)
