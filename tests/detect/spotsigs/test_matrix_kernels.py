"""The compiled passes over a matrix give what numpy's own functions give."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.detect.spotsigs import matrix_kernels
from workbench.detect.spotsigs.matrix_kernels import id_counts, row_sums


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 300), max_size=60), st.integers(0, 400),
       st.sampled_from([np.int32, np.int64, np.uint16]))
def test_id_counts_are_bincount(ids, minlength, dtype):
    arr = np.array(ids, dtype=dtype)
    want = np.bincount(arr.astype(np.int64), minlength=minlength)
    got = id_counts(arr, minlength)
    assert got.dtype == np.int64 and got.tolist() == want.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 70_000), max_size=6), max_size=10),
       st.sampled_from([np.int32, np.uint8, np.uint16]))
def test_row_sums_add_each_rows_counts(rows, dtype):
    rows = [[c % (np.iinfo(dtype).max + 1) for c in row] for row in rows]
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=ptr[1:])
    cnt = np.array([c for r in rows for c in r], dtype=dtype)
    got = row_sums(ptr, cnt)
    assert got.dtype == np.int64 and got.tolist() == [sum(r) for r in rows]


@pytest.mark.parametrize("seed", range(20))
def test_ranks_by_count_order_the_ids_as_a_stable_sort_of_their_counts(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    # Mostly rare ids, a few frequent ones, zeros (ids only inactive pages held): as a crawl's.
    counts = np.minimum(rng.zipf(1.6, size=n), 5000).astype(np.int64) - (rng.random(n) < 0.05)
    rank = matrix_kernels.ranks_by_count(counts)
    want = np.empty(n, dtype=np.int64)
    want[np.argsort(counts * max(n, 1) + np.arange(n))] = np.arange(n)  # by (count, id)
    assert rank.dtype == np.int32
    assert np.array_equal(rank, want)
