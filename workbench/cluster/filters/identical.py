"""Pages with identical content (the same checksum) found by a tree reduction on the cluster.

The join indexes only the first page of each checksum (``matcher.plan_join``: a page's
representative is the first page with its checksum). Each shard's task reads only its
pages' checksums and gives, per checksum, its first page's number in the run, and the
other pages with that checksum; partial answers are merged pairwise up a tree on the
workers (``dask.bag``'s ``reduction``), and the last task resolves every later page to its
checksum's first page. Only those pairs (one per page that repeats another) reach the
client, which no longer sorts every page's checksum itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from workbench.cluster.filters.reduce import SPLIT_EVERY, shard_bag
from workbench.cluster.records.places import ShardPlaces
from workbench.cluster.records.saved_rows import SavedRows, UnitRows, rows_here
from workbench.cluster.records.shards import ShardRef
from workbench.detect.spotsigs.extract import ExtractedPage

# (checksums sorted and distinct, each one's first page, the later pages found so far
# with one of them, and their checksums).
FirstPages = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def first_pages(checksums: np.ndarray, numbers: np.ndarray) -> FirstPages:
    """The answer for pages ``numbers`` with these checksums (bytes)."""
    return merge([(checksums, np.asarray(numbers, np.int64), np.empty(0, np.int64), checksums[:0])])


def merge(parts: Iterable[FirstPages]) -> FirstPages:
    """Partial answers merged (the reduction's step; associative and commutative): of the
    pages that share a checksum, the lowest number is its first, the others later pages."""
    got = list(parts)
    keys = np.concatenate([g[0] for g in got])
    numbers = np.concatenate([g[1] for g in got])
    order = np.lexsort((numbers, keys))  # by checksum, then number
    keys, numbers = keys[order], numbers[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    later = np.concatenate([numbers[~first], *(g[2] for g in got)])
    later_keys = np.concatenate([keys[~first], *(g[3] for g in got)])
    return keys[first], numbers[first], later, later_keys


def repeats(answer: FirstPages) -> tuple[np.ndarray, np.ndarray]:
    """The later pages and, for each, its checksum's first page."""
    keys, firsts, later, later_keys = answer
    return later, firsts[np.searchsorted(keys, later_keys)]


def groups(pages: int, later: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per page, its checksum's first page: a ``duplicate_group`` for the join that gives
    the same representatives as the checksums' ranks do."""
    group = np.arange(pages, dtype=np.int64)
    group[later] = first
    return group


def _as_bytes(checksums: Iterable[str]) -> np.ndarray:
    # As bytes, as pipeline.filter_corpus compares them.
    return np.array([c.encode() for c in checksums], dtype=bytes)


def shard_first_pages(shard: str, rows: UnitRows | SavedRows, numbers: UnitRows | SavedRows) -> FirstPages:
    """Task: the answer for rows ``rows`` of a page shard, pages ``numbers`` of the run.
    Only the shard's checksum column is read."""
    column = pq.read_table(shard, columns=["checksum"]).column(0).to_pylist()
    checksums = _as_bytes(column[r] for r in rows_here(rows))
    return first_pages(checksums, np.asarray(rows_here(numbers), np.int64))


def _partition(items: Iterable[_Unit]) -> FirstPages:
    return merge([shard_first_pages(shard, rows, numbers) for shard, (rows, numbers) in items])


# A shard's unit: its rows, and their pages' numbers in the run (arrays, or saved in the
# run's folder: ShardPlaces.units).
_Unit = tuple[str, tuple[UnitRows | SavedRows, UnitRows | SavedRows]]


def _units(refs: Sequence[Any]) -> tuple[list[_Unit], list[int], list[str]]:
    """The shards' units, and the numbers and checksums of the pages the client holds.
    From :class:`ShardPlaces`, arrays (no int object a page, held until the reduction ran)."""
    here_numbers: list[int] = []
    here_checksums: list[str] = []
    if isinstance(refs, ShardPlaces):
        out: list[_Unit] = [(shard, (rows, numbers))  # each shard's rows, in page order within it
                            for (shard, rows), numbers in zip(refs.units(), refs.unit_numbers(), strict=True)]
        for k in np.flatnonzero(refs.shards < 0).tolist():
            page = refs[k]
            if isinstance(page, ExtractedPage):
                here_numbers.append(k)
                here_checksums.append(page.info.checksum)
        return out, here_numbers, here_checksums
    rows: dict[str, tuple[list[int], list[int]]] = {}
    for k, ref in enumerate(refs):
        if isinstance(ref, ShardRef):
            at = rows.setdefault(ref.shard, ([], []))
            at[0].append(ref.row)
            at[1].append(k)
        elif isinstance(ref, ExtractedPage):
            here_numbers.append(k)
            here_checksums.append(ref.info.checksum)
    return list(rows.items()), here_numbers, here_checksums


def repeats_on(client: Any, refs: Sequence[Any]) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """Starts the reduction over the pages ``refs`` name, in the run's order (ShardRefs; an
    ExtractedPage there is a page the client holds and is looked at here); the call returned
    waits for :func:`repeats`' answer."""
    units, here_numbers, here_checksums = _units(refs)
    own = first_pages(_as_bytes(here_checksums), np.asarray(here_numbers, np.int64))
    if not units:
        decided = repeats(own)
        return lambda: decided
    tree = shard_bag(units).reduction(_partition, merge, split_every=SPLIT_EVERY,
                                      name="identical-pages")
    future = client.compute(tree.apply(lambda whole: repeats(merge([whole, own]))))
    return lambda: future.result()
