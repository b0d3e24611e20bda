"""Giving identical pages their representative's pairs (matcher.finish_join) walks only the
pairs that touch a group of identical pages: at the end of a large join a Python object
per pair (three a pair, and a list entry for every page) was the largest thing the client
held (122 MB for 300,000 pairs over 400,000 pages)."""

from __future__ import annotations

import tracemalloc

import numpy as np

from workbench.detect.join.matcher import JoinPlan, PairResult, finish_join


def test_one_identical_page_among_many_pairs_costs_no_object_per_pair():
    n = 400_000
    rng = np.random.default_rng(1)
    rows = np.sort(rng.integers(0, n - 2, 300_000))
    similarity = rng.random(len(rows))
    rep = np.arange(n)
    rep[n - 1] = n - 2  # the last page is identical to the one before it
    plan = JoinPlan(np.arange(n), rep, np.ones(n, np.int64), None, np.float32, n, 256)
    arrays = 3 * len(rows) * 8

    tracemalloc.start()
    try:
        result = finish_join(plan, [(rows, rows + 1, similarity, 0)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert isinstance(result, PairResult)
    with_last = result.b == n - 1
    # The identical page has its twin's pair (n - 3, n - 2) if there is one, and 1.0 with it.
    assert (int(result.a[with_last][-1]), float(result.similarity[with_last][-1])) == (n - 2, 1.0)
    assert len(result) == len(rows) + 1 + int(np.sum(rows == n - 3))
    assert peak < 8 * arrays, f"{peak / 2**20:.0f} MB for {arrays / 2**20:.0f} MB of pairs"
