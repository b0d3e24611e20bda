"""Arrays whose pages belong to a file the operating system maps, not to the process.

A large crawl's signature matrix (about 0.7 KB a small page: 700 MB at a million pages)
is filled once and then read in passes: whole passes (lengths, id counts, the join's
ranked rows, the project's copy) and a few rows at a time (clustering's checks). Held in
the process's own memory it grows the process with the crawl. In a shared mapping of a
temporary file its pages are the file's: the system's file cache keeps them, writes them
to disk when memory is short instead of swapping, and :func:`let_go` takes a pass's pages
out of the process's resident memory once the pass is done (their contents stay in the
file, and come back from the cache when read again).

The file has no name (or is deleted when closed, on Windows) and lives as long as the
array and its views. Where the system can claim a file's room ahead (``posix_fallocate``:
Linux), it is claimed when the file is made, so a full disk is a clear ``OSError`` there
rather than a crash on a page written later.
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numpy.lib.array_utils import byte_bounds

# Where the system can take pages out of a process's memory by advice (not on Windows,
# where a mapping's pages leave the working set on the system's own terms).
_CAN_LET_GO = hasattr(mmap, "MADV_DONTNEED") and hasattr(mmap.mmap, "madvise")


def mapped_empty(count: int, dtype: np.dtype | type, folder: Path | str | None = None) -> np.ndarray:
    """An array of ``count`` items of ``dtype``, not initialised, whose pages are a new
    temporary file's in ``folder`` (the system's temporary folder when None), mapped."""
    kind = np.dtype(dtype)
    size = count * kind.itemsize
    if size == 0:
        return np.empty(count, kind)
    with tempfile.TemporaryFile(dir=folder) as fh:
        _claim(fh.fileno(), size, folder)
        # The mapping keeps the file open: it goes when the last view of the array does.
        mapping = mmap.mmap(fh.fileno(), size)
    _read_at_random(mapping)
    return np.frombuffer(mapping, dtype=kind, count=count)


def _read_at_random(mapping: mmap.mmap) -> None:
    """Advise, before the first page is written, that the pages are read here and there.
    Otherwise the system may keep the file in large folios (Linux 6.x on ext4: up to
    2 MB each) and map a whole one on a fault: a single row read added 2.2 MB to the
    process's resident memory, and 256 rows read at random 45 MB of a 64 MB array
    (here 64 KB and 15 MB). Passes over the whole array read it from the cache, as it was
    written, so they lose nothing by the advice."""
    if sys.platform != "win32" and hasattr(mmap, "MADV_RANDOM"):
        mapping.madvise(mmap.MADV_RANDOM)


def _claim(fd: int, size: int, folder: Path | str | None) -> None:
    """The file's room on disk, claimed now: a page of a sparse file that finds the disk
    full when it is first written kills the process (SIGBUS) where it stands."""
    try:
        if hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, size)
            return
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            where = folder or tempfile.gettempdir()
            raise OSError(exc.errno,
                          f"no room for {size / 1e6:,.0f} MB of working arrays in {where}") from None
        if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            raise
    os.ftruncate(fd, size)  # where room cannot be claimed ahead (macOS, Windows, some file systems)


def mapping_of(array: np.ndarray) -> mmap.mmap | None:
    """The mapping whose pages ``array`` (or the array it views) lies in; None for an
    array in the process's own memory."""
    owner: object = array
    while isinstance(owner, np.ndarray):
        owner = owner.base
    if isinstance(owner, memoryview):
        owner = owner.obj
    return owner if isinstance(owner, mmap.mmap) else None


def let_go(*arrays: np.ndarray) -> None:
    """Take the whole pages ``arrays`` lie in out of the process's resident memory, for
    arrays made by :func:`mapped_empty` (and views of them); their contents stay. Nothing
    for any other array: advice to forget the pages of the process's own memory would
    lose what they hold."""
    if not _CAN_LET_GO:
        return
    for array in arrays:
        mapping = mapping_of(array)
        if mapping is None or array.size == 0:
            continue
        start = ctypes.addressof(ctypes.c_char.from_buffer(mapping))
        low, high = byte_bounds(array)
        page = mmap.PAGESIZE
        first = -(-(low - start) // page) * page  # pages wholly inside: a neighbour's stay
        end = (high - start) // page * page
        if end > first and sys.platform != "win32":  # (said so for the type checker too)
            mapping.madvise(mmap.MADV_DONTNEED, first, end - first)


# Items of a mapped array a pass holds at once (16 MB of int32): what a whole pass adds to
# the process's resident memory, whatever the array's size.
PART_ITEMS = 1 << 22


def parts(array: np.ndarray, items: int | None = None) -> Iterator[np.ndarray]:
    """``array`` in consecutive parts of ``items``, each let go once the next is asked for
    (and the last when the walk ends), for a whole pass over a mapped array; an array in
    the process's own memory comes whole, in one part."""
    if mapping_of(array) is None:
        yield array
        return
    items = items or PART_ITEMS
    for start in range(0, len(array), items):
        part = array[start : start + items]
        yield part
        let_go(part)


def row_parts(ptr: np.ndarray, *values: np.ndarray, items: int | None = None) -> Iterator[tuple[int, int]]:
    """Ranges of rows (``ptr``: where each row's entries start, rows + 1) holding about
    ``items`` entries each, the entries of ``values`` in a range let go once the next is
    asked for: a whole pass by rows over mapped arrays. All rows at once when no array of
    ``values`` is mapped."""
    n = len(ptr) - 1
    if n <= 0:
        return
    if all(mapping_of(v) is None for v in values):
        yield 0, n
        return
    items = items or PART_ITEMS
    lo = 0
    while lo < n:
        # The first row whose entries end beyond the part (at least one row a range).
        hi = max(int(np.searchsorted(ptr, int(ptr[lo]) + items, side="right")) - 1, lo + 1)
        hi = min(hi, n)
        yield lo, hi
        let_go(*(v[int(ptr[lo]) : int(ptr[hi])] for v in values))
        lo = hi


class RowReads:
    """Reads of a few rows at a time from mapped arrays (clustering's checks, the titles'
    comparisons, the join's ranked rows in probing order): a row read brings a page or two
    of each array into the process's resident memory, and a stage that reads many rows
    would bring in most of the arrays, so what was read is let go every :data:`ROWS` rows.
    Nothing for arrays in the process's own memory."""

    # A row read maps not only its own page or two: on a fault the system maps the pages
    # around it that it holds in its cache too (Linux: 64 KB), so 256 rows are up to
    # 16 MB of each array. Letting go is a walk of the mapping's page tables: cheap.
    ROWS = 256

    def __init__(self, *arrays: np.ndarray) -> None:
        self._arrays = tuple(a for a in arrays if mapping_of(a) is not None)
        self._rows = 0

    def read(self, rows: int) -> None:
        """``rows`` more rows were read."""
        if not self._arrays:
            return
        self._rows += rows
        if self._rows >= self.ROWS:
            let_go(*self._arrays)
            self._rows = 0


def rows_at_once(array: np.ndarray, rows: int) -> int:
    """How many rows a stage that reads ``rows`` rows of ``array`` here and there reads
    between two let-gos: :data:`RowReads.ROWS` for a mapped array, all of them (at least
    one) for an array in the process's own memory."""
    return RowReads.ROWS if mapping_of(array) is not None else max(rows, 1)


__all__ = ["PART_ITEMS", "RowReads", "let_go", "mapped_empty", "mapping_of", "parts", "row_parts",
           "rows_at_once"]
