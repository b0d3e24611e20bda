"""The corpus boilerplate's inputs made by the cluster's tasks: only the blocks that weigh.

The corpus boilerplate (``corpus_boilerplate``) is decided over every page's blocks at
once: a candidate's pages are sampled across the whole crawl. Read whole by the client,
every page's block hashes and weights and the decision's arrays over them were its peak
of a ``--dask`` run: about 2.3 KB a small page (1.3 GB above what it held, on a million).

Yet most blocks are on one page or two, and such a block can be neither a candidate nor
in one's core: it counts only in its pages' totals, and in their own share when no other
page has it (``fewest_pages_weighed``). So the cluster does it in two steps:

1. each shard unit counts the pages of each of its blocks, and the counts are added up
   pairwise on the workers (a tree reduction, as the site counts are); the last task
   keeps the blocks on two pages or more with their counts;
2. one task a unit then gives, for each of its pages, its total weight, its weight in
   blocks on no other page, and its blocks that weigh (each once, its copies' weights
   added up).

The client copies the units' answers in the run's order into arrays sized once, and
decides with ``corpus_boilerplate_weighed``: the same blocks to the last bit.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from workbench.cluster.filters.reduce import SPLIT_EVERY, merge_counts, shard_bag, shard_units
from workbench.cluster.records.saved_rows import SavedRows, UnitRows, rows_here
from workbench.cluster.records.shards import read_block_inputs
from workbench.cluster.tasks import wait_all
from workbench.core.progress import ProgressFn
from workbench.detect.spotsigs.corpus_boilerplate import block_weights, fewest_pages_weighed
from workbench.detect.spotsigs.extract import ExtractedPage

# (block hashes sorted, how many pages carry each).
BlockCounts = tuple[np.ndarray, np.ndarray]
# A unit's answer: its pages' weighed blocks (their numbers among the weighed blocks,
# their summed weights, how many a page), and each page's total weight and own weight
# (in blocks on no other page).
Weighed = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# corpus_boilerplate_weighed's inputs before its parameters: the weighed blocks' hashes and
# pages, then every page's weighed blocks (numbers, weights, sizes), totals and own weights.
CorpusInputs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
TASK = "corpus-blocks"  # the second step's tasks' names on the scheduler
RETRIES = 2


def _flat(hashes: np.ndarray, weights: np.ndarray, sizes: np.ndarray,
          saved: UnitRows | SavedRows | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``saved`` of a shard's flat block columns (all of them: None)."""
    rows = None if saved is None else rows_here(saved)
    if rows is None or np.array_equal(rows, np.arange(len(sizes))):
        return hashes, weights, sizes
    ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    rows = np.asarray(rows, dtype=np.int64)
    keep = np.concatenate([np.arange(ptr[r], ptr[r + 1]) for r in rows.tolist()] or [np.empty(0, np.int64)])
    return hashes[keep], weights[keep], sizes[rows]


def page_blocks(hashes: np.ndarray, weights: np.ndarray, sizes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each page's blocks once, by page then hash, with their copies' weights added up,
    and each page's number of them."""
    page = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    order = np.lexsort((hashes, page))
    page, hashes, weights = page[order], hashes[order], weights[order]
    first = np.ones(len(page), dtype=bool)
    first[1:] = (page[1:] != page[:-1]) | (hashes[1:] != hashes[:-1])
    at = np.flatnonzero(first)
    summed = np.add.reduceat(weights, at) if len(at) else weights[:0]
    return hashes[at], summed, np.bincount(page[at], minlength=len(sizes))


def counts_of(hashes: np.ndarray, weights: np.ndarray, sizes: np.ndarray) -> BlockCounts:
    """The pages' blocks and how many of the pages carry each (step 1 of one unit)."""
    once, _, _ = page_blocks(hashes, weights, sizes)
    ids, pages = np.unique(once, return_counts=True)
    return ids, pages.astype(np.int64)


def weighed_of(hashes: np.ndarray, weights: np.ndarray, sizes: np.ndarray, counted: BlockCounts,
               least: int) -> Weighed:
    """Step 2 for these pages: ``counted`` holds every block on two pages or more of the
    crawl, and how many (every block, when ``least`` is 1); a block weighs when on
    ``least`` pages or more. Its weighed blocks are given by their place among the weighed
    ones (int32, ascending within a page, as the hashes are), not by their hashes."""
    once, summed, per_page = page_blocks(hashes, weights, sizes)
    ids, pages = counted
    at = np.minimum(np.searchsorted(ids, once), max(len(ids) - 1, 0))
    on = np.where(ids[at] == once, pages[at], 1) if len(ids) else np.ones(len(once), np.int64)
    page = np.repeat(np.arange(len(sizes), dtype=np.int64), per_page)
    as_float = summed.astype(np.float64)
    # Weights are whole numbers (spots), so these sums are exact in any order.
    total = np.bincount(page, weights=as_float, minlength=len(sizes))
    own = np.bincount(page, weights=as_float * (on == 1), minlength=len(sizes))
    keep = on >= least
    weighed = ids[pages >= least]
    number = np.searchsorted(weighed, once[keep]).astype(np.int32)
    return (number, as_float[keep], np.bincount(page[keep], minlength=len(sizes)).astype(np.int64),
            total, own)


def _here_inputs(pages: Sequence[ExtractedPage]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The client's own pages' blocks, flat as a shard's columns are."""
    if not pages:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64)
    return (np.concatenate([np.asarray(p.block_hashes, np.int64) for p in pages]),
            np.concatenate([block_weights(p.spot_block, p.n_blocks) for p in pages]).astype(np.int64),
            np.fromiter((p.n_blocks for p in pages), dtype=np.int64, count=len(pages)))


def shared(counts: BlockCounts, least: int) -> BlockCounts:
    """The blocks on two pages or more, and how many (every block, when a block on one
    page weighs: ``least`` 1)."""
    ids, pages = counts
    keep = pages >= min(2, least)
    return ids[keep], pages[keep]


def _count_partition(items: Iterable[tuple[str, UnitRows | SavedRows]]) -> BlockCounts:
    return merge_counts(counts_of(*_flat(*read_block_inputs(shard), rows)) for shard, rows in items)


def weighed_task(shard: str, rows: UnitRows | SavedRows, counted: BlockCounts, least: int) -> Weighed:
    """Task: step 2 for rows ``rows`` of a page shard."""
    return weighed_of(*_flat(*read_block_inputs(shard), rows), counted, least)


def corpus_inputs_on(client: Any, refs: Sequence[Any], min_pages: int, sample: int,
                     progress: ProgressFn) -> CorpusInputs:
    """``corpus_boilerplate_weighed``'s inputs for the pages ``refs`` names, in the run's
    order (ShardRefs, or ShardPlaces; an ExtractedPage there is a page the client holds
    and is done here)."""
    from workbench.cluster.filters.rows import segments

    least = fewest_pages_weighed(min_pages, sample)
    units, here = shard_units(refs)
    mine = _here_inputs(here)
    own_counts = counts_of(*mine)
    tree = shard_bag(units).reduction(_count_partition, merge_counts, split_every=SPLIT_EVERY,
                                      name="corpus-block-pages")
    [counted] = client.compute([tree.apply(lambda whole: shared(merge_counts([whole, own_counts]), least))])
    run = uuid.uuid4().hex
    futures = [client.submit(weighed_task, shard, rows, counted, least, pure=False, retries=RETRIES,
                             key=f"{TASK}-{run}-{k}")
               for k, (shard, rows) in enumerate(units)]
    tasks = len(futures) + 1
    wait_all(client, [counted, *futures], lambda done: progress("tasks", done, tasks), gather=False)
    ids, pages = counted.result()
    here_answer = weighed_of(*mine, (ids, pages), least) if here else None
    del mine
    answers: list[Any] = futures
    del futures  # each answer is fetched once, and its future let go after its last run
    return _in_run_order(segments(refs), answers, here_answer, len(refs), (ids, pages), least)


def _in_run_order(runs: list[tuple[int, int, int]], answers: list[Any], here_answer: Weighed | None,
                  n: int, counted: BlockCounts, least: int) -> CorpusInputs:
    """The units' answers (futures, fetched one at a time and let go after their last run)
    copied in the run's order into arrays sized once."""
    ids, pages = counted
    weighed = pages >= least
    ids, pages = ids[weighed], pages[weighed]
    # Every page of a weighed block sends it once: their number is its count of pages.
    blocks = int(pages.sum())
    numbers = np.empty(blocks, dtype=np.int32)
    weights = np.empty(blocks, dtype=np.float64)
    sizes = np.empty(n, dtype=np.int64)
    total = np.empty(n, dtype=np.float64)
    own = np.empty(n, dtype=np.float64)
    last_run = {unit: k for k, (unit, _, _) in enumerate(runs)}
    held: dict[int, Weighed] = {}
    at = page = 0
    for k, (unit, lo, hi) in enumerate(runs):
        if unit < 0:
            assert here_answer is not None
            got = here_answer
        else:
            got = held[unit] if unit in held else answers[unit].result()
            held[unit] = got
            if last_run[unit] == k:
                del held[unit]
                answers[unit] = None  # the future goes: its answer leaves the cluster
        ptr = np.zeros(len(got[2]) + 1, dtype=np.int64)
        np.cumsum(got[2], out=ptr[1:])
        a, b = int(ptr[lo]), int(ptr[hi])
        if at + b - a > blocks:
            raise RuntimeError("the units sent more weighed blocks than the crawl's counts hold")
        numbers[at : at + b - a], weights[at : at + b - a] = got[0][a:b], got[1][a:b]
        sizes[page : page + hi - lo], total[page : page + hi - lo], own[page : page + hi - lo] = (
            got[2][lo:hi], got[3][lo:hi], got[4][lo:hi])
        at, page = at + b - a, page + hi - lo
    if at != blocks or page != n:
        raise RuntimeError(f"the units sent {at:,} weighed blocks of {page:,} pages, "
                           f"not {blocks:,} of {n:,}")
    return ids, pages, numbers, weights, sizes, total, own
