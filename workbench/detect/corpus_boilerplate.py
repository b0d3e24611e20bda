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

Everything is computed over flat arrays of (page, block, weight) entries: on 100,000
pages a loop per block and page took minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.detect.matcher import expand_ranges

# Rows (candidate block, sampled page, block of that page) handled at once: bounds memory.
_CHUNK_ROWS = 1_000_000


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
    sample: int = 200,
    min_own_share: float = 0.0,
) -> np.ndarray:
    """The sorted ids (hashes) of the corpus's boilerplate blocks (see the module's doc)."""
    n = len(block_hashes)
    sizes = np.fromiter((len(h) for h in block_hashes), dtype=np.int64, count=n)
    if not n or not sizes.sum():
        return np.empty(0, np.int64)
    hashes = np.concatenate([np.asarray(h, np.int64) for h in block_hashes])
    weights = np.concatenate([np.asarray(w, np.float64) for w in block_weights])
    ids, dense = np.unique(hashes, return_inverse=True)
    entries = _entries(np.repeat(np.arange(n, dtype=np.int64), sizes), dense, weights, n, len(ids))
    df = np.bincount(entries.block, minlength=len(ids))
    candidates = np.flatnonzero(df >= max(min_pages, 2))
    if not len(candidates):
        return np.empty(0, np.int64)
    samples = _samples(entries, df, candidates, sample)

    nothing = np.zeros(len(ids), dtype=bool)
    first_share = _median_shares(entries, df, candidates, samples, ignore=nothing)
    first = candidates[first_share <= max_core_share]
    if not len(first):
        return np.empty(0, np.int64)
    ignore = nothing.copy()
    ignore[first] = True
    keep = np.isin(candidates, first)
    kept_samples = [s for s, k in zip(samples, keep, strict=True) if k]
    second_share = _median_shares(entries, df, first, kept_samples, ignore=ignore)

    own_weight = np.bincount(entries.page, weights=entries.weight * (df[entries.block] == 1), minlength=n)
    own = own_weight / np.maximum(entries.total, 1e-9)
    kept_sizes = np.fromiter(map(len, kept_samples), dtype=np.int64, count=len(kept_samples))
    own_median = _group_medians(np.repeat(np.arange(len(kept_samples)), kept_sizes),
                                own[np.concatenate(kept_samples)], len(kept_samples), empty=0.0)
    boiler = first[(second_share <= max_core_share) & (own_median >= min_own_share)]
    return np.sort(ids[boiler])


def _entries(page: np.ndarray, block: np.ndarray, weight: np.ndarray, n: int, n_blocks: int) -> _Entries:
    """A block repeated on a page counts once there, with its weights added up."""
    key = page * np.int64(n_blocks) + block
    unique, inverse = np.unique(key, return_inverse=True)
    summed = np.bincount(inverse, weights=weight, minlength=len(unique))
    page, block = unique // n_blocks, unique % n_blocks
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(page, minlength=n), out=start[1:])
    total = np.bincount(page, weights=summed, minlength=n)
    return _Entries(page, block, summed, start, total)


def _samples(entries: _Entries, df: np.ndarray, candidates: np.ndarray, sample: int) -> list[np.ndarray]:
    """For each candidate block, its pages (in page order), at most ``sample`` evenly spread."""
    order = np.argsort(entries.block, kind="stable")  # by block, pages ascending within
    pages_by_block = entries.page[order]
    start = np.zeros(len(df) + 1, dtype=np.int64)
    np.cumsum(df, out=start[1:])
    out = []
    for c in candidates.tolist():
        pages = pages_by_block[start[c] : start[c + 1]]
        if len(pages) > sample:
            pages = pages[np.linspace(0, len(pages) - 1, sample).astype(np.int64)]
        out.append(pages)
    return out


def _median_shares(entries: _Entries, df: np.ndarray, candidates: np.ndarray, samples: list[np.ndarray],
                   ignore: np.ndarray) -> np.ndarray:
    """Per candidate block: the median over its sampled pages of the core's share of the
    page, leaving the ``ignore`` blocks that are not in the core out of the page."""
    out = np.empty(len(candidates), dtype=np.float64)
    lo = 0
    per_page = np.diff(entries.page_start)
    rows_of = np.array([int(per_page[s].sum()) for s in samples], dtype=np.int64)
    while lo < len(candidates):
        hi = lo + 1
        rows = rows_of[lo]
        while hi < len(candidates) and rows + rows_of[hi] <= _CHUNK_ROWS:
            rows += rows_of[hi]
            hi += 1
        out[lo:hi] = _chunk_median_shares(entries, df, candidates[lo:hi], samples[lo:hi], ignore)
        lo = hi
    return out


def _chunk_median_shares(entries: _Entries, df: np.ndarray, candidates: np.ndarray,
                         samples: list[np.ndarray], ignore: np.ndarray) -> np.ndarray:
    n_samples = np.array([len(s) for s in samples], dtype=np.int64)
    pages = np.concatenate(samples)
    cand = np.repeat(np.arange(len(candidates), dtype=np.int64), n_samples)
    # One row per (candidate, sampled page, block of that page).
    counts = entries.page_start[pages + 1] - entries.page_start[pages]
    row_entry = expand_ranges(entries.page_start[pages], counts)
    row_cand = np.repeat(cand, counts)
    row_group = np.repeat(np.arange(len(pages), dtype=np.int64), counts)  # (candidate, page)
    block, weight = entries.block[row_entry], entries.weight[row_entry]

    # The core of a candidate: blocks on at least half of its sampled pages. Only a block
    # on that many pages of the whole corpus can be, so only those rows are counted (the
    # sort of every row was half of this module's time).
    in_core = np.zeros(len(block), dtype=bool)
    could = np.flatnonzero(2 * df[block] >= n_samples[row_cand])
    key = row_cand[could] * np.int64(len(ignore)) + block[could]
    unique, inverse, seen = np.unique(key, return_inverse=True, return_counts=True)
    in_core[could] = (2 * seen >= n_samples[unique // len(ignore)])[inverse]
    core_weight = np.bincount(row_group, weights=np.where(in_core, weight, 0.0), minlength=len(pages))
    left_out = np.bincount(row_group, weights=np.where(~in_core & ignore[block], weight, 0.0),
                           minlength=len(pages))
    rest = entries.total[pages] - core_weight - left_out
    whole = core_weight + rest
    counted = whole > 0
    share = np.divide(core_weight, whole, out=np.zeros_like(whole), where=counted)
    return _group_medians(cand[counted], share[counted], len(candidates), empty=1.0)


def _group_medians(group: np.ndarray, values: np.ndarray, groups: int, empty: float) -> np.ndarray:
    """np.median of the values of every group (``empty`` for a group with none)."""
    order = np.lexsort((values, group))
    group, values = group[order], values[order]
    size = np.bincount(group, minlength=groups)
    start = np.cumsum(size) - size
    out = np.full(groups, empty, dtype=np.float64)
    has = size > 0
    low = values[(start + (size - 1) // 2)[has]]
    high = values[(start + size // 2)[has]]
    out[has] = np.where(size[has] % 2 == 1, low, (low + high) / 2)
    return out
