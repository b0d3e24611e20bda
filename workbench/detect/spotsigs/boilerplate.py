"""Site boilerplate: layout blocks that one site repeats on many of its pages.

Modern templates carry teaser paragraphs, newsletters pitches and legal notices long
enough to look like prose; the per-block filter keeps them, and two different stories
in one template then share most of their signatures. A block whose exact text recurs
on a large share of one site's pages is the site's, not the story's, so its spots are
left out. Pages whose site cannot be told (no URL, no host-named folder, no clear
host among their links) are never touched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np

from workbench.core.distinct import distinct
from workbench.core.records import PageInfo
from workbench.detect.spotsigs.corpus_boilerplate import corpus_boilerplate

__all__ = ["ANY_SITE", "boilerplate_masks", "corpus_boilerplate", "repeated_blocks", "site_boilerplate",
           "site_of"]

_HOST = re.compile(r"^(?=.*[a-z])[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?$", re.I)


def site_of(info: PageInfo) -> str | None:
    """The page's site: the URL's host, a first folder named like a host (wget, HTTrack),
    or else the host most of its links point to (pages saved with "Save As")."""
    if info.url:
        try:
            host = urlsplit(info.url).hostname
        except ValueError:
            host = None
        if host:
            return host.lower()
    first, sep, _ = info.source.partition("/")
    if sep and _HOST.match(first):
        return first.lower()
    return getattr(info, "link_host", None)


def site_boilerplate(
    infos: Sequence[PageInfo],
    block_hashes: Sequence[np.ndarray],
    min_pages: int,
    share: float,
) -> dict[str, np.ndarray]:
    """For every site with at least ``min_pages`` pages, the ids of its boilerplate blocks."""
    by_site: dict[str, list[int]] = {}
    for i, info in enumerate(infos):
        site = site_of(info)
        if site is not None:
            by_site.setdefault(site, []).append(i)
    out: dict[str, np.ndarray] = {}
    for site, members in by_site.items():
        if len(members) < min_pages:
            continue
        per_page = [distinct(block_hashes[i]) for i in members]
        if not any(len(h) for h in per_page):
            continue
        hashes, counts = np.unique(np.concatenate(per_page), return_counts=True)
        boiler = hashes[counts >= max(3, share * len(members))]
        if len(boiler):
            out[site] = boiler
    return out


def repeated_blocks(
    infos: Sequence[PageInfo],
    block_hashes: Sequence[np.ndarray],
    min_pages: int,
    share: float,
) -> list[np.ndarray | None]:
    """For every page, a mask over its blocks: True where the block is site boilerplate."""
    return boilerplate_masks(infos, block_hashes, site_boilerplate(infos, block_hashes, min_pages, share))


def boilerplate_masks(
    infos: Sequence[PageInfo], block_hashes: Sequence[np.ndarray], boiler: dict[str, np.ndarray]
) -> list[np.ndarray | None]:
    """Per page, True for its blocks that are its site's boilerplate or anyone's
    (``boiler[ANY_SITE]``); None when nothing is left out.

    One membership test per site over all its pages' blocks, not one per page: with a
    few thousand boilerplate ids a test per page re-sorted them 100,000 times (minutes on
    a 100,000-page crawl).
    """
    n = len(infos)
    everywhere = boiler.get(ANY_SITE)
    if everywhere is not None and not len(everywhere):
        everywhere = None
    site_ids = {site: ids for site, ids in boiler.items() if site != ANY_SITE}
    page_site = np.full(n, -1, dtype=np.int64)
    if site_ids:
        # A page without a site (None) has no site's boilerplate.
        number: dict[str | None, int] = {site: k for k, site in enumerate(site_ids)}
        for i, info in enumerate(infos):
            page_site[i] = number.get(site_of(info), -1)
    touched = page_site >= 0 if everywhere is None else np.ones(n, dtype=bool)
    if not touched.any():
        return [None] * n
    sizes = np.fromiter((len(h) for h in block_hashes), dtype=np.int64, count=n)
    flat = np.concatenate([np.asarray(h, np.int64) for h in block_hashes]) if n else np.empty(0, np.int64)
    mask = np.zeros(len(flat), dtype=bool) if everywhere is None else np.isin(flat, everywhere)
    if site_ids:
        entry_site = np.repeat(page_site, sizes)
        order = np.argsort(entry_site, kind="stable")
        bounds = np.searchsorted(entry_site[order], np.arange(len(site_ids) + 1))
        for k, ids in enumerate(site_ids.values()):
            where = order[bounds[k] : bounds[k + 1]]
            mask[where] |= np.isin(flat[where], ids)
    parts = np.split(mask, np.cumsum(sizes)[:-1])
    return [part if touched[i] else None for i, part in enumerate(parts)]


# Blocks are written to RunFilters.boilerplate under this key: boilerplate on any site.
ANY_SITE = "*"
