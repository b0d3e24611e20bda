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

from workbench.core.records import PageInfo

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
        per_page = [np.unique(block_hashes[i]) for i in members]
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
        number = {site: k for k, site in enumerate(site_ids)}
        for i, info in enumerate(infos):
            page_site[i] = number.get(site_of(info), -1)  # type: ignore[arg-type]
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


def corpus_boilerplate(
    block_hashes: Sequence[np.ndarray],
    block_weights: Sequence[np.ndarray],
    min_pages: int,
    max_core_share: float = 0.5,
    sample: int = 200,
    min_own_share: float = 0.0,
) -> np.ndarray:
    """Blocks repeated verbatim on many pages, whatever their site, that are not a story.

    Archive banners, comment rules, "email this story" forms and template teasers recur
    on many pages that are otherwise about different things; the paragraphs of a
    syndicated story recur on many pages too, but those pages are about that story. So
    for a block B on at least ``min_pages`` pages, the *core* of B's pages is every block
    found on at least half of them (B included), and B is boilerplate when on the typical
    page (the median) the core holds at most ``max_core_share`` of the page's signatures:
    B's pages share B and little else.

    Pages full of other boilerplate (ads, copyright lines) make a story's core look small,
    so the share is measured twice: first against the whole page, then, for the blocks
    the first pass found, against the page without the other blocks that pass found. A
    story paragraph survives the second pass (what is left of its pages is the story);
    a banner, a copyright line or a template teaser does not (what is left is each
    page's own story).

    And the pages must be mostly their own: on the typical page at least
    ``min_own_share`` of the signatures stand in blocks no other page has. Pages that
    carry a banner each have a story of their own; the copies of a short syndicated story,
    each framed by a template other pages share too, have hardly any text of their own,
    so their story's paragraphs stay even when the frames make them a small part of the
    page. Weights are signatures per block. At most ``sample`` pages of each block are
    looked at (evenly spread), so the cost stays linear in the corpus.
    """
    if not block_hashes or not sum(len(h) for h in block_hashes):
        return np.empty(0, np.int64)
    weight_of = [_weights(h, w) for h, w in zip(block_hashes, block_weights, strict=True)]
    pages_of: dict[int, list[int]] = {}
    for p, weights in enumerate(weight_of):
        for h in weights:
            pages_of.setdefault(h, []).append(p)
    cores: dict[int, tuple[list[int], set[int]]] = {}
    for h, pages in pages_of.items():
        if len(pages) < max(min_pages, 2):
            continue
        if len(pages) > sample:
            pages = [pages[int(k)] for k in np.linspace(0, len(pages) - 1, sample)]
        seen: dict[int, int] = {}
        for p in pages:
            for b in weight_of[p]:
                seen[b] = seen.get(b, 0) + 1
        core = {b for b, n in seen.items() if 2 * n >= len(pages)}
        if _median_share(pages, core, weight_of, set()) <= max_core_share:
            cores[h] = (pages, core)
    first = set(cores)
    own = [sum(w for b, w in weights.items() if len(pages_of[b]) == 1) / max(sum(weights.values()), 1e-9)
           for weights in weight_of]
    out = [h for h, (pages, core) in cores.items()
           if _median_share(pages, core, weight_of, first) <= max_core_share
           and float(np.median([own[p] for p in pages])) >= min_own_share]
    return np.asarray(sorted(out), dtype=np.int64)


def _weights(hashes: np.ndarray, weights: np.ndarray) -> dict[int, float]:
    """A page's blocks with their signature weights (a block repeated on the page adds up)."""
    out: dict[int, float] = {}
    for h, w in zip(np.asarray(hashes).tolist(), np.asarray(weights, np.float64).tolist(), strict=True):
        out[h] = out.get(h, 0.0) + w
    return out


def _median_share(pages: list[int], core: set[int], weight_of: list[dict[int, float]],
                  ignore: set[int]) -> float:
    """The median over pages of the core's share of the page's signatures, leaving the
    ``ignore`` blocks (other boilerplate) out of the page."""
    shares = []
    for p in pages:
        in_core = rest = 0.0
        for b, w in weight_of[p].items():
            if b in core:
                in_core += w
            elif b not in ignore:
                rest += w
        if in_core + rest > 0:
            shares.append(in_core / (in_core + rest))
    return float(np.median(shares)) if shares else 1.0
