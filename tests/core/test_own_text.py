"""Weak joins checked against the pages' own text (workbench.core.clusters.own_text)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.clusters.clustering import cluster_pairs
from workbench.core.clusters.own_text import OwnTextCheck
from workbench.detect.join.matcher import SignatureMatrix
from workbench.detect.spotsigs.params import SpotSigsParams

STORY_A, STORY_B, SHARED = range(0, 10), range(20, 30), range(10, 15)


def _matrix(rows: list[list[int]], unindexed: list[int] | None = None) -> SignatureMatrix:
    ptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    sig = np.concatenate([np.array(sorted(r), dtype=np.int32) for r in rows])
    return SignatureMatrix(ptr, sig, np.ones(len(sig), np.int32), None,
                           None if unindexed is None else np.array(unindexed, np.int64))


def _check(matrix: SignatureMatrix) -> OwnTextCheck:
    return OwnTextCheck(matrix.ptr, matrix.sig, matrix.unindexed_counts())


def _two_clusters_of_one_story(elsewhere: bool) -> SignatureMatrix:
    """Pages 0-3 copy story A, pages 4-7 story B, and both carry the same shared
    paragraph. With ``elsewhere``, pages 8 and 9 carry A and B among other text (the
    stories are found outside the two clusters); without, they carry other text only."""
    first = [[*STORY_A, *SHARED] for _ in range(4)]
    second = [[*STORY_B, *SHARED] for _ in range(4)]
    if elsewhere:
        others = [[*STORY_A, *range(30, 40)], [*STORY_B, *range(40, 50)]]
    else:
        others = [list(range(30, 40)), list(range(40, 50))]
    return _matrix(first + second + others)


def _weakly_linked_pairs() -> tuple[list[int], list[int], list[float]]:
    first, second = range(0, 4), range(4, 8)
    pairs = [(x, y, 0.9) for group in (first, second) for x in group for y in group if x < y]
    pairs += [(x, y, 0.2) for x in first for y in second]
    a, b, s = zip(*pairs, strict=True)
    return list(a), list(b), list(s)


def test_own_share_is_what_no_page_outside_the_two_groups_has():
    check = _check(_two_clusters_of_one_story(elsewhere=True))
    # Cluster 0-3 lacks story B, which page 9 also has: none of it is the cluster's own.
    assert check.own_share(range(0, 4), range(4, 8)) == 0.0
    assert check.own_share(range(4, 8), range(0, 4)) == 0.0
    alone = _check(_two_clusters_of_one_story(elsewhere=False))
    assert alone.own_share(range(0, 4), range(4, 8)) == 1.0
    # Nothing unshared: nothing speaks against the join.
    assert alone.own_share([0], [1, 2]) == 1.0


def test_own_share_counts_part_of_the_text_and_single_page_signatures():
    # Page 2 shares 0-4 with page 0; of the rest, 5-6 are on page 1 too, 7-9 nowhere else,
    # and 4 more signatures are on page 2 only (left out of the index).
    m = _matrix([[0, 1, 2, 3, 4], [5, 6, 50], list(range(10))], unindexed=[0, 0, 4])
    check = _check(m)
    assert check.own_share([2], [0]) == pytest.approx((3 + 4) / (5 + 4))
    # The other way round the first page has nothing page 2 lacks.
    assert check.own_share([0], [2]) == 1.0


def test_the_default_keeps_two_clusters_that_share_one_story_apart():
    """gensmall's failure: copies of two different splices that share one story are all
    about 0.2 similar across; unchecked weak joins merged such clusters (precision .55)."""
    p = SpotSigsParams()
    a, b, s = _weakly_linked_pairs()
    vouch = _check(_two_clusters_of_one_story(elsewhere=True)).vouch(p.weak_join_own_text)
    got = cluster_pairs("star", 10, a, b, s, p.corroborate_below, p.tau, p.weak_join, vouch)
    assert sorted(sorted(c.members) for c in got) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # The same graph where what each cluster does not share is its own: one story's copies,
    # split around two references, are merged.
    vouch = _check(_two_clusters_of_one_story(elsewhere=False)).vouch(p.weak_join_own_text)
    got = cluster_pairs("star", 10, a, b, s, p.corroborate_below, p.tau, p.weak_join, vouch)
    assert [sorted(c.members) for c in got] == [list(range(8))]


def test_a_page_joins_only_when_its_unshared_text_is_its_own():
    # Cluster 0-2 at >= tau; page 3 is 0.2 similar to all three members.
    pairs = [(0, 1, 0.8), (0, 2, 0.7), (1, 2, 0.6), (0, 3, 0.2), (1, 3, 0.2), (2, 3, 0.2)]
    a, b, s = (list(t) for t in zip(*pairs, strict=True))
    cluster = [[*STORY_A] for _ in range(3)]
    rewrite = _matrix([*cluster, [0, 1, 2, *range(60, 70)], [70, 71]])
    roundup = _matrix([*cluster, [0, 1, 2, *range(60, 70)], [*range(60, 70), 71]])
    p = SpotSigsParams()
    for matrix, members in ((rewrite, [0, 1, 2, 3]), (roundup, [0, 1, 2])):
        vouch = _check(matrix).vouch(p.weak_join_own_text)
        got = cluster_pairs("star", 5, a, b, s, p.corroborate_below, p.tau, p.weak_join, vouch)
        assert [sorted(c.members) for c in got] == [members]


def test_runs_recorded_before_the_check_read_back_unchecked():
    from workbench.detect.spotsigs.params import params_from_record

    assert params_from_record(SpotSigsParams().to_dict()) == SpotSigsParams()
    older = SpotSigsParams().to_dict()
    del older["weak_join_own_text"]
    assert params_from_record(older).weak_join_own_text == 0.0
    del older["weak_join"]
    assert params_from_record(older).weak_join == 0.0


def _own_share_by_sets(rows: list[list[int]], unindexed: list[int], side: list[int],
                       other: list[int]) -> float:
    """The definition, written with sets: the reference for the compiled check."""
    lacking = set().union(*(rows[p] for p in side)) - set().union(*(rows[p] for p in other))
    groups = set(side) | set(other)
    elsewhere = {s for s in lacking if any(s in rows[p] for p in range(len(rows)) if p not in groups)}
    total = len(lacking) + sum(unindexed[p] for p in side)
    return 1.0 if total == 0 else (total - len(elsewhere)) / total


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sets(st.integers(0, 25), min_size=1, max_size=12), min_size=3, max_size=9),
       st.data())
def test_the_compiled_check_agrees_with_the_definition(rows, data):
    rows = [sorted(r) for r in rows]
    unindexed = data.draw(st.lists(st.integers(0, 3), min_size=len(rows), max_size=len(rows)))
    pages = data.draw(st.permutations(range(len(rows))))
    cut = data.draw(st.integers(1, len(rows) - 1))
    end = data.draw(st.integers(cut + 1, len(rows)))
    side, other = list(pages[:cut]), list(pages[cut:end])
    check = _check(_matrix(rows, unindexed))
    # Asked twice and after another question: the marks of one check never leak into the next.
    for _ in range(2):
        assert check.own_share(side, other) == pytest.approx(_own_share_by_sets(rows, unindexed, side, other))
        check.own_share(other, side)


def test_counting_the_pages_of_each_signature_makes_no_copy_of_the_matrix():
    # np.bincount copied the int32 ids as int64: 8 bytes an entry for a moment, the
    # client's peak at a million small pages. Counted in place it is 8 bytes an id.
    import tracemalloc

    rng = np.random.default_rng(3)
    pages, per_page, ids = 20_000, 50, 5_000
    sig = np.concatenate([np.sort(rng.choice(ids, per_page, replace=False)) for _ in range(pages)]
                         ).astype(np.int32)
    ptr = np.arange(0, len(sig) + 1, per_page, dtype=np.int64)
    OwnTextCheck(ptr, sig, np.zeros(pages, np.int64))  # compiled before it is measured
    tracemalloc.start()
    check = OwnTextCheck(ptr, sig, np.zeros(pages, np.int64))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert check._pages_with.tolist() == np.bincount(sig, minlength=ids).tolist()
    assert peak < 2 * len(sig), f"{peak / len(sig):.1f} bytes an entry"
