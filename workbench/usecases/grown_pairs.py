"""The pairs of a crawl that grew: probe only the pages whose pairs can have changed.

A full run's pairs are every pair of pages whose signatures (after the filters) have a
multiset Jaccard of at least the run's floor. A page read from an unchanged file whose
signatures the filters left exactly as in the project's run has, with every other such
page, exactly the pairs that run stored (same signatures, same similarity to the last
digit). So only the other pages are probed: the new and changed ones, and every old one
whose signatures the filters changed - a signature that crossed the IDF boundary
(too common now, or no longer), or a block that became (or stopped being) boilerplate of
its site or of every site. Their pairs with every page come from the probing
(:func:`workbench.detect.join.incremental.find_pairs_touching`), the others from the
project (workbench.store.runs.pairs.run_pair_arrays).

Identical pages (same checksum) are joined as a full run joins them
(workbench.detect.join.matcher): only the first of each group takes part and the others
get its pairs. An old page keeps its stored pairs only if it was the first of its group
in the stored run and is now.

Nothing is taken from the project unless the run stood for the same pages: the current
run is a SpotSigs run of this workbench version with the same extraction settings and
minimum of signatures, pairs stored down to the floor asked for or lower, and each old
page is found in it by key with the same checksum and URL. Otherwise every page is
probed, as in a full run (:func:`workbench.detect.join.matcher.find_pairs`); so too
when more than :data:`MOST_PROBED` of the pages would be probed, where probing costs more
than the full join. (Adding 10 % to 100,000 gensmall pages moved about 60,000 old pages'
signatures: blocks of every site's boilerplate changed verdict. Such an addition is
joined in full; a small one, or one that leaves the filters be, is not.)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench import __version__
from workbench.core.clusters.calibration import run_floor
from workbench.core.progress import ProgressFn
from workbench.core.records import PageInfo, RunFilters
from workbench.detect.join.incremental import find_pairs_touching
from workbench.detect.join.matcher import PairResult, SignatureMatrix, _with_duplicates, find_pairs
from workbench.detect.spotsigs.boilerplate import ANY_SITE, site_of
from workbench.detect.spotsigs.extract import ExtractedPage
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.kept_pages import AFTER_EXTRACTION
from workbench.usecases.pipeline import Join

_SPOTSIGS = "spotsigs"
# The share of the pages taking part above which every page is matched in a full join:
# probing a page against the whole index costs several times what the full join spends on
# it. Measured on the 110,000-page matrix of benchmarks/bench_grow.py (pair floor .15,
# load 13-17): the full join 25.1 and 41.7 s; probing 2 % of the pages 2.5 and 4.4 s, 5 %
# 6.2 s; 60 % 168 s against a full join of 54-178 s (load 17-33).
MOST_PROBED = 0.05


@dataclass(slots=True)
class StoredRun:
    """What of the project's current run an addition can take: its pages (key, checksum,
    URL by index), filters, floor and pairs (page indexes of the run)."""

    pages: list[tuple[str, str | None, str | None]]
    filters: RunFilters
    floor: float
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(slots=True)
class Probed:
    """How a grown crawl's pairs were found: pages probed and pairs taken from the run."""

    probed: int = 0  # pages that take part in the join and were probed
    active: int = 0  # pages that take part in the join (with signatures, first of their copies)
    reused: int = 0  # pairs taken from the stored run
    why_all: str | None = None  # why every page was probed (None: only those that changed)


def stored_run(project, params: SpotSigsParams) -> StoredRun | str:
    """The project's current run, if an addition may take pairs from it; else why not."""
    run = project.current_run()
    if run is None:
        return "the project has no run"
    if run.method != _SPOTSIGS:
        return f"its run is a {run.method} run"
    if run.software_version != __version__:
        return f"its run was made by workbench {run.software_version}, this is {__version__}"
    asked = json.loads(json.dumps(params.to_dict(), sort_keys=True, default=str))
    differ = sorted(k for k, v in asked.items()
                    if (k not in AFTER_EXTRACTION or k == "min_sigs") and run.params.get(k) != v)
    if differ:
        return f"its run was made with other settings ({', '.join(differ)})"
    return StoredRun(project.run_page_facts(run.id), project.run_filters(run.id), run_floor(run.params),
                     project.run_pair_arrays(run.id))


def filters_moved(kept: Sequence[ExtractedPage | None], before: RunFilters, now: RunFilters) -> np.ndarray:
    """Per page: True when it is kept (not None) and the filters ``before`` and ``now``
    may leave it other signatures: it has a signature whose IDF verdict changed, or a
    spot in a block whose boilerplate verdict changed (left out before and not now, or
    the other way round; a block is left out as its site's boilerplate or every site's).
    A page whose changed blocks hold no spot keeps its signatures."""
    moved = np.zeros(len(kept), dtype=bool)
    held = np.array([i for i, page in enumerate(kept) if page is not None], dtype=np.int64)
    pages: list[ExtractedPage] = [kept[i] for i in held.tolist()]  # type: ignore[misc]
    if not pages:
        return moved
    common = before.common ^ now.common
    if common:
        spots = _flat(pages, "spot_ids", "n_spots")
        moved[held[_rows_with_spots(pages, np.isin(spots, _ids(common)))]] = True
    if before.boilerplate == now.boilerplate:
        return moved
    blocks = _flat(pages, "block_hashes", "n_blocks")
    left_out = [f.boilerplate.get(ANY_SITE, frozenset()) for f in (before, now)]
    flipped = np.isin(blocks, _ids(left_out[0])) != np.isin(blocks, _ids(left_out[1]))
    sites = {site for site in set(before.boilerplate) | set(now.boilerplate)
             if site != ANY_SITE and before.boilerplate.get(site) != now.boilerplate.get(site)}
    on_site: dict[str, list[int]] = {}
    for k, page in enumerate(pages if sites else ()):
        site = site_of(page.info)
        if site in sites:
            on_site.setdefault(site, []).append(k)
    block_start = np.cumsum([0] + [p.n_blocks for p in pages])
    for site, rows in on_site.items():
        # The site's blocks and every site's, left out before and now.
        was, is_ = (_ids(f.boilerplate.get(site, frozenset()) | everywhere)
                    for f, everywhere in zip((before, now), left_out, strict=True))
        at = np.concatenate([np.arange(block_start[k], block_start[k + 1]) for k in rows])
        flipped[at] = np.isin(blocks[at], was) != np.isin(blocks[at], is_)
    moved[held[_rows_with_spots(pages, _by_spot(pages, flipped))]] = True
    return moved


def _ids(values: frozenset[int]) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64, count=len(values))


def _flat(pages: Sequence[ExtractedPage], values: str, sizes: str) -> np.ndarray:
    """The pages' ``values`` arrays (``spot_ids`` or ``block_hashes``) end to end."""
    if not pages:
        return np.empty(0, np.int64)
    return np.concatenate([getattr(p, values) for p in pages])


def _by_spot(pages: Sequence[ExtractedPage], per_block: np.ndarray) -> np.ndarray:
    """A flag per block of every page (end to end) as a flag per spot: its block's."""
    n_blocks = np.fromiter((p.n_blocks for p in pages), dtype=np.int64, count=len(pages))
    n_spots = np.fromiter((p.n_spots for p in pages), dtype=np.int64, count=len(pages))
    block_start = np.cumsum(n_blocks) - n_blocks
    spot_block = np.concatenate([p.spot_block for p in pages]) if pages else np.empty(0, np.int64)
    return per_block[np.repeat(block_start, n_spots) + spot_block]


def _rows_with_spots(pages: Sequence[ExtractedPage], per_spot: np.ndarray) -> np.ndarray:
    """The rows of ``pages`` with a spot flagged in ``per_spot`` (every page's spots end to end)."""
    n_spots = np.fromiter((p.n_spots for p in pages), dtype=np.int64, count=len(pages))
    return np.unique(np.repeat(np.arange(len(pages)), n_spots)[per_spot])


def first_of_copies(groups: np.ndarray | None, n: int) -> np.ndarray:
    """Each page's representative among identical pages: the first of its group (as the
    full join takes it: workbench.detect.join.matcher.plan_join)."""
    rep = np.arange(n, dtype=np.int64)
    if groups is not None and n:
        _, first, inverse = np.unique(groups, return_index=True, return_inverse=True)
        rep = first[inverse].astype(np.int64)
    return rep


def grown_pairs(m: SignatureMatrix, floor: float, groups: np.ndarray | None, progress: ProgressFn,
                pages: Sequence[PageInfo], kept: Sequence[ExtractedPage | None], now: RunFilters,
                stored: StoredRun, probed: Probed) -> PairResult:
    """Every pair of ``m`` >= ``floor`` (a full join's result), probing only the pages
    whose pairs may differ from the ``stored`` run's. ``kept[i]``: page i's extraction
    when it comes from an unchanged file (None: new or changed); ``now``: the filters of
    the grown crawl. ``probed`` is filled in."""
    n = m.n
    lengths = m.lengths().astype(np.int64)
    rep = first_of_copies(groups, n)
    first = rep == np.arange(n)
    active = first & (lengths > 0)

    old = np.full(n, -1, dtype=np.int64)  # each page's index in the stored run (-1: not there as it is)
    where = {key: k for k, (key, _, _) in enumerate(stored.pages)}
    for i, page in enumerate(pages):
        if kept[i] is None:
            continue
        k = where.get(page.key, -1)
        if k >= 0 and stored.pages[k][1:] == (page.checksum, page.url):
            old[i] = k
    stored_rep = first_of_copies(np.unique([c or "" for _, c, _ in stored.pages], return_inverse=True)[1]
                                 if stored.pages else None, len(stored.pages))
    same = old >= 0
    same[same] = stored_rep[old[same]] == old[same]  # first of its copies then and now
    same &= first & ~filters_moved(kept, stored.filters, now)

    probe = active & ~same
    probed.probed, probed.active = int(probe.sum()), int(active.sum())
    if probed.probed > MOST_PROBED * probed.active:
        probed.why_all = too_many(probed.probed, probed.active)
        return find_pairs(m, floor, groups, progress)
    found = find_pairs_touching(m, probe, floor, progress, active=active)

    # The stored pairs of two pages that kept their signatures, in the grown crawl's numbering.
    a, b, s = stored.pairs
    here = np.full(len(stored.pages), -1, dtype=np.int64)
    here[old[same]] = np.flatnonzero(same)
    a, b = here[a], here[b]
    keep = (a >= 0) & (b >= 0) & (s >= floor)
    a, b, s = a[keep], b[keep], s[keep]
    probed.reused = len(s)
    result = PairResult(np.concatenate([found.a, np.minimum(a, b)]),
                        np.concatenate([found.b, np.maximum(a, b)]),
                        np.concatenate([found.similarity, s]), found.candidates)
    return _with_duplicates(result, rep, lengths)


def too_many(probed: int, pages: int) -> str:
    return (f"{probed:,} of {pages:,} pages are new, changed or have other signatures after the "
            f"filters: above {MOST_PROBED:.0%}, a full join is faster")


def grown_join(project, params: SpotSigsParams, pages: Sequence[PageInfo], kept: list[ExtractedPage | None],
               now: RunFilters, probed: Probed | None = None) -> Join:
    """The join for a grown crawl's corpus (``pages``, ``kept`` and ``now`` as in
    :func:`grown_pairs`): the stored run's pairs where they hold, probing for the rest;
    a full join when the project's run cannot serve (``probed.why_all`` says why).
    ``kept`` is emptied once read (the pages' arrays can go)."""
    told = probed if probed is not None else Probed()

    def join(m: SignatureMatrix, floor: float, groups: np.ndarray | None, progress: ProgressFn) -> PairResult:
        read_now = sum(1 for page in kept if page is None)
        if read_now > MOST_PROBED * len(kept):  # too many to probe, whatever the filters did
            kept.clear()
            told.why_all = too_many(read_now, m.n)
            return find_pairs(m, floor, groups, progress)
        stored = stored_run(project, params)
        if isinstance(stored, StoredRun) and stored.floor > floor:
            stored = (f"its run stored pairs down to {stored.floor:g} only, this run needs them "
                      f"down to {floor:g}")
        if isinstance(stored, str):
            kept.clear()
            told.why_all = stored
            return find_pairs(m, floor, groups, progress)
        try:
            return grown_pairs(m, floor, groups, progress, pages, kept, now, stored, told)
        finally:
            kept.clear()

    return join


__all__ = ["MOST_PROBED", "Probed", "StoredRun", "filters_moved", "grown_join", "grown_pairs", "stored_run",
           "too_many"]
