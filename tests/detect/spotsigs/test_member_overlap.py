"""A member matched through text that unrelated pages carry too is doubtful."""

from __future__ import annotations

import numpy as np
import pytest

from tests.resident_memory import linux_only, peak_before_let_go, resident_mb
from workbench.core.mapped_arrays import RowReads, let_go, mapped_empty
from workbench.core.records import Cluster
from workbench.detect.join.matcher import SignatureMatrix
from workbench.detect.spotsigs import member_overlap
from workbench.detect.spotsigs.member_overlap import (
    RepeatedBlocks,
    boilerplate_shares,
    repeated_blocks,
    with_matrix_ids,
)

# Page 0 (reference) and 1 share story block 10 (signatures 1, 2); page 0 and 2 share only
# gallery block 20 (signatures 5, 6), which page 3 carries too; page 4 is another copy of
# the story (block 10), split into a cluster of its own.
SPOT_IDS = [np.array([1, 2, 5, 6]), np.array([1, 2, 9]), np.array([5, 6, 7]), np.array([5, 6, 8]),
            np.array([1, 2, 11])]
SPOT_BLOCK = [np.array([0, 0, 1, 1]), np.array([0, 0, 1]), np.array([0, 0, 1]), np.array([0, 0, 1]),
              np.array([0, 0, 1])]
BLOCKS = [np.array([10, 20]), np.array([10, 30]), np.array([20, 40]), np.array([20, 50]), np.array([10, 60])]


def _matrix() -> SignatureMatrix:
    return SignatureMatrix.from_vectors([(np.unique(ids), np.ones(len(np.unique(ids)), np.int64))
                                         for ids in SPOT_IDS])


def test_share_counts_signatures_in_blocks_that_unrelated_pages_carry():
    repeated = repeated_blocks(SPOT_IDS, SPOT_BLOCK, BLOCKS, [None] * len(BLOCKS))
    assert repeated.pages_of(20).tolist() == [0, 2, 3] and repeated.pages_of(10).tolist() == [0, 1, 4]
    # Page 4 is paired with the reference (a copy of its story); page 3 is not.
    pairs_a, pairs_b = np.array([0, 0, 0]), np.array([1, 2, 4])
    cluster = Cluster(0, [0, 1, 2], [1.0, 0.4, 0.4])
    boilerplate_shares(_matrix(), [cluster], repeated, pairs_a, pairs_b)
    assert cluster.boilerplate_share == [None, 0.0, 1.0]
    # Without the pair to page 4, the story block is found on an unrelated page too.
    cluster = Cluster(0, [0, 1, 2], [1.0, 0.4, 0.4])
    boilerplate_shares(_matrix(), [cluster], repeated, pairs_a[:2], pairs_b[:2])
    assert cluster.boilerplate_share == [None, 1.0, 1.0]
    # With page 3 paired with the reference too, nothing is found outside its copies.
    cluster = Cluster(0, [0, 1, 2], [1.0, 0.4, 0.4])
    boilerplate_shares(_matrix(), [cluster], repeated, np.array([0, 0, 0, 0]), np.array([1, 2, 3, 4]))
    assert cluster.boilerplate_share == [None, 0.0, 0.0]


def test_blocks_the_run_left_out_are_not_counted():
    # Page 3's gallery block is boilerplate there (masked): only pages 0 and 2 carry it
    # among the compared blocks, both in the cluster, so nothing is found elsewhere.
    masks = [None, None, None, np.array([True, False]), None]
    repeated = repeated_blocks(SPOT_IDS, SPOT_BLOCK, BLOCKS, masks)
    assert repeated.pages_of(20).tolist() == [0, 2]
    cluster = Cluster(0, [0, 1, 2], [1.0, 0.4, 0.4])
    boilerplate_shares(_matrix(), [cluster], repeated, np.array([0, 0, 0]), np.array([1, 2, 4]))
    assert cluster.boilerplate_share == [None, 0.0, 0.0]


def test_concatenating_while_freeing_gives_np_concatenate_and_empties_the_list():
    from workbench.detect.spotsigs.member_overlap import _concatenate_freeing

    parts = [np.array([3, 1], np.int64), np.empty(0, np.int64), np.array([7], np.int64)]
    want = np.concatenate(parts)
    got = _concatenate_freeing(parts, np.int64)
    assert got.tolist() == want.tolist() and got.dtype == np.int64
    assert parts == []
    assert _concatenate_freeing([], np.int32).dtype == np.int32


@pytest.mark.parametrize("n_ids", [0, 1, 7, 5_000])
def test_matrix_ids_are_each_known_spots_position_among_the_raw_ids(n_ids):
    """Many ids and spots, half of them unknown: every probe of the id table is tried."""
    rng = np.random.default_rng(n_ids)
    raw_ids = np.unique(rng.integers(-2**63, 2**63 - 1, n_ids, dtype=np.int64))
    unknown = rng.integers(-2**63, 2**63 - 1, 1_000, dtype=np.int64)
    pool = np.concatenate([raw_ids, unknown[~np.isin(unknown, raw_ids)]])
    sizes = rng.integers(0, 30, 400)
    sig_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    sig_id = rng.choice(pool, int(sizes.sum()))
    sig_block = rng.integers(0, 100, len(sig_id)).astype(np.int32)
    table = RepeatedBlocks(np.arange(100, dtype=np.int64), np.full(100, 2, np.int64), np.zeros(401, np.int64),
                           np.empty(0, np.int32), sig_ptr, sig_id, sig_block)
    got = with_matrix_ids(table, raw_ids)
    known = np.isin(sig_id, raw_ids)
    assert got.matrix_ids and got.sig_id.dtype == np.int32
    assert got.sig_id.tolist() == np.searchsorted(raw_ids, sig_id[known]).tolist()
    assert got.sig_block.tolist() == sig_block[known].tolist()
    page = np.repeat(np.arange(400), sizes)
    assert np.diff(got.sig_ptr).tolist() == np.bincount(page[known], minlength=400).tolist()


@linux_only
def test_the_shares_read_a_mapped_matrix_a_few_rows_at_a_time(tmp_path, monkeypatch):
    # A cluster run's matrix lies in a mapped file; the shares' slots are pages all over it.
    # Read at once, they brought most of it into memory (+361 MB at 300,000 small pages).
    rows, width = 2**20, 16  # 64 MB an array
    sig = mapped_empty(rows * width, np.int32, tmp_path)
    cnt = mapped_empty(rows * width, np.int32, tmp_path)
    sig[:] = np.tile(np.arange(width, dtype=np.int32), rows)
    cnt[:] = 1
    let_go(sig, cnt)
    m = SignatureMatrix(np.arange(rows + 1, dtype=np.int64) * width, sig, cnt)
    slot_page = np.random.default_rng(0).integers(0, rows, size=20_000)
    slot_width = np.full(len(slot_page), width, dtype=np.int64)
    slot_ptr = np.arange(len(slot_page) + 1, dtype=np.int64) * width
    monkeypatch.setattr(RowReads, "ROWS", 64)
    before = resident_mb()
    seen = peak_before_let_go(monkeypatch)
    got_sig, got_cnt = member_overlap._slot_rows(m, slot_page, slot_width, slot_ptr)
    assert np.array_equal(got_sig, np.tile(np.arange(width, dtype=np.int32), len(slot_page)))
    assert got_cnt.sum() == len(slot_page) * width
    # 64 rows of each array: up to 4 MB each (64 KB a fault). Read at once: 128 MB.
    assert max([*seen, resident_mb()]) - before < 24
