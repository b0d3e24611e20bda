"""Read and extract an opened folder with worker processes that read their own files.

The main process plans tasks (``workbench.archive.tasks.plan``), keeps a bounded number
in flight, and replays the workers' logs in plan order into the run's revisit index
(``workbench.archive.replay``). What a worker could not settle (a revisit whose original
is in another task, a file to read again as one piece) becomes a small follow-up task, so
the main process itself reads no page unless a file must be read here, as ``scan`` would.

Bytes read are reported after every task taken, not only while waiting for one: when the
workers are ahead (the usual case on a big crawl), a result is always ready, no wait
ever timed out, and the MB figure stood still while pages went on ("2,492.3 of 8,603.0 MB
(29%)" for 37,000 pages; "0.0 of 855.1 MB" for a whole run). The figure is the larger of
the workers' running count and the bytes of the tasks taken (a finished task has read
all of its unit), so it rises with the pages even where the running count is not kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, Generic, TypeVar

from workbench.archive.file_table import files_size
from workbench.archive.replay import MainIndex, must_read_here, ranges_join, replay
from workbench.archive.scan import FileEntry
from workbench.archive.tasks import (
    BATCH_BYTES,
    BATCH_FILES,
    Deferred,
    FileBatch,
    Plan,
    RangeLog,
    SplitFile,
    plan,
    plan_items,
    read_one,
)
from workbench.archive.worker import Meter, Process, init_worker, read_file_range, read_files, resolve_pages
from workbench.core.progress import Cancelled, ProgressFn
from workbench.core.records import RawPage, SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.workers.pool import worker_context, worker_pool

_TASKS_PER_WORKER = 3  # tasks in flight: enough to keep every worker fed, memory stays flat
_POLL_S = 0.25  # how often progress (and so cancelling) is looked at while waiting


class _Slot:
    """A place in the output for a result a follow-up task has yet to give."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Any = None


def read_and_extract(
    root: Path | str,
    params: Any,
    progress: ProgressFn,
    workers: int,
    *,
    process: Process = extract_batch,
    range_bytes: int | None = None,
    small_here: bool = True,
    items: list[FileEntry | SkipRecord] | None = None,
) -> tuple[list[Any], list[SkipRecord]] | None:
    """Every page below ``root`` through ``process`` in worker processes, in ``scan`` order.

    Returns the results (in page order) and the skip records (in reading order, a page
    ``process`` failed on in its place), or None for a crawl so small that reading it in
    this process is faster (``small_here``). ``items``: only these files (and walk skip
    records) below ``root``, in their order. Progress: ``read`` in bytes, ``extract`` in
    pages; ``Cancelled`` raised by ``progress`` stops the workers and propagates.
    """
    found = (plan(root, workers, range_bytes=range_bytes) if items is None
             else plan_items(items, workers, range_bytes=range_bytes))
    if small_here and found.small:
        return None
    # Workers that end with this process however it ends (workbench.detect.workers.pool).
    ctx = worker_context()
    counter = ctx.Value("q", 0)
    stop = ctx.Event()
    pool = worker_pool(workers, init_worker, (counter, stop))
    try:
        done = run_plan(found, pool, counter, params, progress, workers, process, ListEntries())
    except BaseException:
        stop.set()  # a task that is running stops at its next record or file
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return done


def settled(entry: Any) -> Any:
    """An entry of the run's output: itself, or what a follow-up task put in its place."""
    return entry.value if isinstance(entry, _Slot) else entry


R = TypeVar("R", bound=Sequence[Any])


class Entries(Generic[R]):
    """The run's output in order as it comes: results, skip records, and places that
    follow-up tasks fill later. Kept here as a list; a cluster run keeps where its pages
    are instead, a few bytes a page (workbench.cluster.records.places.PlaceEntries)."""

    def append(self, entry: Any) -> None:
        raise NotImplementedError

    def results(self) -> tuple[R, list[SkipRecord]]:
        """The results (every entry that is not a skip record) and the skip records, each
        in order; a result's note (what of the page was left unread) among the skip
        records, beside it."""
        raise NotImplementedError


class ListEntries(Entries[list[Any]]):
    """The run's output as a list of its entries (the local run's)."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def append(self, entry: Any) -> None:
        self.items.append(entry)

    def results(self) -> tuple[list[Any], list[SkipRecord]]:
        out: list[Any] = []
        skipped: list[SkipRecord] = []
        for entry in self.items:
            value = settled(entry)
            (skipped if isinstance(value, SkipRecord) else out).append(value)
            note = value.note if isinstance(value, ExtractedPage) else getattr(value, "note", None)
            if isinstance(note, SkipRecord):
                skipped.append(note)
        return out, skipped


def run_plan(found: Plan, pool: Executor, counter: Any, params: Any, progress: ProgressFn,
             workers: int, process: Process, entries: Entries[R]) -> tuple[R, list[SkipRecord]]:
    """Carry out a plan on ``pool`` (whose workers count bytes read into ``counter.value``);
    ``entries`` keeps the output as it comes and gives the results."""
    return _Run(found, pool, counter, params, progress, workers, process, entries).go()


class _Run(Generic[R]):
    def __init__(self, found: Plan, pool: Executor, counter: Any, params: Any, progress: ProgressFn,
                 workers: int, process: Process, entries: Entries[R]) -> None:
        self.plan = found
        self.pool = pool
        self.counter = counter
        self.params = params
        self.progress = progress
        self.workers = workers
        self.process = process
        self.index = MainIndex()
        self.entries = entries  # results, skip records and slots, in output order
        self.pages = 0
        self.read_here = 0  # bytes of files the main process read itself
        self.taken = 0  # bytes of the units whose results were taken (all read by then)
        self.reported = -1
        self.loose: list[tuple[_Slot, RawPage | Deferred]] = []
        self.loose_bytes = 0
        # A task's result is what its worker function returns: a batch's logs, a range's
        # log or resolved pages, so futures are of Any.
        self.follow_ups: deque[tuple[Future[Any], list[_Slot]]] = deque()
        self.ranges: list[RangeLog] = []

    def go(self) -> tuple[R, list[SkipRecord]]:
        self._report_read()
        window: deque[tuple[FileBatch | SplitFile, Future[Any], int]] = deque()
        for unit, future, size in self._submit_all():
            window.append((unit, future, size))
            while len(window) >= _TASKS_PER_WORKER * self.workers:
                self._take(*window.popleft())
        while window:
            self._take(*window.popleft())
        self._leftovers()
        self._flush_loose()
        while self.follow_ups:
            self._fill(*self.follow_ups.popleft())
        self.progress("read", self.plan.total, self.plan.total)
        return self.entries.results()

    def _submit_all(self) -> Iterator[tuple[FileBatch | SplitFile, Future[Any], int]]:
        """Each task with the bytes it reads."""
        # Each unit is let go once submitted (the window holds it until it is taken): a
        # plan of a million files would otherwise be held to the end of the run.
        units, self.plan.units = deque(self.plan.units), []
        while units:
            unit = units.popleft()
            if isinstance(unit, FileBatch):
                size = files_size(unit.items)
                yield unit, self.pool.submit(read_files, unit, self.process, self.params), size
            else:
                for part in unit.ranges:
                    yield (unit, self.pool.submit(read_file_range, part, self.process, self.params),
                           part.end - part.start)

    # ----------------------------------------------------------------------- results

    def _take(self, unit: FileBatch | SplitFile, future: Future[Any], size: int) -> None:
        got = self._wait(future)
        self.taken += size
        if isinstance(unit, FileBatch):
            for item, log in zip(unit.items, got, strict=True):
                if isinstance(item, SkipRecord):
                    self._emit(item)
                else:
                    self._file(item, log)
        else:
            self.ranges.append(got)
            if len(self.ranges) == len(unit.ranges):
                parts, self.ranges = self.ranges, []
                logs = [p.entries for p in parts]
                if ranges_join([p.end for p in parts]) and not must_read_here(logs, self.index):
                    for log in logs:
                        replay(log, self.index, self._emit)
                else:
                    self._read_here(unit.file)
        self._report_read()  # with each task: a result that was ready never waited
        self.progress("extract", self.pages, None)

    def _file(self, item: FileEntry, log: list[Any]) -> None:
        if must_read_here([log], self.index):
            self._read_here(item)
        else:
            replay(log, self.index, self._emit)

    def _read_here(self, item: FileEntry) -> None:
        """Read one file in this process with the run's index, exactly as ``scan`` does."""
        meter = Meter(item.size, self._count_here)
        for got in read_one(item, meter, self.index):
            self._emit(got)
        meter.finish()

    def _count_here(self, n: int) -> None:
        self.read_here += n
        self._report_read()

    def _leftovers(self) -> None:
        """Revisits whose original came later in the scan, or never (as ``scan`` ends)."""
        try:
            for got in self.index.leftovers():
                self._emit(got)
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001
            self._emit(SkipRecord(".", f"unexpected error while resolving revisits: {exc}"))

    def _emit(self, item: Any) -> None:
        if isinstance(item, RawPage | Deferred):
            self._add_loose(item)
        else:
            if not isinstance(item, SkipRecord):
                self.pages += 1
            self.entries.append(item)

    # ----------------------------------------------------------------------- follow-ups

    def _add_loose(self, item: RawPage | Deferred) -> None:
        slot = _Slot()
        self.entries.append(slot)
        self.loose.append((slot, item))
        self.loose_bytes += len(item.data) if isinstance(item, RawPage) else 0
        if len(self.loose) >= BATCH_FILES or self.loose_bytes >= BATCH_BYTES:
            self._flush_loose()

    def _flush_loose(self) -> None:
        if not self.loose:
            return
        loose, self.loose, self.loose_bytes = self.loose, [], 0
        future = self.pool.submit(resolve_pages, [item for _, item in loose], self.process,
                                  self.params)
        self.follow_ups.append((future, [slot for slot, _ in loose]))
        while len(self.follow_ups) > 2 * self.workers:  # bounded, like the tasks
            self._fill(*self.follow_ups.popleft())

    def _fill(self, future: Future[Any], slots: list[_Slot]) -> None:
        for slot, value in zip(slots, self._wait(future), strict=True):
            slot.value = value
            if not isinstance(value, SkipRecord):
                self.pages += 1

    # ----------------------------------------------------------------------- waiting

    def _wait(self, future: Future[Any]) -> Any:
        while True:
            try:
                return future.result(timeout=_POLL_S)
            except TimeoutError:
                self._report_read()  # the callback may raise Cancelled

    def _report_read(self) -> None:
        total = self.plan.total
        done = min(max(self.counter.value, self.taken) + self.read_here, total)
        if done > self.reported:
            self.reported = done
            self.progress("read", done, total)
