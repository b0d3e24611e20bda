"""The one-pass filters and the page-by-page builder give the matrix the numpy chain gave."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.detect.join.matcher import MatrixBuilder, SignatureMatrix
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import idf_flags, idf_keep

pages = st.lists(st.dictionaries(st.integers(-2**62, 2**62), st.integers(1, 5), max_size=12), max_size=30)


def _vectors(docs):
    out = []
    for d in docs:
        ids = np.array(sorted(d), dtype=np.int64)
        out.append((ids, np.array([d[i] for i in sorted(d)], dtype=np.int64)))
    return out


def _same(a: SignatureMatrix, b: SignatureMatrix) -> None:
    assert np.array_equal(a.ptr, b.ptr) and np.array_equal(a.sig, b.sig) and np.array_equal(a.cnt, b.cnt)
    assert np.array_equal(a.unindexed_counts(), b.unindexed_counts())
    assert (a.raw_ids is None) == (b.raw_ids is None)
    if a.raw_ids is not None:
        assert np.array_equal(a.raw_ids, b.raw_ids)


@settings(max_examples=200, deadline=None)
@given(pages)
def test_the_builder_numbers_ids_as_np_unique_does(docs):
    vectors = _vectors(docs)
    built = SignatureMatrix.from_vectors(list(vectors))
    raw = np.concatenate([v[0] for v in vectors]) if vectors else np.empty(0, np.int64)
    uniq, dense = np.unique(raw, return_inverse=True)
    assert np.array_equal(built.sig, dense.ravel())
    assert np.array_equal(built.raw_ids if len(raw) else uniq, uniq)


def test_the_builder_sorts_pages_given_out_of_order():
    builder = MatrixBuilder(1, 3)
    builder.add(np.array([9, 3, 5], np.int64), np.array([1, 2, 3], np.int64))
    m = builder.finish()
    assert m.raw_ids[m.sig].tolist() == [3, 5, 9] and m.cnt.tolist() == [2, 3, 1]


def test_the_built_matrix_holds_int32_ids_and_counts_with_spare_room_let_go():
    builder = MatrixBuilder(2, 10)  # room for 10 entries, 3 used
    builder.add(np.array([2**40, 7], np.int64), np.array([1, 2**40], np.int64))
    builder.add(np.array([7], np.int64), np.array([3], np.int64))
    m = builder.finish()
    assert m.sig.dtype == np.int32 and m.cnt.dtype == np.int32
    assert len(m.cnt) == 3 and m.cnt.base is None  # not a view keeping all 10 alive
    assert m.cnt.tolist() == [2**31 - 1, 1, 3]  # a count past int32 is kept at its largest
    assert m.lengths().tolist() == [2**31, 3]


@settings(max_examples=200, deadline=None)
@given(pages, st.floats(0.0, 1.0), st.integers(0, 6), st.integers(2, 60))
def test_filtered_is_select_entries_then_index_only_then_select_rows(docs, idf_low, min_sigs, idf_min):
    params = SpotSigsParams(idf_low=min(idf_low, 0.85), min_sigs=min_sigs, idf_min_pages=idf_min)
    m = SignatureMatrix.from_vectors(_vectors(docs))
    counted, indexed, _ = idf_keep(m, params)
    chain = m.select_entries(counted).index_only(indexed[counted])
    lengths = chain.lengths()
    keep = lengths >= max(min_sigs, 1)
    expected = chain.select_rows(keep)

    per_sig_counted, per_sig_indexed, _ = idf_flags(m, params)
    seen = []

    def usable(found: np.ndarray) -> np.ndarray:
        seen.append(found)
        return found >= max(min_sigs, 1)

    got, got_lengths = m.filtered(per_sig_counted, per_sig_indexed, usable)
    assert np.array_equal(got_lengths, lengths) and np.array_equal(seen[0], lengths)
    _same(got, expected)


@settings(max_examples=100, deadline=None)
@given(pages, st.integers(1, 7))
def test_the_builder_numbers_ids_the_same_chunk_by_chunk(docs, chunk):
    """A matrix of a million pages is made dense in chunks of millions of entries: here in
    chunks of a few, so that ids repeat across chunks and a chunk may hold one id."""
    from workbench.detect.join import matcher

    vectors = _vectors(docs)
    saved = matcher._CHUNK
    matcher._CHUNK = chunk
    try:
        built = SignatureMatrix.from_vectors(list(vectors))
    finally:
        matcher._CHUNK = saved
    raw = np.concatenate([v[0] for v in vectors]) if vectors else np.empty(0, np.int64)
    uniq, dense = np.unique(raw, return_inverse=True)
    assert np.array_equal(built.sig, dense.ravel())
    if len(raw):
        assert np.array_equal(built.raw_ids, uniq)
