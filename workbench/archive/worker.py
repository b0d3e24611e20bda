"""What a worker process does with a task: read it, extract its pages, log it for replay.

The worker has only its own task's captures in its revisit index. A revisit whose
original it finds there is resolved here (most are: a crawl revisits within a file); the
main process checks, on replay, that the run's index picks the same original, and
resolves the revisit again against the right one when it does not. A revisit it cannot
resolve is carried on as if resolved (with a stand-in output), so the worker can log
whether its record's output went out at all; the main process resolves it.
"""

from __future__ import annotations

from collections.abc import Callable
from multiprocessing.synchronize import Event
from typing import Any

from workbench.archive.chunks import RangeEnd, read_range
from workbench.archive.prefetch import prefetch
from workbench.archive.tasks import (
    Added,
    Deferred,
    FileBatch,
    FileRange,
    Log,
    RangeLog,
    Revisit,
    read_one,
)
from workbench.archive.warc import Original, PendingRevisit, RevisitIndex
from workbench.core.progress import Cancelled
from workbench.core.records import RawPage, SkipRecord

Process = Callable[[list[RawPage], Any], list[Any]]  # extract_batch's shape: page -> result or error

# Pages extracted at once: the unit of memory a worker holds.
_PAGES = 24
_PAGE_BYTES = 8 * 2**20
_COUNT_EVERY = 1024 * 1024

_shared: tuple[Any, Event] | None = None  # the run's bytes-read counter and its stop flag


def init_worker(counter: Any, stop: Event) -> None:
    """Pool initializer: where to count bytes read, and how to learn the run was cancelled."""
    global _shared
    _shared = (counter, stop)


def _count(n: int) -> None:
    if _shared is None:
        return
    counter, stop = _shared
    if n:
        with counter.get_lock():
            counter.value += n
    if stop.is_set():
        raise Cancelled


class Meter:
    """Stands in for scan's Tracker: passes on bytes read (about once a MB) to ``sink``.

    ``at(pos)`` takes positions as the readers report them; ``base`` is the position where
    this task's bytes start. The sink may raise ``Cancelled`` to stop the reading.
    """

    def __init__(self, size: int, sink: Callable[[int], None], base: int = 0) -> None:
        self._size = max(size, 0)
        self._base = base
        self._sink = sink
        self._seen = 0
        self._sent = 0

    def at(self, pos: int, *, force: bool = False) -> None:
        seen = min(max(pos - self._base, 0), self._size)
        if seen > self._seen:
            self._seen = seen
        if force or self._seen - self._sent >= _COUNT_EVERY:
            self._send()

    def finish(self) -> None:
        self._seen = self._size
        self._send()

    def _send(self) -> None:
        n, self._sent = self._seen - self._sent, self._seen
        self._sink(n)


_NOT_HERE = Original.__new__(Original)  # "found nowhere in this task", passed to resolve()


class _Recorder(RevisitIndex):
    """The worker's revisit index: its own task's captures, logging what the run's index needs."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Added | Revisit] = []
        self.out: tuple[Revisit, object] | None = None  # the last revisit and its output
        self._current: Revisit | None = None

    def add(self, orig: Original, rec_id: str | None, uri: str | None, date: str | None,
            digest: str | None) -> None:
        super().add(orig, rec_id, uri, date, digest)
        self.events.append(Added(orig, rec_id, uri, date, digest))

    def find(self, rv: PendingRevisit) -> Original | None:
        orig = super().find(rv)
        self._current = Revisit(rv, orig)
        self.events.append(self._current)
        # Not found here, go on as if found: whether the record's output goes out is only
        # seen here, and the run's index (in the main process) may know the original.
        return orig if orig is not None else _NOT_HERE

    def resolve(self, rv: PendingRevisit, orig: Original) -> RawPage | SkipRecord:
        if orig is _NOT_HERE:
            out: RawPage | SkipRecord = SkipRecord(rv.source, "revisit: resolved by the main "
                                                   "process", rv.offset)
        else:
            out = super().resolve(rv, orig)
        if self._current is not None and self._current.rv is rv:  # read_archive: find, then this
            self.out = (self._current, out)
        return out


class _Pages:
    """Pages waiting for extraction, each with its place in a log."""

    def __init__(self, process: Process, params: Any) -> None:
        self._process = process
        self._params = params
        self._waiting: list[tuple[Log, int, RawPage]] = []
        self._bytes = 0

    def add(self, log: Log, page: RawPage) -> None:
        log.append(page)
        self._waiting.append((log, len(log) - 1, page))
        self._bytes += len(page.data)
        if len(self._waiting) >= _PAGES or self._bytes >= _PAGE_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._waiting:
            return
        waiting, self._waiting, self._bytes = self._waiting, [], 0
        results = self._process([page for _, _, page in waiting], self._params)
        for (log, at, page), res in zip(waiting, results, strict=True):
            log[at] = SkipRecord(page.source, res, page.offset) if isinstance(res, str) else res


def _take(item: RawPage | SkipRecord, rec: _Recorder, log: Log, pages: _Pages) -> None:
    log.extend(rec.events)
    rec.events.clear()
    if rec.out is not None and item is rec.out[1]:
        revisit, rec.out = rec.out[0], None
        revisit.yielded = True
        if revisit.local is None:
            return  # the stand-in: the main process resolves this revisit
        revisit.has_result = True
    if isinstance(item, RawPage):
        pages.add(log, item)
    else:
        log.append(item)


def read_files(batch: FileBatch, process: Process, params: Any) -> list[Log | None]:
    """Task: whole files, one log each (the main process may read a file again), in batch
    order; None for the walk's skip records, which the main process has already."""
    pages = _Pages(process, params)
    out: list[Log | None] = []
    prefetch((item.location, item.size) for item in batch.items if not isinstance(item, SkipRecord))
    for item in batch.items:
        if isinstance(item, SkipRecord):
            out.append(None)
            continue
        rec = _Recorder()
        log: Log = []
        meter = Meter(item.size, _count)
        for got in read_one(item, meter, rec):
            _take(got, rec, log, pages)
        log.extend(rec.events)
        meter.finish()
        out.append(log)
    pages.flush()
    return out


def read_file_range(task: FileRange, process: Process, params: Any) -> RangeLog:
    """Task: the records that start in one range of a large WARC file."""
    pages = _Pages(process, params)
    rec = _Recorder()
    log: Log = []
    meter = Meter(task.end - task.start, _count, base=task.start)
    reading = read_range(task.file.path, task.file.rel, task.gzipped, task.start, task.end, rec,
                         meter.at)
    while True:
        try:
            got = next(reading)
        except StopIteration as stop:
            end: RangeEnd = stop.value
            break
        except Cancelled:
            raise
        except Exception:  # noqa: BLE001 - anything odd: the file is read whole instead
            end = RangeEnd(None, None, False)
            break
        _take(got, rec, log, pages)
    meter.finish()
    if not end.clean:
        return RangeLog(end, [])
    log.extend(rec.events)
    pages.flush()
    return RangeLog(end, log)


def resolve_pages(items: list[RawPage | Deferred], process: Process, params: Any) -> Log:
    """Task: pages the main process met (revisits to resolve, pages it read itself)."""
    pages = _Pages(process, params)
    log: Log = []
    for item in items:
        got = item.resolve() if isinstance(item, Deferred) else item
        if isinstance(got, RawPage):
            pages.add(log, got)
        else:
            log.append(got)
    pages.flush()
    return log
