"""A signature matrix whose entries lie in a mapped file (a cluster run's, read a part at a
time and let go) answers every question as the same matrix in memory."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core import mapped_arrays
from workbench.core.clusters.own_text import OwnTextCheck
from workbench.core.mapped_arrays import mapped_empty, mapping_of
from workbench.detect.join.matcher import SignatureMatrix, find_pairs, intersections
from workbench.store.runs.signatures import RunSignatures, run_signatures, save_signatures


def _random_matrix(seed: int) -> SignatureMatrix:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    widths = rng.integers(0, 30, size=n)
    widths[rng.random(n) < 0.1] = 0  # empty rows anywhere
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(widths, out=ptr[1:])
    vocabulary = int(rng.integers(5, 200))
    sig = np.concatenate([np.sort(rng.choice(vocabulary, size=min(int(w), vocabulary), replace=False))
                          for w in widths] or [np.empty(0, np.int64)]).astype(np.int32)
    widths = np.array([min(int(w), vocabulary) for w in widths])
    np.cumsum(widths, out=ptr[1:])
    cnt = rng.integers(1, 4, size=len(sig)).astype(np.int32)
    base = rng.integers(0, n, size=max(n // 4, 1))  # some near copies, so there are pairs
    for copy, of in zip(rng.integers(0, n, size=len(base)), base, strict=True):
        a, b = slice(ptr[copy], ptr[copy + 1]), slice(ptr[of], ptr[of + 1])
        k = min(b.stop - b.start, a.stop - a.start)
        if k and np.array_equal(np.sort(sig[b][:k]), sig[b][:k]):
            sig[a.start : a.start + k], cnt[a.start : a.start + k] = sig[b][:k], cnt[b][:k]
            sig[a.start + k : a.stop] = np.sort(sig[a.start + k : a.stop])
    rows = [np.unique(sig[ptr[i] : ptr[i + 1]]) for i in range(n)]  # ascending, no repeats
    vectors = [(r.astype(np.int64), np.ones(len(r), np.int64)) for r in rows]
    m = SignatureMatrix.from_vectors(vectors)
    m.cnt[:] = rng.integers(1, 4, size=len(m.cnt))
    m.unindexed = rng.integers(0, 3, size=m.n).astype(np.int64)
    return m


def _mapped(m: SignatureMatrix, folder) -> SignatureMatrix:
    sig = mapped_empty(len(m.sig), m.sig.dtype, folder)
    cnt = mapped_empty(len(m.cnt), m.cnt.dtype, folder)
    sig[:], cnt[:] = m.sig, m.cnt
    return SignatureMatrix(m.ptr, sig, cnt, m.raw_ids, m.unindexed)


@pytest.mark.parametrize("seed", range(12))
def test_a_mapped_matrix_read_in_small_parts_answers_as_in_memory(tmp_path, monkeypatch, seed):
    monkeypatch.setattr(mapped_arrays, "PART_ITEMS", 7)  # many parts, rows across them
    monkeypatch.setattr(mapped_arrays.RowReads, "ROWS", 3)  # rows read a few at a time
    m = _random_matrix(seed)
    mapped = _mapped(m, tmp_path)
    assert len(m.sig) == 0 or mapping_of(mapped.sig) is not None
    assert mapped.n_signatures == m.n_signatures
    assert np.array_equal(mapped.lengths(), m.lengths())
    assert np.array_equal(mapped.id_counts(), np.bincount(m.sig, minlength=m.n_signatures))
    assert mapped.distinct_signatures() == len(np.unique(m.sig))
    for tau in (0.3, 0.6):
        want, got = find_pairs(m, tau), find_pairs(mapped, tau)
        assert np.array_equal(got.a, want.a) and np.array_equal(got.b, want.b)
        assert np.array_equal(got.similarity, want.similarity)
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, m.n, size=20), rng.integers(0, m.n, size=20)
    assert np.array_equal(intersections(mapped, i, j), intersections(m, i, j))
    here = OwnTextCheck(m.ptr, m.sig, m.unindexed)
    there = OwnTextCheck(mapped.ptr, mapped.sig, mapped.unindexed)
    for _ in range(10):
        side, other = rng.integers(0, m.n, size=3), rng.integers(0, m.n, size=2)
        assert there.own_share(side, other) == here.own_share(side, other)
    mapped.let_go()
    assert np.array_equal(mapped.sig, m.sig) and np.array_equal(mapped.cnt, m.cnt)


def test_sparse_ids_are_counted_distinct_by_sorting():
    m = SignatureMatrix(np.array([0, 2, 3], np.int64), np.array([5, 2**40, 5], np.int64),
                        np.ones(3, np.int64))
    assert m.distinct_signatures() == 2


def test_a_mapped_matrix_is_kept_in_the_project_whole(tmp_path, monkeypatch):
    import sqlite3

    monkeypatch.setattr("workbench.store.runs.signatures._PART_BYTES", 64)  # many parts
    m = _mapped(_random_matrix(3), tmp_path)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE run_signatures (run_id INTEGER, part TEXT, seq INTEGER, data BLOB)")
    save_signatures(conn, 1, RunSignatures(m.ptr, m.sig, m.unindexed))
    kept = run_signatures(conn, 1)
    assert kept is not None
    assert np.array_equal(kept.sig, m.sig) and np.array_equal(kept.ptr, m.ptr)
    assert np.array_equal(kept.unindexed, m.unindexed)
