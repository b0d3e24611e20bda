"""ANDD's features, model and detector: what each k-gram's features say, the weights'
round trip, and every pair at or above a threshold with its exact cosine."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.progress import Cancelled
from workbench.detect.andd.andd import AnddDetector, weighted_rows
from workbench.detect.andd.features import feature_names, gram_matrix, page_grams
from workbench.detect.andd.join import cosine_pairs
from workbench.detect.andd.model import AnddWeights, unit_vectors
from workbench.detect.detector import PageText
from workbench.detect.spotsigs.hashing import chain_id, signature_id


def _id(*words: str) -> int:
    return chain_id("andd", list(words))


def test_a_pages_unigrams_carry_counts_positions_capitals_and_title():
    page = PageText("Flash player released\nThe player runs on Linux. flash", title="Flash news")
    g = page_grams(page)
    row = {int(i): n for n, i in enumerate(g.ids)}
    flash, player, linux = row[_id("flash")], row[_id("player")], row[_id("linux")]
    assert g.tokens == 9
    assert (g.tf[flash], g.first[flash], g.capitals[flash], g.in_title[flash]) == (2, 0, 1, True)
    assert (g.tf[player], g.first[player], g.capitals[player], g.in_title[player]) == (2, 1, 0, False)
    assert (g.first[linux], g.capitals[linux]) == (7, 1)
    assert list(g.ids) == sorted(g.ids) and g.words is None
    assert pickle.loads(pickle.dumps(g)).ids.tolist() == g.ids.tolist()  # crosses to workers


def test_k_grams_keep_their_words_for_the_words_frequencies():
    g = page_grams(PageText("a b c a b", title="b c"), k=2)
    row = {int(i): n for n, i in enumerate(g.ids)}
    assert set(row) == {_id("a", "b"), _id("b", "c"), _id("c", "a")}
    ab = row[_id("a", "b")]
    assert (g.tf[ab], g.first[ab], g.in_title[ab], g.in_title[row[_id("b", "c")]]) == (2, 0, False, True)
    assert g.words is not None and g.words[ab].tolist() == [signature_id("a"), signature_id("b")]


def test_a_page_shorter_than_k_has_no_grams():
    assert len(page_grams(PageText("one"), k=2)) == 0
    assert len(page_grams(PageText(""))) == 0


def test_collection_features_are_the_tables_in_rank_order():
    texts = [PageText("x y z"), PageText("x y"), PageText("x w w")]
    m = gram_matrix([page_grams(t) for t in texts])
    assert m.names == feature_names(1)
    assert m.df.tolist() == [3, 2, 1, 1]  # columns: most common first
    for r in range(m.n):
        cols = m.col[m.ptr[r]:m.ptr[r + 1]]
        assert list(cols) == sorted(cols)
    page3 = [dict(zip(m.names, v, strict=True)) for v in m.values[m.ptr[2]:m.ptr[3]]]
    f = next(r for r in page3 if r["tf"] == pytest.approx(math.log1p(2)))  # w, twice
    assert f["df"] == pytest.approx(1 / 3) and f["idf"] == pytest.approx(1.0)
    assert f["loc"] == pytest.approx(1 / 3) and f["len"] == pytest.approx(math.log1p(3) / 10)
    assert (f["cap"], f["in_title"]) == (0.0, 0.0)
    x = dict(zip(m.names, m.values[m.ptr[0]], strict=True))  # x: in every page
    assert x["df"] == 1.0 and x["idf"] == pytest.approx(math.log(4 / 3) / math.log(4))
    assert x["bias"] == 1.0


def test_word_frequencies_of_k_grams():
    texts = [PageText("a b c"), PageText("a b"), PageText("c d")]
    m = gram_matrix([page_grams(t, 2) for t in texts], 2)
    rows = [dict(zip(m.names, v, strict=True)) for v in m.values]
    ab = next(r for r in rows if r["df"] == pytest.approx(2 / 3))  # "a b": in pages 1 and 2
    assert ab["df_avg"] == pytest.approx(2 / 3) and ab["df_med"] == pytest.approx(2 / 3)
    bc = next(r for r in rows if r["df"] == pytest.approx(1 / 3) and r["loc"] > 0)  # "b c"
    assert bc["df_avg"] == pytest.approx((2 / 3 + 2 / 3) / 2)  # b: 2 pages, c: 2 pages
    cd = rows[-1]  # "c d": the only k-gram of page 3
    assert (cd["df_avg"], cd["df_med"]) == (pytest.approx(0.5), pytest.approx(0.5))
    assert m.values.shape == (4, len(feature_names(2)))


def test_weights_travel_as_a_small_json_dict():
    w = AnddWeights.of(1, np.linspace(-1, 1, len(feature_names(1))), {"pages": 40}, 0.55)
    data = json.loads(json.dumps(w.to_dict()))
    assert AnddWeights.from_dict(data) == w and w.trained and data["threshold"] == 0.55
    assert AnddWeights.from_dict(AnddWeights.unit().to_dict()).threshold is None
    assert set(data["weights"]) == set(feature_names(1))
    assert not AnddWeights.unit().trained and AnddWeights.unit(3).k == 3
    with pytest.raises(ValueError, match="missing: in_title"):
        AnddWeights.from_dict({"k": 1, "weights": {n: 1 for n in feature_names(1)[:-1]}})
    with pytest.raises(ValueError, match="unknown: qf"):
        AnddWeights.from_dict({"k": 1, "weights": {**dict(w.weights), "qf": 0.5}})
    with pytest.raises(ValueError, match="need k and weights"):
        AnddWeights.from_dict({"weights": {}})


def test_the_detector_describes_itself_and_checks_k():
    d = AnddDetector()
    assert (d.name, d.k, d.exact) == ("andd", 1, True)
    params = json.loads(json.dumps(d.parameters()))
    assert params["weights"] == AnddWeights.unit().to_dict() and params["trained"] is False
    assert list(d.thresholds()) == sorted(d.thresholds()) and d.thresholds()[-1] == 1.0
    assert d.default_threshold() == 0.4  # the unit weights' best on the dev Gold Set
    assert AnddDetector(k=3).k == 3 and AnddDetector(AnddWeights.unit(2)).k == 2
    with pytest.raises(ValueError, match="k=2, not k=1"):
        AnddDetector(AnddWeights.unit(2), k=1)


def _brute(texts: list[PageText], weights: AnddWeights) -> np.ndarray:
    m = gram_matrix([page_grams(t, weights.k) for t in texts], weights.k)
    dense = np.zeros((m.n, len(m.df)))
    dense[m.rows(), m.col] = unit_vectors(m, weights.vector)
    return dense @ dense.T


WORDS = [f"w{i}" for i in range(12)]
texts_strategy = st.lists(st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join),
                          min_size=2, max_size=9)
weights_strategy = st.lists(st.floats(-1, 1), min_size=8, max_size=8)


@settings(max_examples=60, deadline=None)
@given(texts_strategy, weights_strategy, st.floats(0.05, 1.0))
def test_find_pairs_is_every_pair_at_or_above_the_threshold(words, values, t):
    texts = [PageText(w, title=w[:5]) for w in words]
    weights = AnddWeights.of(1, np.array(values))
    d = AnddDetector(weights)
    found = d.find_pairs([d.featurize(x) for x in texts], t)
    sims = _brute(texts, weights)
    got = {(int(a), int(b)): s for a, b, s in zip(found.a, found.b, found.similarity, strict=True)}
    for (a, b), s in got.items():
        assert a < b and s == pytest.approx(sims[a, b], abs=1e-9) and 0.0 < s <= 1.0
    for a in range(len(texts)):
        for b in range(a + 1, len(texts)):
            if abs(sims[a, b] - t) > 1e-9:  # a pair on the threshold may go either way
                assert ((a, b) in got) == (sims[a, b] >= t), (a, b, sims[a, b])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(1, 25), st.floats(0.05, 1.0), st.integers(0, 2**32 - 1))
def test_cosine_join_matches_brute_force(n, m, t, seed):
    rng = np.random.default_rng(seed)
    dense = rng.random((n, m)) * (rng.random((n, m)) < 0.4)
    dense[rng.integers(0, n)] = dense[0]  # a duplicate now and then
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    dense = np.divide(dense, norms, out=np.zeros_like(dense), where=norms > 0)
    rows, cols = np.nonzero(dense)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
    found = cosine_pairs(ptr, cols, dense[rows, cols], t)
    sims = dense @ dense.T
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    want = {(a, b) for a, b in pairs if sims[a, b] >= t + 1e-9}
    # On the threshold, or the same vector up to rounding (counted as 1.0): either way.
    maybe = {(a, b) for a, b in pairs if abs(sims[a, b] - t) <= 1e-9 or sims[a, b] >= 1 - 1e-9}
    got = set(zip(found.a.tolist(), found.b.tolist(), strict=True))
    assert want <= got and got <= want | maybe


def test_identical_pages_meet_at_threshold_one():
    texts = [PageText("the same words here, and more of them"), PageText("other text entirely"),
             PageText("the same words here, and more of them")]
    d = AnddDetector()
    found = d.find_pairs([d.featurize(t) for t in texts], 1.0)
    assert (found.a.tolist(), found.b.tolist(), found.similarity.tolist()) == ([0], [2], [1.0])


def test_weights_cut_to_zero_leave_the_vector():
    texts = [PageText("alpha beta gamma"), PageText("alpha beta delta")]
    m = gram_matrix([page_grams(t) for t in texts])
    # Only k-grams in more than one page keep a weight: bias - idf.
    w = AnddWeights.of(1, np.array([0.5 if n == "bias" else (-1.0 if n == "idf" else 0.0)
                                    for n in feature_names(1)]))
    ptr, col, val = weighted_rows(m, w)
    assert np.diff(ptr).tolist() == [2, 2] and np.allclose(val, math.sqrt(0.5))
    d = AnddDetector(w)
    assert d.find_pairs([d.featurize(t) for t in texts], 0.99).similarity.tolist() == [1.0]


def test_matching_reports_progress_and_stops_when_cancelled():
    d = AnddDetector()
    features = [d.featurize(PageText(f"story {i % 7} words {i % 3}")) for i in range(300)]
    seen: list[tuple[str, int, int | None]] = []
    d.find_pairs(features, 0.5, lambda stage, done, total: seen.append((stage, done, total)))
    assert seen[0] == ("match", 0, 300) and seen[-1] == ("match", 300, 300)

    def cancel(stage: str, done: int, total: int | None) -> None:
        if done > 0:
            raise Cancelled()

    with pytest.raises(Cancelled):
        d.find_pairs(features, 0.5, cancel)


def test_pages_without_text_are_in_no_pair():
    d = AnddDetector(k=3)
    texts = ["", "two words", "four words in all", "four words in all"]
    found = d.find_pairs([d.featurize(PageText(t)) for t in texts], 0.1)
    assert (found.a.tolist(), found.b.tolist()) == ([2], [3])
    assert len(d.find_pairs([], 0.5)) == 0
