"""A page's spot arrays, packed in one buffer, read back as they were given."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.records import PageInfo, RawPage
from workbench.detect.spotsigs.extract import (
    ExtractedPage,
    PageArrays,
    extract_batch,
    page_multisets,
    share_buffer,
)
from workbench.detect.spotsigs.params import SpotSigsParams


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 40), st.sampled_from([1, 3, 256, 257, 65_536, 65_537]),
       st.randoms(use_true_random=False))
def test_packed_arrays_read_back_as_given(n_spots, n_blocks, rnd):
    gen = np.random.default_rng(rnd.randrange(2**32))
    ids = gen.integers(-2**63, 2**63 - 1, n_spots, dtype=np.int64)
    hashes = gen.integers(-2**63, 2**63 - 1, n_blocks, dtype=np.int64)
    where = gen.integers(0, n_blocks, n_spots).astype(np.int32)
    if n_spots:
        where[0] = n_blocks - 1  # the largest index must survive the narrow type
    page = pickle.loads(pickle.dumps(ExtractedPage.of(PageInfo("k", "k"), ids, where, hashes)))
    assert page.spot_ids.dtype == np.int64 and np.array_equal(page.spot_ids, ids)
    assert page.block_hashes.dtype == np.int64 and np.array_equal(page.block_hashes, hashes)
    assert page.spot_block.dtype == np.int32 and np.array_equal(page.spot_block, where)


def test_blocks_take_a_byte_a_spot_on_an_ordinary_page():
    page = ExtractedPage.of(PageInfo("k", "k"), np.arange(100, dtype=np.int64),
                            np.arange(100, dtype=np.int32) % 20, np.arange(20, dtype=np.int64))
    assert page.packed.nbytes == 8 * 100 + 8 * 20 + 100


def test_a_spot_block_list_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="spot blocks"):
        ExtractedPage.of(PageInfo("k", "k"), np.arange(3, dtype=np.int64), np.zeros(2, np.int32),
                         np.zeros(1, np.int64))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6),
                          st.sampled_from(["none", "empty", "random"])), max_size=12),
       st.randoms(use_true_random=False))
def test_page_multisets_are_each_pages_spots_counted(shapes, rnd):
    gen = np.random.default_rng(rnd.randrange(2**32))
    pages, masks = [], []
    for n_spots, n_blocks, mask_kind in shapes:
        if not n_blocks:
            n_spots = 0
        ids = gen.integers(-3, 4, n_spots, dtype=np.int64) * 2**60  # repeats within a page
        where = gen.integers(0, max(n_blocks, 1), n_spots).astype(np.int32)
        pages.append(ExtractedPage.of(PageInfo("k", "k"), ids, where, np.arange(n_blocks, dtype=np.int64)))
        masks.append(None if mask_kind == "none" or not n_blocks else
                     np.zeros(n_blocks, bool) if mask_kind == "empty" else gen.random(n_blocks) < 0.5)
    ptr, ids, counts = page_multisets(pages, masks)
    assert len(ptr) == len(pages) + 1 and ptr[0] == 0
    for i, (page, mask) in enumerate(zip(pages, masks, strict=True)):
        kept = page.spot_ids if mask is None else page.spot_ids[~mask[page.spot_block]]
        want_ids, want_counts = np.unique(kept, return_counts=True)
        assert np.array_equal(ids[ptr[i] : ptr[i + 1]], want_ids)
        assert np.array_equal(counts[ptr[i] : ptr[i + 1]], want_counts)
        got_ids, got_counts = page.vector(mask)  # one page alone: the same
        assert np.array_equal(got_ids, want_ids) and np.array_equal(got_counts, want_counts)


def test_a_mask_of_the_wrong_length_is_refused():
    page = ExtractedPage.of(PageInfo("k", "k"), np.arange(3, dtype=np.int64), np.zeros(3, np.int32),
                            np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="mask"):
        page_multisets([page], [np.zeros(3, bool)])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from([1, 5, 300])), max_size=8),
       st.randoms(use_true_random=False))
def test_a_batch_shares_one_aligned_buffer_and_reads_back_as_given(shapes, rnd):
    gen = np.random.default_rng(rnd.randrange(2**32))
    given_arrays, pages = [], []
    for n_spots, n_blocks in shapes:
        ids = gen.integers(-2**63, 2**63 - 1, n_spots, dtype=np.int64)
        hashes = gen.integers(-2**63, 2**63 - 1, n_blocks, dtype=np.int64)
        where = gen.integers(0, n_blocks, n_spots).astype(np.int32)
        given_arrays.append((ids, where, hashes))
        pages.append(ExtractedPage.of(PageInfo("k", "k"), ids, where, hashes))
    share_buffer(pages)
    assert len({id(p.buffer) for p in pages}) <= 1
    assert all(p.start % 8 == 0 for p in pages)
    if pages and pages[0].buffer is not None:  # the padding between pages is zeros, every run
        used = np.zeros(len(pages[0].buffer), dtype=bool)
        for page in pages:
            used[page.start : page.start + page.nbytes] = True
        assert not pages[0].buffer[~used].any()
    back = pickle.loads(pickle.dumps(pages))
    assert len({id(p.buffer) for p in back}) <= 1  # one array crosses, not one a page
    for page, (ids, where, hashes) in zip(back, given_arrays, strict=True):
        assert np.array_equal(page.spot_ids, ids) and page.spot_ids.flags.aligned
        assert np.array_equal(page.block_hashes, hashes)
        assert np.array_equal(page.spot_block, where)


def test_extract_batch_gives_its_pages_one_buffer():
    html = "<html><body>" + "".join(f"<p>The council said on day {k} that the bridge opens in the spring "
                                     f"and the costs stay within the budget it set.</p>" for k in range(4))
    batch = [RawPage(f"p{k}.html", (html + f"<p>page {k}</p></body></html>").encode(),
                     content_type="text/html") for k in range(3)]
    pages = extract_batch(batch, SpotSigsParams())
    assert all(isinstance(p, ExtractedPage) and p.n_spots for p in pages)
    assert len({id(p.buffer) for p in pages}) == 1


def test_page_arrays_make_each_pages_array_when_asked():
    pages = [ExtractedPage.of(PageInfo(f"k{n}", f"k{n}"), np.arange(n, dtype=np.int64), np.zeros(n, np.int32),
                              np.arange(1, dtype=np.int64)) for n in range(5)]
    made: list[int] = []

    def ids(page: ExtractedPage) -> np.ndarray:
        made.append(page.n_spots)
        return page.spot_ids

    arrays = PageArrays(pages, ids)
    assert not made and len(arrays) == 5
    assert arrays[3].tolist() == [0, 1, 2] and made == [3]
    assert [a.tolist() for a in arrays[1:3]] == [[0], [0, 1]]
    assert [len(a) for a in arrays] == [0, 1, 2, 3, 4]


def test_block_type_is_the_narrowest_that_numbers_the_blocks():
    from workbench.detect.spotsigs.extract import _block_type

    for n_blocks in (0, 1, 255, 256, 257, 65_535, 65_536, 65_537, 2**31):
        narrowest = next(t for t in (np.uint8, np.uint16, np.int32) if n_blocks <= np.iinfo(t).max + 1)
        assert _block_type(n_blocks) == np.dtype(narrowest), n_blocks
    with pytest.raises(ValueError):
        _block_type(2**31 + 1)
