"""Where a cluster run's pages are, a few bytes a page: each one's shard and row.

The map tasks' logs name every page by a :class:`ShardRef` (its shard's path, its row and
its note). The client keeps where the pages are from the read-back until the matrix's rows
are made (the reductions over the shards start from it), and a list of refs cost it about
80 bytes a page for that (the ref, its row's int and the list's pointer).
:class:`ShardPlaces` holds the same as two integer arrays (12 bytes a page) and the paths
once, and gives the refs back one by one, as the list did. :class:`PlaceEntries` makes
them as the logs are replayed, so that no list of refs is ever held.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from workbench.cluster.records.saved_rows import SavedRows, UnitRows, saved_parts
from workbench.cluster.records.shards import ShardRef
from workbench.core.indexed_rows import IndexedRows
from workbench.core.records import SkipRecord
from workbench.detect.workers.parallel import Entries, settled

_NOT_IN_A_SHARD = -1
_AT_ONCE = 4096  # pages iterated a slice at a time


class PlaceEntries(Entries[Any]):
    """A cluster run's output as it comes (``run_plan``'s entries): each ShardRef kept as
    its shard's number and its row in two growing C arrays, and let go at once. A list of
    the refs cost the client about 100 bytes a page until the run ended (210 MB of
    Python's arenas at a million pages, left fragmented once they were freed); these
    arrays cost 12. Anything else (skip records, pages the client read, places a
    follow-up task fills) is kept by its place. ``folder``: the run's work folder, where
    the places save their units' rows for the tasks (:meth:`ShardPlaces.units`)."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = folder
        self.paths: list[str] = []  # the shards, in the order of their first page
        self._number: dict[str, int] = {}
        self._shards = array("i")  # each entry's shard (an index into paths), or -1
        self._rows = array("q")
        self._others: dict[int, Any] = {}  # the entries that are not refs, by their place
        self._notes: dict[int, SkipRecord] = {}  # the refs' notes, by their place

    def _shard(self, path: str) -> int:
        at = self._number.get(path)
        if at is None:
            at = self._number[path] = len(self.paths)
            self.paths.append(path)
        return at

    def append(self, entry: Any) -> None:
        if isinstance(entry, ShardRef):
            if entry.note is not None:
                self._notes[len(self._rows)] = entry.note
            self._shards.append(self._shard(entry.shard))
            self._rows.append(entry.row)
        else:
            self._others[len(self._rows)] = entry
            self._shards.append(_NOT_IN_A_SHARD)
            self._rows.append(0)

    def results(self) -> tuple[ShardPlaces, list[SkipRecord]]:
        """Where the pages are, and the skip records, as ``ListEntries`` gives them."""
        shards = np.array(self._shards, dtype=np.int32)
        rows = np.array(self._rows, dtype=np.int64)
        self._shards, self._rows = array("i"), array("q")
        is_page = np.ones(len(shards), dtype=bool)
        skipped: list[SkipRecord] = []
        notes: dict[int, SkipRecord] = {}
        others: dict[int, Any] = {}
        for k in sorted(self._others.keys() | self._notes.keys()):
            value = settled(self._others[k]) if k in self._others else None
            if isinstance(value, SkipRecord):
                is_page[k] = False
                skipped.append(value)
                continue
            if isinstance(value, ShardRef):  # a page a follow-up task left in its shard
                shards[k], rows[k] = self._shard(value.shard), value.row
            elif value is not None:
                others[k] = value
            note = self._notes.get(k) if value is None else getattr(value, "note", None)
            if isinstance(note, SkipRecord):
                notes[k] = note
                skipped.append(note)
        number = np.cumsum(is_page) - 1  # each entry's page number, if it is a page
        paths, shards = _by_first_page(self.paths, shards[is_page])
        places = ShardPlaces.of(
            paths, shards, rows[is_page],
            {int(number[k]): note for k, note in notes.items()},
            {int(number[k]): value for k, value in others.items()}, self.folder)
        return places, skipped


def _by_first_page(paths: list[str], shards: np.ndarray) -> tuple[list[str], np.ndarray]:
    """``paths`` in the order of their first page, and the pages' shards renumbered so (a
    follow-up task's shard was numbered when the run ended)."""
    held = shards == _NOT_IN_A_SHARD
    used, first = np.unique(shards[~held], return_index=True)
    used = used[np.argsort(first)]
    number = np.zeros(len(paths), dtype=np.int32)
    number[used] = np.arange(len(used), dtype=np.int32)
    renumbered = np.where(held, _NOT_IN_A_SHARD, number[np.maximum(shards, 0)]).astype(np.int32)
    return [paths[int(s)] for s in used], renumbered


class ShardPlaces(IndexedRows[Any]):
    """``refs`` (ShardRefs, and anything else: a page the client holds) in their order,
    compactly. Item ``k`` is a ShardRef equal to the k-th ref (a new object), or the
    thing that stood there."""

    def __init__(self, refs: Iterable[Any]) -> None:
        entries = PlaceEntries()
        for ref in refs:
            entries.append(ref)
        # Every ref is a page here (none is a skip record, nor a place left to fill), so
        # an entry's place is its page's number.
        self._set(entries.paths, np.array(entries._shards, dtype=np.int32),
                  np.array(entries._rows, dtype=np.int64), entries._notes, entries._others)

    @classmethod
    def of(cls, paths: list[str], shards: np.ndarray, rows: np.ndarray, notes: dict[int, SkipRecord],
           others: dict[int, Any], folder: Path | str | None = None) -> ShardPlaces:
        """The places made of their arrays: each page's shard (an index into ``paths``, -1
        for a page not in a shard: ``others`` holds it, by its number) and row; the notes
        of the pages that have one. ``folder``: where to save the units' rows for the
        tasks (None: the tasks are given the arrays)."""
        made = cls.__new__(cls)
        made._set(paths, shards, rows, notes, others, folder)
        return made

    def _set(self, paths: list[str], shards: np.ndarray, rows: np.ndarray, notes: dict[int, SkipRecord],
             others: dict[int, Any], folder: Path | str | None = None) -> None:
        self.paths = paths  # the shards, in the order of their first page
        self.shards = shards  # each page's shard, an index into paths
        self.rows = rows
        self._notes = notes  # the few pages that carry a note
        self._others = others  # whatever is not a ShardRef, by its page's number
        self.folder = folder
        # The units' rows and pages' numbers once saved into the folder (a few bytes a unit):
        # every reduction of the run is given the same files.
        self._saved: dict[str, list[SavedRows]] = {}

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

    def units(self) -> list[tuple[str, UnitRows | SavedRows]]:
        """Each shard of ``paths`` with the rows of it the run kept, in page order: as
        arrays, or saved once into the run's folder when the places have one (a task
        reads its own: ``saved_rows.rows_here``)."""
        rows = self._per_shard("unit-rows", lambda: self.rows[self.by_shard()])
        return list(zip(self.paths, rows, strict=True))

    def unit_numbers(self) -> list[UnitRows | SavedRows]:
        """The numbers in the run of :meth:`units`' pages, unit by unit, as their rows are."""
        return self._per_shard("unit-pages", self.by_shard)

    def _per_shard(self, kind: str, whole: Callable[[], np.ndarray]) -> list[Any]:
        """``whole()`` (a value a page, shard after shard) cut into its shards' parts."""
        if kind in self._saved:
            return self._saved[kind]
        values = whole()
        sizes = self.pages_in()
        ends = np.cumsum(sizes)
        if self.folder is None:
            return [values[lo:hi] for lo, hi in zip((ends - sizes).tolist(), ends.tolist(), strict=True)]
        saved = self._saved[kind] = saved_parts(values, ends, self.folder, kind)
        return saved

    def __iter__(self) -> Iterator[Any]:
        for k, shard, row in self.where():
            yield self._item(k, shard, row)
