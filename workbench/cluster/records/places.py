"""Where a cluster run's pages are, a few bytes a page: each one's shard and row.

The map tasks' logs name every page by a :class:`ShardRef` (its shard's path, its row and
its note). The client keeps where the pages are from the read-back until the matrix's rows
are made (the reductions over the shards start from it), and a list of refs cost it about
80 bytes a page for that (the ref, its row's int and the list's pointer).
:class:`ShardPlaces` holds the same as two integer arrays (12 bytes a page) and the paths
once, and gives the refs back one by one, as the list did.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from workbench.cluster.records.shards import ShardRef
from workbench.core.indexed_rows import IndexedRows
from workbench.core.records import SkipRecord

_NOT_IN_A_SHARD = -1
_AT_ONCE = 4096  # pages iterated a slice at a time


class ShardPlaces(IndexedRows[Any]):
    """``refs`` (ShardRefs, and anything else: a page the client holds) in their order,
    compactly. Item ``k`` is a ShardRef equal to the k-th ref (a new object), or the
    thing that stood there."""

    def __init__(self, refs: Iterable[Any]) -> None:
        self.paths: list[str] = []  # the shards, in the order of their first page
        number: dict[str, int] = {}
        shards: list[int] = []
        rows: list[int] = []
        self._notes: dict[int, SkipRecord] = {}  # the few refs that carry a note
        self._others: dict[int, Any] = {}  # whatever is not a ShardRef, by its place
        for k, ref in enumerate(refs):
            if isinstance(ref, ShardRef):
                at = number.get(ref.shard)
                if at is None:
                    at = number[ref.shard] = len(self.paths)
                    self.paths.append(ref.shard)
                shards.append(at)
                rows.append(ref.row)
                if ref.note is not None:
                    self._notes[k] = ref.note
            else:
                shards.append(_NOT_IN_A_SHARD)
                rows.append(0)
                self._others[k] = ref
        self.shards = np.array(shards, dtype=np.int32)  # each page's shard, an index into paths
        self.rows = np.array(rows, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.shards)

    def _item(self, k: int, shard: int, row: int) -> Any:
        if shard == _NOT_IN_A_SHARD:
            return self._others[k]
        return ShardRef(self.paths[shard], row, self._notes.get(k))

    def _row(self, k: int) -> Any:
        return self._item(k, int(self.shards[k]), int(self.rows[k]))

    def where(self) -> Iterator[tuple[int, int, int]]:
        """Each page's number, shard (an index into ``paths``; -1: not in a shard, the
        page's item is whatever stood there) and row, in order."""
        for lo in range(0, len(self), _AT_ONCE):  # not a Python int for every page at once
            shards = self.shards[lo : lo + _AT_ONCE].tolist()
            rows = self.rows[lo : lo + _AT_ONCE].tolist()
            yield from zip(range(lo, lo + len(shards)), shards, rows, strict=True)

    def by_shard(self) -> np.ndarray:
        """The numbers of the pages in a shard, shard after shard (in ``paths``' order),
        in page order within each: shard i's are the ``pages_in()[i]`` after those of the
        shards before it."""
        order = np.argsort(self.shards, kind="stable")
        return order[np.count_nonzero(self.shards == _NOT_IN_A_SHARD):]

    def pages_in(self) -> np.ndarray:
        """How many pages each shard of ``paths`` holds."""
        return np.bincount(self.shards[self.shards != _NOT_IN_A_SHARD], minlength=len(self.paths))

    def __iter__(self) -> Iterator[Any]:
        for k, shard, row in self.where():
            yield self._item(k, shard, row)
