"""Incremental matching: the pairs new pages bring equal what a full run adds to the old pairs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.detect.join.incremental import IncrementalIndex, find_new_pairs, find_pairs_touching
from workbench.detect.join.jaccard import brute_force_pairs
from workbench.detect.join.matcher import PairResult, SignatureMatrix, find_pairs

multiset = st.dictionaries(st.integers(0, 12), st.integers(1, 6), max_size=10)
taus = st.one_of(st.floats(0.01, 1.0), st.sampled_from([1.0, 0.5, 0.44, 0.35, 0.15, 0.8]))


def _vectors(docs: list[dict[int, int]], salt: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per page (64-bit ids, counts); ``salt`` spreads the small ids over the 64-bit space."""
    out = []
    for d in docs:
        keys = sorted(d)
        ids = np.array([(k * 0x9E3779B97F4A7C15 + salt) % (1 << 63) for k in keys], dtype=np.int64)
        out.append((ids, np.array([d[k] for k in keys], dtype=np.int64)))
    return out


def _matrix(docs: list[dict[int, int]]) -> SignatureMatrix:
    return SignatureMatrix.from_vectors(_vectors(docs))


def _with_unindexed(m: SignatureMatrix, extra: list[int]) -> SignatureMatrix:
    """Give each page signatures no other page has (they only lengthen it), as the
    pipeline leaves single-page signatures out of the index."""
    m.unindexed = np.array(extra, dtype=np.int64)
    return m


def _triples(result: PairResult) -> list[tuple[int, int, float]]:
    return list(zip(result.a.tolist(), result.b.tolist(), result.similarity.tolist(), strict=True))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(multiset, max_size=14), cut=st.integers(0, 14), tau=taus,
       extra=st.lists(st.integers(0, 3), min_size=14, max_size=14))
def test_old_pairs_and_new_pairs_make_the_full_run(docs, cut, tau, extra):
    first_new = min(cut, len(docs))
    m = _with_unindexed(_matrix(docs), extra[: len(docs)])
    old = _with_unindexed(_matrix(docs[:first_new]), extra[:first_new])
    new = find_new_pairs(m, first_new, tau)
    assert all(b >= first_new and a < b for a, b, _ in _triples(new))
    assert len(set(_triples(new))) == len(new)
    # Same pairs with the same similarities (to the last bit), sorted as a full run sorts.
    assert sorted(_triples(find_pairs(old, tau)) + _triples(new)) == _triples(find_pairs(m, tau))
    assert _triples(new) == sorted(_triples(new))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(multiset, min_size=1, max_size=14), cut=st.integers(0, 14), tau=taus)
def test_new_pairs_are_the_brute_force_pairs_with_a_new_page(docs, cut, tau):
    first_new = min(cut, len(docs))
    got = {(a, b): s for a, b, s in _triples(find_new_pairs(_matrix(docs), first_new, tau))}
    want = {k: s for k, s in brute_force_pairs(docs, tau).items() if k[1] >= first_new}
    assert set(got) == set(want)
    for key, sim in want.items():
        assert got[key] == pytest.approx(sim, abs=1e-9)


def test_pages_with_more_partners_than_the_outputs_start_with():
    # The outputs start with room for 64 pairs and grow once per probed page: here every
    # new page has over a hundred partners, old and new.
    docs = [{1: 2, 2: 1, 3: 1, 4: 1 + i % 3} for i in range(160)]
    got = {(a, b): s for a, b, s in _triples(find_new_pairs(_matrix(docs), 60, 0.3))}
    want = {k: s for k, s in brute_force_pairs(docs, 0.3).items() if k[1] >= 60}
    assert len(want) > 100 * 60
    assert set(got) == set(want)
    for key, sim in want.items():
        assert got[key] == pytest.approx(sim, abs=1e-9)


def test_old_pages_are_never_compared_with_one_another():
    alike = {1: 2, 2: 1, 3: 1, 4: 3}
    docs = [dict(alike) for _ in range(30)] + [{7: 1, 8: 2, 9: 1}]  # one new page, unlike them
    result = find_new_pairs(_matrix(docs), 30, 0.3)
    assert len(result) == 0
    assert result.candidates == 0
    assert len(find_pairs(_matrix(docs), 0.3)) == 30 * 29 // 2  # what a full run would compare


def test_a_new_page_finds_a_longer_old_partner():
    # The old page is the longer one: a full run finds this pair by probing from the old
    # page, so the new page's window must reach past its own length.
    docs = [{1: 4, 2: 4, 3: 2}, {1: 4, 2: 4}]
    result = find_new_pairs(_matrix(docs), 1, 0.5)
    assert _triples(result) == [(0, 1, 0.8)]


def test_bad_arguments_are_refused():
    m = _matrix([{1: 1}, {1: 1}])
    with pytest.raises(ValueError, match="tau"):
        find_new_pairs(m, 1, 0.0)
    with pytest.raises(ValueError, match="0..2"):
        find_new_pairs(m, 3, 0.5)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.lists(multiset, max_size=6), max_size=5), tau=taus)
def test_pages_added_batch_by_batch_give_the_pairs_of_one_full_run(batches, tau):
    """Each batch's own 64-bit ids (from_vectors renumbers them per batch), and signatures
    that only become shared when a later batch brings them again."""
    index = IncrementalIndex(tau)
    got: list[tuple[int, int, float]] = []
    for batch in batches:
        first = index.n
        pairs = index.add(SignatureMatrix.from_vectors(_vectors(batch)))
        assert all(b >= first for _, b, _ in _triples(pairs))
        got += _triples(pairs)
        assert index.n == first + len(batch)
    everything = [d for batch in batches for d in batch]
    assert sorted(got) == _triples(find_pairs(_matrix(everything), tau))


def test_an_index_refuses_pages_it_cannot_check_later():
    m = _matrix([{1: 1, 2: 1}, {1: 1}])
    m.unindexed = np.array([1, 0], dtype=np.int64)
    with pytest.raises(ValueError, match="unindexed"):
        IncrementalIndex(0.5).add(m)
    no_ids = SignatureMatrix(m.ptr, m.sig, m.cnt)
    with pytest.raises(ValueError, match="raw_ids"):
        IncrementalIndex(0.5).add(no_ids)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(multiset, min_size=1, max_size=14), st.data(), taus)
def test_pairs_touching_chosen_pages_complete_the_others_pairs(
        docs: list[dict[int, int]], data: st.DataObject, tau: float) -> None:
    """The pairs of the pages flagged new (anywhere in the matrix), with those of the
    other pages among themselves, are exactly a full run's; pages not active take no part."""
    m = _matrix(docs)
    n = len(docs)
    new = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    active = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    full = _triples(find_pairs(m, tau))
    touching = _triples(find_pairs_touching(m, new, tau, active=active))
    taking_part = [(a, b, s) for a, b, s in full if active[a] and active[b]]
    assert touching == [(a, b, s) for a, b, s in taking_part if new[a] or new[b]]
