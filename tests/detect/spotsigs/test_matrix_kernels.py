"""The compiled passes over a matrix give what numpy's own functions give."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

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
