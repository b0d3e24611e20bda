"""distinct() gives np.unique's values, by sorting instead of numpy 2.3's hash set."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from workbench.core.distinct import count_distinct, distinct

_INTEGER_TYPES = st.sampled_from([np.int64, np.int32, np.uint64, np.uint8, np.bool_])


@settings(max_examples=300, deadline=None)
@given(_INTEGER_TYPES.flatmap(lambda t: hnp.arrays(t, hnp.array_shapes(min_dims=1, max_dims=2, min_side=0,
                                                                      max_side=40))))
def test_distinct_is_np_unique_for_integers(values):
    got = distinct(values)
    want = np.unique(values)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    assert count_distinct(values) == len(want)


def test_floats_keep_np_uniques_treatment_of_nan():
    values = np.array([2.0, np.nan, 1.0, np.nan, 2.0])
    got = distinct(values)
    assert got[:2].tolist() == [1.0, 2.0] and len(got) == 3 and np.isnan(got[2])


def test_a_large_array_with_repeats():
    rng = np.random.default_rng(3)
    values = rng.integers(-2**62, 2**62, 50_000)[rng.integers(0, 50_000, 200_000)]
    assert np.array_equal(distinct(values), np.unique(values))
