"""A member matched through text that unrelated pages carry too is doubtful."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.records import Cluster
from workbench.detect.join.matcher import SignatureMatrix
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
