"""Small multisets of signature ids for the join's property tests: as a matrix, and the
checksum groups of identical ones."""

from __future__ import annotations

import hashlib

import numpy as np

from workbench.detect.join.matcher import SignatureMatrix


def matrix_of(docs: list[dict[int, int]]) -> SignatureMatrix:
    vectors = []
    for d in docs:
        ids = np.array(sorted(d), dtype=np.int64)
        vectors.append((ids, np.array([d[i] for i in sorted(d)], dtype=np.int64)))
    return SignatureMatrix.from_vectors(vectors)


def checksum_groups(docs: list[dict[int, int]]) -> np.ndarray:
    """Per doc, a group number shared by the docs with the same multiset."""
    names = [hashlib.sha1(repr(sorted(d.items())).encode()).hexdigest() for d in docs]
    return np.unique(np.array(names), return_inverse=True)[1]
