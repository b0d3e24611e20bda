"""The array version of the doubtful-member shares must give exactly what the loop version
(tests/detect/spotsigs/member_overlap_reference.py, the definition) gives, on random corpora."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.detect.spotsigs.member_overlap_reference import (
    ReferenceRepeatedBlocks,
    only_rows_asked,
    reference_boilerplate_shares,
    reference_repeated_blocks,
)
from workbench.core.mapped_arrays import RowReads, mapped_empty
from workbench.core.records import Cluster
from workbench.detect.join.matcher import SignatureMatrix
from workbench.detect.spotsigs import member_overlap
from workbench.detect.spotsigs.extract import ExtractedPage
from workbench.detect.spotsigs.member_overlap import (
    RepeatedBlocks,
    boilerplate_shares,
    repeated_blocks,
    with_matrix_ids,
)

# Few distinct block hashes and spot ids, so that blocks repeat across (and within) pages
# and pages share signatures; spread over the 64-bit range, negative ones included. A
# block's spots are mostly its own text's (the same on every page that carries it), some
# drawn from a pool every block shares.
_HASHES = [7, -3, 2**62 + 11, -(2**63), 40, 41, 2**63 - 1, 12, 13, 14, -15, 2**40, 99, 100]
_SPOTS = [5, -1, 2**61, 9, 2**63 - 2, -(2**62), 77, 3]
_OWN = {h: [(k * 2**58 + i * 1000 + 17) * (-1) ** i for i in range(3)] for k, h in enumerate(_HASHES)}


@st.composite
def _page(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(spot ids, spot block, block hashes, left-out mask or None) of one page."""
    hashes = draw(st.lists(st.sampled_from(_HASHES), min_size=draw(st.integers(0, 1)), max_size=6))
    n_spots = draw(st.integers(0, 20)) if hashes else 0
    where = draw(st.lists(st.integers(0, max(len(hashes) - 1, 0)), min_size=n_spots, max_size=n_spots))
    # Choice k < 3: the block's own k-th spot; otherwise one of the shared pool.
    choice = draw(st.lists(st.integers(0, 2 + len(_SPOTS)), min_size=n_spots, max_size=n_spots))
    ids = [_OWN[hashes[w]][k] if k < 3 else _SPOTS[k - 3] for w, k in zip(where, choice, strict=True)]
    # Mostly compared: a quarter of the blocks left out when the page has a mask.
    mask = draw(st.none() | st.lists(st.integers(0, 3).map(lambda k: k == 3), min_size=len(hashes),
                                     max_size=len(hashes)))
    return (np.array(ids, np.int64), np.array(where, np.int32), np.array(hashes, np.int64),
            None if mask is None else np.array(mask, dtype=bool))


@st.composite
def _corpus(draw: st.DrawFn) -> dict:
    pages = draw(st.lists(_page(), min_size=draw(st.integers(0, 2)), max_size=12))
    n = len(pages)
    # Clusters as the pipeline makes them (disjoint, reference first), or freer ones
    # (overlapping, the reference anywhere in the members or not among them at all).
    clusters: list[tuple[int, list[int]]] = []
    if n:
        if draw(st.booleans()):
            order = draw(st.permutations(range(n)))
            cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
            for lo, hi in zip([0, *cuts], [*cuts, n], strict=True):
                if hi - lo >= 1 and draw(st.booleans()):
                    clusters.append((order[lo], list(order[lo:hi])))
        else:
            for _ in range(draw(st.integers(0, 3))):
                members = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5))
                clusters.append((draw(st.integers(0, n - 1)), members))
    pairs = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))),
                          max_size=12)) if n else []
    pairs = [(min(a, b), max(a, b)) for a, b in pairs if a != b]
    return {"pages": pages, "clusters": clusters, "pairs": pairs,
            "drop_seed": draw(st.integers(0, 2**32 - 1)), "drop": draw(st.sampled_from([0.0, 0.3, 0.6]))}


def _matrix(pages: list, drop: float, seed: int) -> SignatureMatrix:
    """The matrix as the pipeline builds it: each page's spots without its left-out
    blocks (``ExtractedPage.vector``), raw ids = spot ids; some entries dropped afterwards
    as the IDF filter does, so ``raw_ids`` keeps ids no page has any more."""
    vectors = [ExtractedPage.of(None, ids, where, hashes).vector(mask)  # type: ignore[arg-type]
               for ids, where, hashes, mask in pages]
    matrix = SignatureMatrix.from_vectors(vectors)
    if drop and len(matrix.sig):
        # As the IDF filter does: some signatures leave every page.
        gone = np.random.default_rng(seed).random(matrix.n_signatures) < drop
        matrix = matrix.select_entries(~gone[matrix.sig])
    return matrix


def _same_blocks(new: RepeatedBlocks, old: ReferenceRepeatedBlocks) -> None:
    assert new.block_ids.tolist() == sorted(old.pages_of)
    for block, pages in old.pages_of.items():
        assert new.pages_of(block).tolist() == pages.tolist()
    assert new.n_pages == len(old.signatures)
    for p, (sigs, blocks) in enumerate(old.signatures):
        lo, hi = new.sig_ptr[p], new.sig_ptr[p + 1]
        got = list(zip(new.sig_id[lo:hi].tolist(), new.block_ids[new.sig_block[lo:hi]].tolist(), strict=True))
        assert got == list(zip(sigs.tolist(), blocks.tolist(), strict=True))


def _check(corpus: dict, chunk: int) -> None:
    """Both versions on the corpus, the array one taking ``chunk`` rows at a time (tiny
    chunks walk the loops over page, hash-range, cluster and pair chunks)."""
    saved = member_overlap._CHUNK_ROWS
    member_overlap._CHUNK_ROWS = chunk
    try:
        _check_both(corpus)
    finally:
        member_overlap._CHUNK_ROWS = saved


def _check_both(corpus: dict) -> None:
    pages = corpus["pages"]
    spot_ids = [p[0] for p in pages]
    spot_block = [p[1] for p in pages]
    hashes = [p[2] for p in pages]
    masks = [p[3] for p in pages]
    new = repeated_blocks(spot_ids, spot_block, hashes, masks)
    old = reference_repeated_blocks(spot_ids, spot_block, hashes, masks)
    _same_blocks(new, old)

    matrix = _matrix(pages, corpus["drop"], corpus["drop_seed"])
    a = np.array([p[0] for p in corpus["pairs"]], dtype=np.int64)
    b = np.array([p[1] for p in corpus["pairs"]], dtype=np.int64)
    got = [Cluster(ref, list(members)) for ref, members in corpus["clusters"]]
    want = [Cluster(ref, list(members)) for ref, members in corpus["clusters"]]
    boilerplate_shares(matrix, got, new, a, b)
    reference_boilerplate_shares(matrix, want, old, a, b)
    # Weights are integer counts, so the sums are exact: the shares must be equal floats.
    assert [c.boilerplate_share for c in got] == [c.boilerplate_share for c in want]
    # The run keeps the table with the matrix's ids (and only the spots the matrix has):
    # the same shares.
    dense = with_matrix_ids(new, matrix.raw_ids)
    assert dense.matrix_ids and dense.sig_id.dtype == np.int32 and len(dense.sig_ptr) == len(new.sig_ptr)
    again = [Cluster(ref, list(members)) for ref, members in corpus["clusters"]]
    boilerplate_shares(matrix, again, dense, a, b)
    assert [c.boilerplate_share for c in again] == [c.boilerplate_share for c in want]
    # A table read only for the pages asked for (as a cluster run's files give it): the
    # same shares, so boilerplate_shares asks for every row it reads.
    asked = [Cluster(ref, list(members)) for ref, members in corpus["clusters"]]
    boilerplate_shares(matrix, asked, _OnlyAsked(dense), a, b)
    assert [c.boilerplate_share for c in asked] == [c.boilerplate_share for c in want]
    for g in got:
        assert g.boilerplate_share is None or all(s is None or type(s) is float for s in g.boilerplate_share)
    # A matrix in a mapped file (a cluster run's), its rows read two at a time and let go:
    # the same shares.
    mapped = SignatureMatrix(matrix.ptr, mapped_empty(len(matrix.sig), matrix.sig.dtype),
                             mapped_empty(len(matrix.cnt), matrix.cnt.dtype), matrix.raw_ids,
                             matrix.unindexed)
    mapped.sig[:], mapped.cnt[:] = matrix.sig, matrix.cnt
    there = [Cluster(ref, list(members)) for ref, members in corpus["clusters"]]
    saved_rows, RowReads.ROWS = RowReads.ROWS, 2
    try:
        boilerplate_shares(mapped, there, new, a, b)
    finally:
        RowReads.ROWS = saved_rows
    assert [c.boilerplate_share for c in there] == [c.boilerplate_share for c in want]


class _OnlyAsked:
    """A ``RepeatedSource`` that gives, of ``table``, only the rows asked for: every other
    page's spot and block rows empty."""

    def __init__(self, table: RepeatedBlocks) -> None:
        self.table = table

    @property
    def n_pages(self) -> int:
        return self.table.n_pages

    def for_pages(self, spots: np.ndarray, blocks: np.ndarray) -> RepeatedBlocks:
        return only_rows_asked(self.table, spots, blocks)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=_corpus(), chunk=st.sampled_from([1, 3, 10, 4_000_000]))
def test_shares_equal_the_loop_version(corpus, chunk):
    _check(corpus, chunk)


def _seeded_corpus(rng: np.random.Generator) -> dict:
    """A corpus drawn evenly (hypothesis favours small and boundary values, and missed
    cases these find: a flagged signature whose dense id is beyond the matrix's largest)."""
    n = int(rng.integers(2, 10))
    pages = []
    for _ in range(n):
        hashes = rng.choice(np.array(_HASHES, dtype=np.int64), int(rng.integers(1, 5)))
        where = rng.integers(0, len(hashes), int(rng.integers(0, 15))).astype(np.int32)
        choice = rng.integers(0, 3 + len(_SPOTS), len(where))
        ids = np.array([_OWN[int(hashes[w])][k] if k < 3 else _SPOTS[k - 3]
                        for w, k in zip(where.tolist(), choice.tolist(), strict=True)], dtype=np.int64)
        pages.append((ids, where, hashes, None if rng.random() < 0.5 else rng.random(len(hashes)) < 0.3))
    order = rng.permutation(n).tolist()
    cuts = sorted(rng.integers(0, n, 3).tolist())
    clusters = [(order[lo], order[lo:hi]) for lo, hi in zip([0, *cuts], [*cuts, n], strict=True) if hi > lo]
    a, b = rng.integers(0, n, 10), rng.integers(0, n, 10)
    pairs = [(min(x, y), max(x, y)) for x, y in zip(a.tolist(), b.tolist(), strict=True) if x != y]
    return {"pages": pages, "clusters": clusters, "pairs": pairs,
            "drop_seed": int(rng.integers(0, 2**32)), "drop": float(rng.choice([0.0, 0.3, 0.6]))}


def test_shares_equal_the_loop_version_on_seeded_corpora():
    rng = np.random.default_rng(20240601)
    for k in range(1500):
        _check(_seeded_corpus(rng), chunk=[1, 4, 4_000_000][k % 3])
