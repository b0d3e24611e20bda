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
    masks: list[np.ndarray | None] = [None] * len(infos)
    for i, info in enumerate(infos):
        site = site_of(info)
        if site in boiler:
            masks[i] = np.isin(block_hashes[i], boiler[site])
    return masks
