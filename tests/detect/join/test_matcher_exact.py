"""The matcher must return exactly the brute-force pair set (the exactness contract)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.detect.join.multisets import checksum_groups, matrix_of
from workbench.detect.join.jaccard import brute_force_pairs, multiset_jaccard
from workbench.detect.join.matcher import SignatureMatrix, find_pairs, intersections

multiset = st.dictionaries(st.integers(0, 12), st.integers(1, 6), max_size=10)




def _as_dict(result) -> dict[tuple[int, int], float]:
    return {(int(a), int(b)): float(s) for a, b, s in
            zip(result.a, result.b, result.similarity, strict=True)}


def _check(docs: list[dict[int, int]], tau: float, with_checksums: bool) -> None:
    groups = checksum_groups(docs) if with_checksums else None
    got = _as_dict(find_pairs(matrix_of(docs), tau, groups))
    want = brute_force_pairs(docs, tau)
    assert set(got) == set(want)
    for key, sim in want.items():
        assert got[key] == pytest.approx(sim, abs=1e-9)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=st.lists(multiset, max_size=14),
    tau=st.one_of(st.floats(0.01, 1.0), st.sampled_from([1.0, 0.5, 0.44, 0.8, 0.9, 0.25])),
    with_checksums=st.booleans(),
)
def test_pairs_equal_brute_force(docs, tau, with_checksums):
    _check(docs, tau, with_checksums)


@settings(max_examples=150, deadline=None)
@given(
    base=st.lists(multiset, min_size=1, max_size=5),
    copies=st.lists(st.integers(0, 4), max_size=8),
    tau=st.floats(0.05, 1.0),
)
def test_exact_duplicates_and_near_copies(base, copies, tau):
    docs = list(base) + [dict(base[c % len(base)]) for c in copies]
    _check(docs, tau, True)


def test_lengths_spanning_many_partitions():
    rng = np.random.default_rng(7)
    docs = []
    for _ in range(120):
        size = int(rng.integers(1, 60))
        ids = rng.integers(0, 40, size=size)
        d: dict[int, int] = {}
        for x in ids:
            d[int(x)] = d.get(int(x), 0) + 1
        docs.append(d)
    for tau in (0.3, 0.5, 0.7, 0.9, 1.0):
        _check(docs, tau, False)


def test_paper_line_17_counterexample_is_found():
    # d = {s1: 3, s2: 7}, d' = {s2: 7}: J = 0.7 >= 0.5; the paper's delta1 + delta2 break
    # would stop the s2 list before d' when the pair is only looked at from d's side.
    docs = [{1: 3, 2: 7}, {2: 7}, {1: 1, 3: 5}]
    got = _as_dict(find_pairs(matrix_of(docs), 0.5))
    assert got == {(0, 1): pytest.approx(0.7)}


def test_section_4_3_2_example():
    # SIGIR'08 §4.3.2: d1 = {s1:5, s2:4, s3:4}, d2 = {s1:8, s2:4}, d3 = {s1:4, s2:5, s3:5}.
    d1, d2, d3 = {1: 5, 2: 4, 3: 4}, {1: 8, 2: 4}, {1: 4, 2: 5, 3: 5}
    assert multiset_jaccard(d1, d3) == pytest.approx(0.8)
    assert multiset_jaccard(d1, d2) == pytest.approx(9 / 16)
    result = find_pairs(matrix_of([d1, d2, d3]), 0.8)
    assert _as_dict(result) == {(0, 2): pytest.approx(0.8)}
    # Prefixes (rarest first, |d| - ceil(0.8 |d|) + 1 items): d1 and d3 begin with s3, d2
    # with s1; only d1 and d3 share a prefix signature, so one pair of three is compared
    # (the paper's bounds compared two).
    assert result.candidates == 1


def test_empty_and_tiny_inputs():
    assert len(find_pairs(matrix_of([]), 0.5)) == 0
    assert len(find_pairs(matrix_of([{}, {}]), 0.5)) == 0
    assert _as_dict(find_pairs(matrix_of([{1: 1}, {1: 1}]), 1.0)) == {(0, 1): 1.0}


@pytest.mark.parametrize("tau", [0.0, -0.1, 1.01])
def test_bad_tau_is_refused(tau):
    with pytest.raises(ValueError, match="tau"):
        find_pairs(matrix_of([{1: 1}]), tau)


def test_unsorted_or_repeated_ids_are_merged_into_the_same_multiset():
    tidy = SignatureMatrix.from_vectors([(np.array([3, 9], np.int64), np.array([2, 1], np.int64)),
                                         (np.array([9], np.int64), np.array([4], np.int64))])
    messy = SignatureMatrix.from_vectors([(np.array([9, 3, 3], np.int64), np.array([1, 1, 1], np.int64)),
                                          (np.array([9], np.int64), np.array([4], np.int64))])
    for m in (tidy, messy):
        assert m.ptr.tolist() == [0, 2, 3]
        assert m.raw_ids[m.sig].tolist() == [3, 9, 9]
        assert m.cnt.tolist() == [2, 1, 4]


def _honest_matrix(docs: list[dict[int, int]]) -> SignatureMatrix:
    """Signatures on one page only stay in the page's length but leave the index."""
    m = matrix_of(docs)
    df = np.bincount(m.sig) if len(m.sig) else np.zeros(0, np.int64)
    return m.index_only((df >= 2)[m.sig]) if len(m.sig) else m


# Many ids on few pages: most signatures are on one page only, as on real crawls.
wide_multiset = st.dictionaries(st.integers(0, 60), st.integers(1, 5), max_size=14)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(wide_multiset, max_size=14),
       tau=st.one_of(st.floats(0.01, 1.0), st.sampled_from([1.0, 0.5, 0.2, 0.8])),
       with_checksums=st.booleans())
def test_unindexed_signatures_count_in_lengths_exactly_as_brute_force(docs, tau, with_checksums):
    groups = checksum_groups(docs) if with_checksums else None
    got = _as_dict(find_pairs(_honest_matrix(docs), tau, groups))
    want = brute_force_pairs(docs, tau)  # over the whole pages, own signatures included
    assert set(got) == set(want)
    for key, sim in want.items():
        assert got[key] == pytest.approx(sim, abs=1e-9)


def test_a_pages_own_signatures_keep_two_same_frame_pages_apart():
    # Two different stories in one frame share 4 frame signatures; each has 12 of its own.
    frame = {1: 1, 2: 1, 3: 1, 4: 1}
    a = frame | {100 + k: 1 for k in range(12)}
    b = frame | {200 + k: 1 for k in range(12)}
    m = _honest_matrix([a, b])
    assert m.lengths().tolist() == [16, 16]
    assert len(find_pairs(m, 0.2)) == 0  # 4 / 28 = 0.14
    # Measured without the own signatures (the old behaviour) they were identical.
    shrunk = matrix_of([frame, frame])
    assert _as_dict(find_pairs(shrunk, 0.2)) == {(0, 1): 1.0}


@settings(max_examples=200, deadline=None)
@given(docs=st.lists(multiset, min_size=1, max_size=8), data=st.data())
def test_intersections_are_the_shared_counts(docs, data):
    i = data.draw(st.lists(st.integers(0, len(docs) - 1), max_size=10))
    j = data.draw(st.lists(st.integers(0, len(docs) - 1), min_size=len(i), max_size=len(i)))
    got = intersections(matrix_of(docs), np.array(i, np.int64), np.array(j, np.int64)).tolist()
    want = [sum(min(c, docs[y].get(s, 0)) for s, c in docs[x].items()) for x, y in zip(i, j, strict=True)]
    assert got == want


@settings(max_examples=200, deadline=None)
@given(st.lists(multiset, max_size=12), st.lists(st.integers(0, 5), max_size=12))
def test_lengths_are_each_pages_counts_summed(docs, unindexed):
    """Empty pages anywhere (first, last, in a run) count 0 plus their unindexed items."""
    m = matrix_of(docs)
    if unindexed:
        extra = np.zeros(len(docs), dtype=np.int64)
        extra[: min(len(unindexed), len(docs))] = unindexed[: len(docs)]
        m.unindexed = extra
    want = [sum(d.values()) + (int(m.unindexed[i]) if m.unindexed is not None else 0)
            for i, d in enumerate(docs)]
    got = m.lengths()
    assert got.dtype == np.int64 and got.tolist() == want


@pytest.mark.parametrize("scale", [1, 100, 30_000])
def test_large_counts_and_long_pages_match_brute_force(scale):
    """The join keeps counts and positions in the narrowest type that holds them (uint8,
    uint16 or int32): counts past 255 and 65,535 and pages past 65,535 items are exact too."""
    rng = np.random.default_rng(scale)
    docs = []
    for _ in range(40):
        ids = rng.choice(30, size=int(rng.integers(3, 12)), replace=False)
        docs.append({int(i): int(rng.integers(1, 4)) * scale for i in ids})
    docs += [dict(d) for d in docs[:10]]  # exact copies (duplicate groups)
    for d in docs[:5]:
        d[99] = 3 * scale  # one count above the others
    for tau in (0.2, 0.5, 0.8):
        _check(docs, tau, False)
        _check(docs, tau, True)


@pytest.mark.parametrize("tau", [0.9, 0.99999])
def test_pages_longer_than_float32_holds_exactly_match_brute_force(tau):
    """Probing scans lengths and scores as float32 when every length is below 2**24: past
    that they must stay exact (a page of 2**24 + 1 items is no page of 2**24)."""
    big = 2**24
    docs = [{1: big, 2: 1}, {1: big}, {1: big, 3: 2}, {1: big - 1, 2: 1}, {4: 3}, {1: big, 2: 1, 5: 1}]
    _check(docs, tau, False)
    got = _as_dict(find_pairs(matrix_of(docs), tau))
    assert got[(0, 1)] == big / (big + 1)
    assert got[(0, 5)] == (big + 1) / (big + 2)  # a score of 2**24 + 1
