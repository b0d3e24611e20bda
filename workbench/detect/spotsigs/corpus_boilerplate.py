"""Blocks repeated verbatim on many pages, whatever their site, that are not a story.

Archive banners, comment rules, "email this story" forms and template teasers recur on
many pages that are otherwise about different things; the paragraphs of a syndicated
story recur on many pages too, but those pages are about that story. So for a block B on
at least ``min_pages`` pages, the *core* of B's pages is every block found on at least
half of them (B included), and B is boilerplate when on the typical page (the median) the
core holds at most ``max_core_share`` of the page's signatures: B's pages share B and
little else.

Pages full of other boilerplate (ads, copyright lines) make a story's core look small, so
the share is measured twice: first against the whole page, then, for the blocks the first
pass found, against the page without the other blocks that pass found. A story paragraph
survives the second pass (what is left of its pages is the story); a banner, a copyright
line or a template teaser does not (what is left is each page's own story).

And the pages must be mostly their own: on the typical page at least ``min_own_share`` of
the signatures stand in blocks no other page has. Pages that carry a banner each have a
story of their own; the copies of a short syndicated story, each framed by a template
other pages share too, have hardly any text of their own, so their story's paragraphs
stay even when the frames make them a small part of the page. Weights are signatures per
block. At most ``sample`` pages of each block are looked at (evenly spread), so the cost
stays linear in the corpus.

Everything is computed over flat arrays of (page, block, weight) entries (a Python loop
per block and page took minutes on 100,000 pages), the core shares in one compiled pass
over them (:func:`_core_share_medians`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.core.distinct import distinct

# Pages of a block looked at, at most (evenly spread over its pages).
SAMPLE = 200
# Blocks looked up at once when numbering them (bounds the lookup's temporaries).
_CHUNK = 4_000_000
# Blocks of a page up to which they are put in order by insertion.
_INSERTION_SORT_MAX = 64


@dataclass(slots=True)
class _Entries:
    """Every (page, block) of the corpus once, sorted by page then block, with its weight."""

    page: np.ndarray
    block: np.ndarray  # dense block number
    weight: np.ndarray  # float64
    page_start: np.ndarray  # entries of page p: page_start[p]:page_start[p + 1]
    total: np.ndarray  # per page: the sum of its weights


def corpus_boilerplate(
    block_hashes: Sequence[np.ndarray],
    block_weights: Sequence[np.ndarray],
    min_pages: int,
    max_core_share: float = 0.5,
    sample: int = SAMPLE,
    min_own_share: float = 0.0,
) -> np.ndarray:
    """The sorted ids (hashes) of the corpus's boilerplate blocks (see the module's doc)."""
    n = len(block_hashes)
    sizes = np.fromiter((len(h) for h in block_hashes), dtype=np.int64, count=n)
    if not n or not sizes.sum():
        return np.empty(0, np.int64)
    hashes = np.concatenate([np.asarray(h, np.int64) for h in block_hashes])
    ids = distinct(hashes)
    dense = _dense_ids(ids, hashes)
    del hashes
    # Filled page by page: a list of float copies of every page's weights held them all.
    weights = np.empty(int(sizes.sum()), dtype=np.float64)
    at = 0
    for w in block_weights:
        weights[at : at + len(w)] = w
        at += len(w)
    block_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=block_ptr[1:])
    page, block, summed, start = _page_entries(block_ptr, dense, weights)
    del dense, weights
    entries = _Entries(page, block, summed, start, np.bincount(page, weights=summed, minlength=n))
    return _decided_here(ids, entries, min_pages, max_core_share, sample, min_own_share)


def fewest_pages_weighed(min_pages: int, sample: int) -> int:
    """The fewest pages a block must stand on to weigh in the decision: a candidate stands
    on ``max(min_pages, 2)`` pages or more, and a block is in a candidate's core when it
    stands on half its sampled pages or more, of which there are at least
    ``min(max(min_pages, 2), sample)``. A block on fewer pages than this counts only in its
    pages' totals, and in their own share when it is on one page alone."""
    least_sampled = max(1, min(max(min_pages, 2), sample))
    return (least_sampled + 1) // 2


def corpus_boilerplate_weighed(
    ids: np.ndarray,
    pages_of: np.ndarray,
    blocks: np.ndarray,
    weights: np.ndarray,
    sizes: np.ndarray,
    total: np.ndarray,
    own_weight: np.ndarray,
    min_pages: int,
    max_core_share: float = 0.5,
    sample: int = SAMPLE,
    min_own_share: float = 0.0,
) -> np.ndarray:
    """:func:`corpus_boilerplate` (the same answer to the last bit) from only the blocks
    that weigh in the decision (:func:`fewest_pages_weighed`) and the figures of each page
    that the others make. ``ids``: the weighed blocks' hashes, sorted; ``pages_of``: how
    many pages of the whole crawl carry each. ``blocks``: every page's weighed blocks one
    after the other, ``sizes[p]`` of them for page p, each once and by its place in
    ``ids`` (ascending within a page; int32), with ``weights`` its copies' weight added up
    (float64). ``total``: each page's weight of all its blocks; ``own_weight``: of its
    blocks on no other page. What a cluster's tasks give its client
    (workbench.cluster.filters.corpus_blocks): the decision takes these arrays as its own,
    with no copy, and the client never holds every page's blocks nor their hashes."""
    n = len(sizes)
    if not n or not len(ids):
        return np.empty(0, np.int64)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=start[1:])
    blocks = np.asarray(blocks, np.int32)
    if len(blocks) != start[-1] or len(weights) != len(blocks):
        raise ValueError(f"{len(blocks):,} blocks and {len(weights):,} weights for pages of {start[-1]:,}")
    if not _ascending_within(start, blocks, len(ids)):
        raise ValueError("a page's blocks are not its weighed blocks once each, in order")
    if not np.array_equal(np.bincount(blocks, minlength=len(ids)), pages_of):
        raise ValueError("the pages given are not every page of the blocks counted")
    page = np.repeat(np.arange(n, dtype=np.int32), np.asarray(sizes, np.int64))
    entries = _Entries(page, blocks, np.asarray(weights, np.float64), start, np.asarray(total, np.float64))
    own = np.asarray(own_weight, np.float64) / np.maximum(entries.total, 1e-9)
    return _decided(ids, entries, np.asarray(pages_of, np.int64), own, min_pages, max_core_share, sample,
                    min_own_share)


def _ascending_within(start: np.ndarray, blocks: np.ndarray, n_ids: int) -> bool:
    """Whether every page's blocks are numbers of ``ids`` in strictly ascending order (a
    byte an entry, for the moment of the check)."""
    if not len(blocks):
        return True
    if int(blocks.min()) < 0 or int(blocks.max()) >= n_ids:
        return False
    rising = blocks[1:] > blocks[:-1]
    new_page = start[1:-1]
    rising[new_page[(new_page > 0) & (new_page < len(blocks))] - 1] = True  # a page's first block
    return bool(rising.all())


def block_weights(spot_block: np.ndarray, n_blocks: int) -> np.ndarray:
    """A page's weight of each of its blocks: its spots there (``spot_block``: each spot's
    block)."""
    return np.bincount(spot_block, minlength=n_blocks)


def _decided_here(ids: np.ndarray, entries: _Entries, min_pages: int, max_core_share: float, sample: int,
                  min_own_share: float) -> np.ndarray:
    """The boilerplate among the blocks ``ids`` (sorted), from every (page, block) entry."""
    df = np.bincount(entries.block, minlength=len(ids))
    own_weight = _own_weights(entries.page_start, entries.block, entries.weight, df)
    own = own_weight / np.maximum(entries.total, 1e-9)
    return _decided(ids, entries, df, own, min_pages, max_core_share, sample, min_own_share)


def _decided(ids: np.ndarray, entries: _Entries, df: np.ndarray, own: np.ndarray, min_pages: int,
             max_core_share: float, sample: int, min_own_share: float) -> np.ndarray:
    """The boilerplate among the blocks ``ids`` (sorted), from their entries (every page of
    each: ``df`` of them) and each page's own share (of its weight, in blocks on no other
    page)."""
    candidates = np.flatnonzero(df >= max(min_pages, 2))
    if not len(candidates):
        return np.empty(0, np.int64)
    sample_start, sampled = _samples(entries, df, candidates, sample)
    every = np.ones(len(candidates), dtype=bool)
    nothing = np.zeros(len(ids), dtype=bool)
    first_share = _core_share_medians(entries.page_start, entries.block, entries.weight, entries.total,
                                      sample_start, sampled, nothing, every)
    keep = first_share <= max_core_share
    first = candidates[keep]
    if not len(first):
        return np.empty(0, np.int64)
    ignore = nothing
    ignore[first] = True
    second_share = _core_share_medians(entries.page_start, entries.block, entries.weight, entries.total,
                                       sample_start, sampled, ignore, keep)[keep]
    own_median = _own_medians(sample_start, sampled, own, keep)[keep]
    boiler = first[(second_share <= max_core_share) & (own_median >= min_own_share)]
    return np.sort(ids[boiler])


def _dense_ids(ids: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """The position of every hash among the sorted distinct ``ids`` (int32), a few million
    at a time: np.unique's inverse made four arrays of 8 bytes a block at once."""
    dense = np.empty(len(hashes), dtype=np.int32)
    for lo in range(0, len(hashes), _CHUNK):
        dense[lo : lo + _CHUNK] = np.searchsorted(ids, hashes[lo : lo + _CHUNK])
    return dense


@njit(cache=True, nogil=True)
def _page_entries(block_ptr: np.ndarray, dense: np.ndarray,
                  weight: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (page, block) once, by page then block, with the weights of the block's
    copies on the page added up in their order (as np.bincount added them when this was a
    np.unique over page * blocks + block: the same sums to the last bit), and where each
    page's entries start. Page by page, so nothing larger than the result is made."""
    n = len(block_ptr) - 1
    size = block_ptr[n]
    page = np.empty(size, dtype=np.int32)
    block = np.empty(size, dtype=np.int32)
    summed = np.empty(size, dtype=np.float64)
    start = np.zeros(n + 1, dtype=np.int64)
    most = 0
    for p in range(n):
        most = max(most, block_ptr[p + 1] - block_ptr[p])
    order = np.empty(most, dtype=np.int64)
    k = 0
    for p in range(n):
        lo, hi = block_ptr[p], block_ptr[p + 1]
        # The page's blocks by number, copies in page order: a stable insertion sort for
        # the usual few dozen blocks (np.argsort allocated for every page), a merge sort
        # for a page of very many.
        if hi - lo <= _INSERTION_SORT_MAX:
            for t in range(hi - lo):
                b = dense[lo + t]
                u = t
                while u > 0 and dense[lo + order[u - 1]] > b:
                    order[u] = order[u - 1]
                    u -= 1
                order[u] = t
        else:
            order[: hi - lo] = np.argsort(dense[lo:hi], kind="mergesort")
        last = -1
        for t in range(hi - lo):
            j = lo + order[t]
            b = dense[j]
            if b != last:
                page[k] = p
                block[k] = b
                summed[k] = weight[j]
                k += 1
                last = b
            else:
                summed[k - 1] += weight[j]
        start[p + 1] = k
    return page[:k], block[:k], summed[:k], start


def _samples(entries: _Entries, df: np.ndarray, candidates: np.ndarray, sample: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """For each candidate block, its pages (in page order), at most ``sample`` evenly
    spread: candidate c's are ``pages[sample_start[c]:sample_start[c + 1]]`` (int32)."""
    start = np.zeros(len(df) + 1, dtype=np.int64)
    np.cumsum(df, out=start[1:])
    pages_by_block = _pages_by_block(entries.page_start, entries.block, start)
    sizes = np.minimum(df[candidates], sample)
    sample_start = np.zeros(len(candidates) + 1, dtype=np.int64)
    np.cumsum(sizes, out=sample_start[1:])
    out = np.empty(int(sample_start[-1]), dtype=np.int32)
    for k, c in enumerate(candidates.tolist()):
        pages = pages_by_block[start[c] : start[c + 1]]
        if len(pages) > sample:
            pages = pages[np.linspace(0, len(pages) - 1, sample).astype(np.int64)]
        out[sample_start[k] : sample_start[k + 1]] = pages
    return sample_start, out


@njit(cache=True, nogil=True)
def _pages_by_block(page_start: np.ndarray, block: np.ndarray, block_start: np.ndarray) -> np.ndarray:
    """Every block's pages, ascending, block after block (block b's at
    ``block_start[b]:block_start[b + 1]``): the entries' pages in the order of a stable
    sort by block, without the sort's 8 bytes an entry."""
    out = np.empty(len(block), dtype=np.int32)
    fill = block_start[:-1].copy()
    for p in range(len(page_start) - 1):
        for e in range(page_start[p], page_start[p + 1]):
            b = block[e]
            out[fill[b]] = p
            fill[b] += 1
    return out


@njit(cache=True, nogil=True)
def _own_weights(page_start: np.ndarray, block: np.ndarray, weight: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Each page's weight in blocks on no other page (``df`` 1), added up in the entries'
    order as np.bincount added them (so the same to the last bit), with no array an entry."""
    out = np.zeros(len(page_start) - 1, dtype=np.float64)
    for p in range(len(page_start) - 1):
        got = 0.0
        for e in range(page_start[p], page_start[p + 1]):
            if df[block[e]] == 1:
                got += weight[e]
        out[p] = got
    return out


@njit(nogil=True)
def _largest_sample(sample_start: np.ndarray) -> int:
    """The most pages any candidate has sampled."""
    most = 0
    for c in range(len(sample_start) - 1):
        most = max(most, sample_start[c + 1] - sample_start[c])
    return most


@njit(nogil=True)
def _median(values: np.ndarray) -> float:
    """np.median of ``values`` (not empty), as numpy takes it: the middle value, or the
    mean of the two middle ones."""
    ordered = np.sort(values)
    size = len(ordered)
    low: float = ordered[(size - 1) // 2]
    high: float = ordered[size // 2]
    return low if size % 2 == 1 else (low + high) / 2


@njit(cache=True, nogil=True)
def _core_share_medians(page_start: np.ndarray, block: np.ndarray, weight: np.ndarray, total: np.ndarray,
                        sample_start: np.ndarray, pages: np.ndarray, ignore: np.ndarray,
                        use: np.ndarray) -> np.ndarray:
    """Per candidate block c with ``use[c]`` (NaN for the others): the median over its
    sampled pages (``pages[sample_start[c]:sample_start[c + 1]]``) of the core's share of
    the page, leaving the ``ignore`` blocks that are not in the core out of the page.
    As numpy arrays this built a row per
    (candidate, sampled page, block of that page), 35 million on 100,000 small pages, and
    took 3 s; here one counter per block is set and reset candidate by candidate. The
    weights are added up in the order numpy's bincount added them, so the shares and
    their medians come out the same to the last bit."""
    n_cand = len(sample_start) - 1
    on_pages = np.zeros(len(ignore), dtype=np.int64)  # of the candidate's sampled pages
    out = np.empty(n_cand, dtype=np.float64)
    shares = np.empty(_largest_sample(sample_start), dtype=np.float64)
    for c in range(n_cand):
        if not use[c]:
            out[c] = np.nan
            continue
        lo, hi = sample_start[c], sample_start[c + 1]
        sampled = hi - lo
        for s in range(lo, hi):
            p = pages[s]
            for e in range(page_start[p], page_start[p + 1]):
                on_pages[block[e]] += 1
        counted = 0
        for s in range(lo, hi):
            p = pages[s]
            core = 0.0
            left_out = 0.0
            for e in range(page_start[p], page_start[p + 1]):
                b = block[e]
                if 2 * on_pages[b] >= sampled:  # the core: blocks on half the pages or more
                    core += weight[e]
                elif ignore[b]:
                    left_out += weight[e]
            rest = total[p] - core - left_out
            whole = core + rest
            if whole > 0:
                shares[counted] = core / whole
                counted += 1
        for s in range(lo, hi):
            p = pages[s]
            for e in range(page_start[p], page_start[p + 1]):
                on_pages[block[e]] = 0
        out[c] = _median(shares[:counted]) if counted else 1.0
    return out


@njit(cache=True, nogil=True)
def _own_medians(sample_start: np.ndarray, pages: np.ndarray, own: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Per candidate c with ``use[c]`` (NaN for the others): the median of its sampled
    pages' own shares, as np.median takes it (0 for a candidate with no page), without the
    arrays a sampled page that grouping them with numpy made."""
    n_cand = len(sample_start) - 1
    out = np.empty(n_cand, dtype=np.float64)
    values = np.empty(_largest_sample(sample_start), dtype=np.float64)
    for c in range(n_cand):
        if not use[c]:
            out[c] = np.nan
            continue
        lo, hi = sample_start[c], sample_start[c + 1]
        for s in range(lo, hi):
            values[s - lo] = own[pages[s]]
        out[c] = _median(values[: hi - lo]) if hi > lo else 0.0
    return out
