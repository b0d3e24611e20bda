"""The site boilerplate filter's counts as a tree reduction on the cluster.

A block is a site's boilerplate when it stands on at least ``max(3, share × pages)`` of the
site's pages (``boilerplate.site_boilerplate``). Those counts add up: each shard's pages
give, per site, their number and how many of them carry each block; partial counts are
merged pairwise up a tree (``dask.bag``'s ``reduction``, ``split_every`` at a time) on the
workers, and only the merged counts, one array per site, reach the client. The decision
is then made from the whole crawl's counts, so the filter is exactly the local one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.saved_rows import SavedRows, UnitRows, rows_here
from workbench.cluster.records.shards import ShardRef, read_pages
from workbench.core.distinct import distinct
from workbench.core.records import PageInfo
from workbench.detect.spotsigs.boilerplate import site_of
from workbench.detect.spotsigs.extract import ExtractedPage

# Per site: (its pages, its blocks' ids sorted, how many of its pages carry each).
SiteCounts = dict[str, tuple[int, np.ndarray, np.ndarray]]
SPLIT_EVERY = 8  # partial counts merged at once, at each level of the tree


def page_counts(pages: Iterable[ExtractedPage]) -> SiteCounts:
    """The counts of the pages given (a page counts each of its blocks once)."""
    by_site: dict[str, list[np.ndarray]] = {}
    for page in pages:
        site = site_of(page.info)
        if site is not None:
            by_site.setdefault(site, []).append(distinct(page.block_hashes))
    out: SiteCounts = {}
    for site, per_page in by_site.items():
        ids, counts = np.unique(np.concatenate(per_page), return_counts=True)
        out[site] = (len(per_page), ids, counts)
    return out


def merge(parts: Iterable[SiteCounts]) -> SiteCounts:
    """Partial counts added up (the reduction's step; associative and commutative)."""
    gathered: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for part in parts:
        for site, counts in part.items():
            gathered.setdefault(site, []).append(counts)
    out: SiteCounts = {}
    for site, got in gathered.items():
        if len(got) == 1:
            out[site] = got[0]
            continue
        out[site] = (sum(g[0] for g in got), *add_counts([(g[1], g[2]) for g in got]))
    return out


def merge_counts(parts: Iterable[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Partial (ids, counts) added up, the empty ones skipped (a reduction's step;
    associative and commutative)."""
    got = [p for p in parts if len(p[0])]
    if not got:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return got[0] if len(got) == 1 else add_counts(got)


def add_counts(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Counts per id added up: the ids sorted and distinct, the sum of each one's counts."""
    ids = np.concatenate([p[0] for p in parts])
    counts = np.concatenate([p[1] for p in parts])
    merged, where = np.unique(ids, return_inverse=True)
    return merged, np.bincount(where, weights=counts, minlength=len(merged)).astype(np.int64)


def shard_counts(shard: str, rows: UnitRows | SavedRows) -> SiteCounts:
    """Task: the counts of rows ``rows`` of a page shard (the rows the run kept)."""
    pages = read_pages(shard)
    return page_counts(pages[r] for r in rows_here(rows))


def shard_units(refs: Sequence[Any]) -> tuple[list[tuple[str, UnitRows | SavedRows]], list[ExtractedPage]]:
    """The pages ``refs`` name, as (shard file, its rows) units for the workers, in the
    order of each shard's first page, and the pages the client holds itself (an
    ExtractedPage among the refs). From :class:`ShardPlaces`, each unit's rows are an
    array, with no object a page made (a list of a million refs and their rows' ints was
    about 130 MB of the client's peak, at the filter stage), or saved in the run's folder
    (``ShardPlaces.units``): then the task graphs carry a file's name, not a page's row."""
    if isinstance(refs, ShardPlaces):
        return _place_units(refs)
    rows: dict[str, list[int]] = {}
    here: list[ExtractedPage] = []
    for ref in refs:
        if isinstance(ref, ShardRef):
            rows.setdefault(ref.shard, []).append(ref.row)
        elif isinstance(ref, ExtractedPage):
            here.append(ref)
    return list(rows.items()), here


def _place_units(places: ShardPlaces) -> tuple[list[tuple[str, UnitRows | SavedRows]], list[ExtractedPage]]:
    units = places.units()
    here = [page for k in np.flatnonzero(places.shards < 0).tolist()
            if isinstance(page := places[k], ExtractedPage)]
    return units, here


def shard_bag(units: Sequence[Any]) -> Any:
    """A Dask bag of one partition a unit (a shard file's task), for a tree reduction."""
    import dask.bag as db

    return db.from_sequence(units, npartitions=len(units))  # type: ignore[no-untyped-call]


def _partition(items: Iterable[tuple[str, UnitRows | SavedRows]]) -> SiteCounts:
    return merge(shard_counts(shard, rows) for shard, rows in items)


def site_counts_on(client: Any, refs: Sequence[Any]) -> Any:
    """A Dask future of the counts of the pages ``refs`` name (ShardRefs; anything else
    is a page the client holds and is counted here, into the result's last part)."""
    units, here = shard_units(refs)
    if not units:
        return None, page_counts(here)
    tree = shard_bag(units).reduction(_partition, merge, split_every=SPLIT_EVERY,
                                      name="site-counts")
    return client.compute(tree), page_counts(here)


def boilerplate_of(counts: SiteCounts, infos: Sequence[PageInfo], min_pages: int,
                   share: float) -> dict[str, np.ndarray]:
    """``site_boilerplate``'s answer from the whole crawl's counts, its sites in the order
    of their first page (as ``site_boilerplate`` gives them)."""
    order: dict[str, None] = {}
    for info in infos:
        site = site_of(info)
        if site is not None and site not in order:
            order[site] = None
    out: dict[str, np.ndarray] = {}
    for site in order:
        pages, ids, counts_of = counts.get(site, (0, np.empty(0, np.int64), np.empty(0, np.int64)))
        if pages < min_pages or not len(ids):
            continue
        boiler = ids[counts_of >= max(3, share * pages)]
        if len(boiler):
            out[site] = boiler
    return out
