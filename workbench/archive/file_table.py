"""The walk's files in a plan, a few bytes a file instead of an object a file.

A plan (workbench.archive.tasks) held the walk as a list of :class:`FileEntry` objects:
about 300 bytes a file in Python's small-object arenas, 300 MB for a million files. The
run lets the plan go as it submits its tasks, but the arenas stayed: objects made
meanwhile and kept (the run's other records) sit among the freed entries, so an arena is
seldom wholly free and given back. Measured on a 100,000-page cluster run, the arenas grew
by 30 MB while the plan was made and stayed there to the end, 26 MB of it holding no live
object. :class:`FileTable` keeps the same files as a few large strings and integer arrays
(on the C heap, given back whole) and makes each entry when asked for it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from workbench.archive.scan import FileEntry
from workbench.core.records import SkipRecord

Item = FileEntry | SkipRecord
_CHUNK = 4096  # files whose locations are joined into one string


class FileTable(Sequence[Item]):
    """``items`` (the walk's files and skip records, in order), compactly. Item ``k`` is a
    FileEntry equal to the k-th (a new object), or the skip record that stood there. A
    slice is a :class:`FileSlice` of the table (no entry made)."""

    def __init__(self, items: Iterable[Item]) -> None:
        self._chunks: list[str] = []  # locations, _CHUNK files a string
        self._ends = array("q")  # each file's end in its chunk's string
        # Where each file's ``rel`` starts in its location; -1: ``rel`` is not the end of its
        # location (a name the walk had to make readable), and is in ``_rels``.
        self._rel_at = array("q")
        self._sizes = array("q")
        self._rels: dict[int, str] = {}
        self._skips: dict[int, SkipRecord] = {}
        pending: list[str] = []
        end = 0
        for item in items:
            k = len(self._sizes)
            if isinstance(item, SkipRecord):
                self._skips[k] = item
                location, size, rel_at = "", 0, 0
            else:
                location, size = item.location, item.size
                rel_at = len(location) - len(item.rel)
                if not location.endswith(item.rel):
                    rel_at = -1
                    self._rels[k] = item.rel
            pending.append(location)
            end += len(location)
            self._ends.append(end)
            self._rel_at.append(rel_at)
            self._sizes.append(size)
            if len(pending) == _CHUNK:
                self._chunks.append("".join(pending))
                pending, end = [], 0
        if pending:
            self._chunks.append("".join(pending))

    def __len__(self) -> int:
        return len(self._sizes)

    @overload
    def __getitem__(self, k: int) -> Item: ...

    @overload
    def __getitem__(self, k: slice) -> FileSlice: ...

    def __getitem__(self, k: int | slice) -> Item | FileSlice:
        if isinstance(k, slice):
            lo, hi, step = k.indices(len(self))
            if step != 1:
                raise ValueError("a file table is sliced in order, one file after the other")
            return FileSlice(self, lo, max(hi, lo))
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        skip = self._skips.get(k)
        if skip is not None:
            return skip
        start = self._ends[k - 1] if k % _CHUNK else 0
        location = self._chunks[k // _CHUNK][start : self._ends[k]]
        rel_at = self._rel_at[k]
        rel = location[rel_at:] if rel_at >= 0 else self._rels[k]
        return FileEntry(location, rel, self._sizes[k])

    def __iter__(self) -> Iterator[Item]:
        for k in range(len(self)):
            yield self[k]

    def size(self, lo: int, hi: int) -> int:
        """The bytes of files ``lo`` to ``hi`` (skip records count none)."""
        return sum(self._sizes[lo:hi])


class FileSlice(Sequence[Item]):
    """Items ``lo`` to ``hi`` of a :class:`FileTable` (a plan's batch of files). Sent to
    a worker, it goes as the list of its entries: the table stays here."""

    __slots__ = ("table", "lo", "hi")

    def __init__(self, table: FileTable, lo: int, hi: int) -> None:
        self.table, self.lo, self.hi = table, lo, hi

    def __len__(self) -> int:
        return self.hi - self.lo

    @overload
    def __getitem__(self, k: int) -> Item: ...

    @overload
    def __getitem__(self, k: slice) -> Sequence[Item]: ...

    def __getitem__(self, k: int | slice) -> Item | Sequence[Item]:
        if isinstance(k, slice):
            return list(self)[k]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self.table[self.lo + k]

    def __iter__(self) -> Iterator[Item]:
        for k in range(self.lo, self.hi):
            yield self.table[k]

    def size(self) -> int:
        return self.table.size(self.lo, self.hi)

    def __reduce__(self) -> tuple[Any, tuple[list[Item]]]:
        return list, (list(self),)


def joined(first: Sequence[Item], then: Sequence[Item]) -> Sequence[Item]:
    """``first`` and ``then`` one after the other: one slice when ``then`` continues
    ``first`` in the same table (a plan's batches joined into larger tasks), else a list."""
    if (isinstance(first, FileSlice) and isinstance(then, FileSlice)
            and first.table is then.table and first.hi == then.lo):
        return FileSlice(first.table, first.lo, then.hi)
    return [*first, *then]


def files_size(items: Sequence[Item]) -> int:
    """The bytes of the files among ``items``."""
    if isinstance(items, FileSlice):
        return items.size()
    if isinstance(items, FileTable):  # from its sizes, not an entry made a file
        return items.size(0, len(items))
    return sum(item.size for item in items if isinstance(item, FileEntry))
