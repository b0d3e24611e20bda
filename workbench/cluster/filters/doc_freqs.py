"""The IDF filter's document frequencies as a tree reduction on the cluster.

A signature's document frequency is the number of pages that have it once the boilerplate
is left out (``pipeline.idf_flags``), so it is counted only when the boilerplate is decided
(the site boilerplate's own reduction, workbench.cluster.filters.reduce, and the corpus
boilerplate): a second pass over the page shards, with those blocks given. Each shard's
task counts, per 64-bit signature id, the pages that have it, and the pages that have any
signature; partial counts are added pairwise up a tree (``dask.bag``'s ``reduction``,
``split_every`` at a time) on the workers, and the last task turns the whole crawl's counts
into the ids the filter drops, and into the vocabulary with two flags an id (counted by
the IDF filter; indexed) for the rows tasks to filter their rows by (workbench.cluster.filters.rows).
The client receives the dropped ids and the vocabulary with its flags (10 bytes an id, the
matrix's ``raw_ids``), not the vocabulary's counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from workbench.cluster.filters.reduce import SPLIT_EVERY, add_counts, shard_bag, shard_units
from workbench.cluster.records.saved_rows import SavedRows, UnitRows, rows_here
from workbench.cluster.records.shards import read_pages
from workbench.detect.spotsigs.boilerplate import boilerplate_masks
from workbench.detect.spotsigs.extract import ExtractedPage, page_multisets

# (pages with any signature, signature ids sorted, how many pages have each).
DocFreqs = tuple[int, np.ndarray, np.ndarray]
# What the client needs of them: the pages with any signature, and the ids the IDF filter
# drops (None: too few pages for the filter to run).
TooCommon = tuple[int, np.ndarray | None]
# The vocabulary (ids sorted), and per id whether the IDF filter counts it and whether it
# is indexed (:func:`id_filters`).
IdFilters = tuple[np.ndarray, np.ndarray, np.ndarray]


def page_doc_freqs(pages: Sequence[ExtractedPage], boiler: dict[str, np.ndarray]) -> DocFreqs:
    """The counts of the pages given, without their boilerplate ``boiler`` (its sites'
    blocks and anyone's), as the signature matrix will hold them."""
    if not pages:
        return 0, np.empty(0, np.int64), np.empty(0, np.int64)
    masks = boilerplate_masks([p.info for p in pages], [p.block_hashes for p in pages], boiler)
    ptr, ids, _ = page_multisets(pages, masks)  # each page's ids are distinct
    ids, counts = np.unique(ids, return_counts=True)
    return int((np.diff(ptr) > 0).sum()), ids, counts.astype(np.int64)


def merge(parts: Iterable[DocFreqs]) -> DocFreqs:
    """Partial counts added up (the reduction's step; associative and commutative)."""
    got = list(parts)
    if len(got) == 1:
        return got[0]
    ids, counts = add_counts([(g[1], g[2]) for g in got])
    return sum(g[0] for g in got), ids, counts


def too_common(freqs: DocFreqs, min_pages: int, idf_low: float) -> TooCommon:
    """The ids ``pipeline.idf_flags`` leaves out of the pages, from the whole crawl's
    counts (the same formula, so the same ids to the last bit)."""
    pages, ids, df = freqs
    if pages < max(min_pages, 2):
        return pages, None
    idf = np.log(pages / np.maximum(df, 1)) / math.log(pages)
    return pages, ids[~(idf >= idf_low - 1e-12)]


def shard_doc_freqs(shard: str, rows: UnitRows | SavedRows, boiler: dict[str, np.ndarray]) -> DocFreqs:
    """Task: the counts of rows ``rows`` of a page shard (the rows the run kept)."""
    pages = read_pages(shard)
    return page_doc_freqs([pages[r] for r in rows_here(rows)], boiler)


def _partition(items: Iterable[tuple[str, list[int]]], boiler: dict[str, np.ndarray]) -> list[DocFreqs]:
    return [merge(shard_doc_freqs(shard, rows, boiler) for shard, rows in items)]


def id_filters(freqs: DocFreqs, min_pages: int, idf_low: float) -> IdFilters:
    """The vocabulary (every id of the pages without their boilerplate, sorted: the
    signature matrix's ``raw_ids``) and, per id, what ``pipeline.idf_flags`` makes of it:
    counted (the IDF filter keeps it) and indexed (counted, and on two pages or more), from
    the whole crawl's counts: the same flags to the last bit, for the rows tasks to apply
    (workbench.cluster.filters.rows) so that the client never holds the matrix before the filter."""
    _, ids, df = freqs
    dropped = too_common(freqs, min_pages, idf_low)[1]
    counted = np.ones(len(ids), dtype=bool) if dropped is None else ~np.isin(ids, dropped, assume_unique=True)
    return ids, counted, counted & (df >= 2)


def too_common_on(client: Any, refs: Sequence[Any], boiler: dict[str, np.ndarray], min_pages: int,
                  idf_low: float) -> Callable[[], TooCommon]:
    """Starts the reduction over the pages ``refs`` name (ShardRefs; an ExtractedPage there
    is a page the client holds and is counted here); the call returned waits for its
    answer. The boilerplate goes into the graph once, not into every task."""
    return too_common_and_filters_on(client, refs, boiler, min_pages, idf_low)[0]


def too_common_and_filters_on(client: Any, refs: Sequence[Any], boiler: dict[str, np.ndarray],
                              min_pages: int, idf_low: float) -> tuple[Callable[[], TooCommon], Any]:
    """:func:`too_common_on`, and :func:`id_filters` of the same counts as a Dask future (or
    the arrays themselves when the client counted every page), for the rows tasks to number
    their ids by and filter them with (workbench.cluster.filters.rows)."""
    from dask.delayed import delayed

    units, here = shard_units(refs)
    own = page_doc_freqs(here, boiler)
    if not units:
        decided = too_common(own, min_pages, idf_low)
        return (lambda: decided), id_filters(own, min_pages, idf_low)
    counted = shard_bag(units).map_partitions(_partition, delayed(boiler, traverse=False))
    tree = counted.reduction(merge, merge, split_every=SPLIT_EVERY, name="doc-freqs")
    whole = tree.apply(lambda counts: merge([counts, own]))
    answer = whole.apply(lambda counts: too_common(counts, min_pages, idf_low))
    flags = whole.apply(lambda counts: id_filters(counts, min_pages, idf_low))
    future, filters = client.compute([answer, flags])
    return (lambda: future.result()), filters
