"""Reading an opened folder as tasks that worker processes carry out by themselves.

The main process only walks the folder and plans (:func:`plan`): batches of whole files,
and byte ranges of large WARC files. A worker reads its task with the same readers
``scan`` uses and returns a *log* in reading order: the pages it extracted, skip records,
and what the run's revisit index has to learn (:class:`Added`, :class:`Revisit`). The main
process replays the logs in plan order (``workbench.archive.replay``), so pages, skip
records and revisit resolution come out as ``scan`` gives them, without the main process
reading, decompressing or sending any page.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.archive.chunks import RangeEnd, splittable
from workbench.archive.common import Positions
from workbench.archive.file_table import FileTable, files_size
from workbench.archive.scan import FileEntry, read_file, walk
from workbench.archive.scan import scan as scan_here
from workbench.archive.sniff import SNIFF_BYTES
from workbench.archive.warc import Original, PendingRevisit, RevisitIndex
from workbench.core.progress import Cancelled, ProgressFn, no_progress
from workbench.core.records import RawPage, SkipRecord

# Whole files handed to a worker at once (counted on disk). A smaller crawl than two such
# batches is read in the main process: starting workers would cost more than it saves.
BATCH_FILES = 24
BATCH_BYTES = 8 * 2**20
# Ranges of a large WARC file: enough per worker to keep them all busy to the end, and
# not so small that finding each range's first record costs anything.
_RANGES_PER_WORKER = 8
_MIN_RANGE = 4 * 2**20
_MAX_RANGE = 64 * 2**20


@dataclass(frozen=True, slots=True)
class Scan:
    """An opened folder (or file) to read: :func:`workbench.archive.scan`, iterable as such.

    The pipeline may instead hand ``root`` to worker processes
    (``workbench.detect.workers.parallel.read_and_extract``); iterating reads it in this process.
    """

    root: Path
    progress: ProgressFn = no_progress

    def __iter__(self) -> Iterator[RawPage | SkipRecord]:
        return scan_here(self.root, self.progress)


def scan(root: Path | str, progress: ProgressFn = no_progress) -> Scan:
    return Scan(Path(root), progress)


# --------------------------------------------------------------------------- the plan


@dataclass(slots=True)
class FileBatch:
    """Whole files read by one worker, with the walk's skip records among them, in walk order."""

    items: Sequence[FileEntry | SkipRecord]  # a slice of the plan's FileTable, or a list


@dataclass(frozen=True, slots=True)
class FileRange:
    """The records of a large WARC file that start in ``[start, end)``."""

    file: FileEntry
    gzipped: bool
    start: int
    end: int


@dataclass(slots=True)
class SplitFile:
    file: FileEntry
    ranges: list[FileRange]


@dataclass(slots=True)
class Plan:
    total: int  # bytes of input
    units: list[FileBatch | SplitFile]  # in the order scan reads the folder
    small: bool  # a crawl this small is read faster in the main process


def range_size(total: int, workers: int) -> int:
    return min(max(total // (max(workers, 1) * _RANGES_PER_WORKER), _MIN_RANGE), _MAX_RANGE)


def plan(root: Path | str, workers: int, *, range_bytes: int | None = None) -> Plan:
    """Walk ``root`` (as ``scan`` does) and cut the reading into tasks.

    A WARC file of at least two ranges (``range_bytes``, by default sized to the crawl)
    is split into ranges; every other file is read whole by one worker. The walk is held
    as a :class:`FileTable` (a few bytes a file), its batches as slices of it.
    """
    return plan_items(FileTable(walk(Path(root))), workers, range_bytes=range_bytes)


def plan_items(items: Sequence[FileEntry | SkipRecord], workers: int, *,
               range_bytes: int | None = None) -> Plan:
    """:func:`plan` for the files (and walk skip records) given, in their order: a crawl that
    grew reads only its new files (workbench.usecases.grow). A batch is a slice of
    ``items``."""
    total = files_size(items)
    step = range_bytes or range_size(total, workers)
    units: list[FileBatch | SplitFile] = []
    lo = 0  # the current batch's first item
    size = 0
    files = 0
    for k, item in enumerate(items):
        if isinstance(item, FileEntry):
            files += 1
            gzipped = _split_kind(item) if item.size >= 2 * step else None
            if gzipped is not None:
                if k > lo:
                    units.append(FileBatch(items[lo:k]))
                lo, size = k + 1, 0
                cuts = list(range(0, item.size, step)) + [item.size]
                units.append(SplitFile(item, [FileRange(item, gzipped, a, b)
                                              for a, b in zip(cuts, cuts[1:], strict=False)]))
                continue
            size += item.size
        if k + 1 - lo >= BATCH_FILES or size >= BATCH_BYTES:
            units.append(FileBatch(items[lo : k + 1]))
            lo, size = k + 1, 0
    if len(items) > lo:
        units.append(FileBatch(items[lo:]))
    small = (files < 2 * BATCH_FILES and total < 2 * BATCH_BYTES
             and not any(isinstance(u, SplitFile) for u in units))
    return Plan(total, units, small)


def _split_kind(item: FileEntry) -> bool | None:
    try:
        with open(item.path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return None  # the worker that reads it whole says why it cannot
    return splittable(item.path, head)


# --------------------------------------------------------------------------- the logs


@dataclass(slots=True)
class Added:
    """A capture entered the revisit index (the arguments of ``RevisitIndex.add``)."""

    orig: Original
    rec_id: str | None
    uri: str | None
    date: str | None
    digest: str | None


@dataclass(slots=True)
class Revisit:
    """A revisit record met while reading, and what became of it in the worker.

    ``local`` is the original the worker's own index found (captures of its task only);
    ``yielded``: the record's output went out (the record was neither cut short nor met a
    second time); ``has_result``: the next log entry is that output, resolved against
    ``local``.
    """

    rv: PendingRevisit
    local: Original | None
    yielded: bool = False
    has_result: bool = False


@dataclass(slots=True)
class Deferred:
    """A revisit to resolve against ``orig`` (read the original's payload again)."""

    rv: PendingRevisit
    orig: Original

    @property
    def offset(self) -> int | None:  # read_archive drops outputs it has given before by offset
        return self.rv.offset

    def resolve(self) -> RawPage | SkipRecord:
        return RevisitIndex.resolve(_NO_INDEX, self.rv, self.orig)


# A task's log, in reading order: the revisit index's events (Added, Revisit), skip records,
# and each page as the run's ``process`` left it (its extracted form, of the detector's own
# type, or a skip record); whoever replays it tells them apart by isinstance.
Log = list[object]

_NO_INDEX = RevisitIndex()  # resolve() needs an index only to be a method


@dataclass(slots=True)
class RangeLog:
    end: RangeEnd
    entries: Log  # empty when the range was not clean


def read_one(item: FileEntry, tracker: Positions, index: RevisitIndex) -> Iterator[RawPage | SkipRecord]:
    """One file as ``scan`` reads it: nothing but ``Cancelled`` escapes."""
    try:
        yield from read_file(item, tracker, index)
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - the reader's promise: nothing escapes
        yield SkipRecord(item.rel, f"unexpected error while reading: {type(exc).__name__}: {exc}")
