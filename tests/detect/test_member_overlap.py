"""A member matched through text that pages outside its cluster carry too is doubtful."""

from __future__ import annotations

import numpy as np

from workbench.core.records import Cluster
from workbench.detect.matcher import SignatureMatrix
from workbench.detect.member_overlap import boilerplate_shares, repeated_block_spots


def test_share_counts_signatures_in_blocks_found_outside_the_cluster():
    # Page 0 (reference) and 1 share story block 10 (signatures 1, 2); page 0 and 2 share
    # only gallery block 20 (signatures 5, 6), which page 3, outside the cluster, has too.
    spot_ids = [np.array([1, 2, 5, 6]), np.array([1, 2, 9]), np.array([5, 6, 7]), np.array([5, 6, 8])]
    spot_block = [np.array([0, 0, 1, 1]), np.array([0, 0, 1]), np.array([0, 0, 1]), np.array([0, 0, 1])]
    block_hashes = [np.array([10, 20]), np.array([10, 30]), np.array([20, 40]), np.array([20, 50])]
    spots, pages_with = repeated_block_spots(spot_ids, spot_block, block_hashes)
    assert pages_with[20] == 3 and pages_with[10] == 2
    vectors = [(np.unique(ids), np.ones(len(np.unique(ids)), np.int64)) for ids in spot_ids]
    matrix = SignatureMatrix.from_vectors(vectors)
    page_blocks = [frozenset(b for b in h.tolist() if pages_with[b] > 1) for h in block_hashes]
    cluster = Cluster(0, [0, 1, 2], [1.0, 0.4, 0.4])
    boilerplate_shares(matrix, [cluster], spots, page_blocks, pages_with)
    assert cluster.boilerplate_share == [None, 0.0, 1.0]
    # With page 3 in the cluster too, the gallery is no longer found outside it.
    cluster = Cluster(0, [0, 1, 2, 3], [1.0, 0.4, 0.4, 0.3])
    boilerplate_shares(matrix, [cluster], spots, page_blocks, pages_with)
    assert cluster.boilerplate_share == [None, 0.0, 0.0, 0.0]
