"""Reading and extraction as Dask tasks: the local plan, carried out on a cluster.

The crawl is cut into tasks exactly as the local run cuts it (``archive.tasks.plan``:
batches of whole files, byte ranges of large WARC files) and each task runs the same
worker function as the local pool (``archive.worker.read_files``, ``read_file_range``,
``resolve_pages``) with the same ``extract_batch``. On the worker, the task's extracted
pages go into one Parquet shard in the work directory and each is replaced in the task's
log by a :class:`ShardRef`; the log (revisit events, skip records, refs) is all that comes
back. The client replays the logs in plan order (``detect.workers.parallel.run_plan``,
unchanged), so pages, skip records and revisits come out in ``scan``'s order, as locally.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Executor, Future
from pathlib import Path
from typing import Any

from workbench.archive.file_table import files_size, joined
from workbench.archive.scan import FileEntry
from workbench.archive.tasks import FileBatch, FileRange, RangeLog, SplitFile, plan, plan_items
from workbench.archive.worker import Process, read_files, resolve_pages
from workbench.cluster.records.light_pages import LightPages
from workbench.cluster.records.places import PlaceEntries, ShardPlaces
from workbench.cluster.records.shards import (
    ShardFile,
    ShardReader,
    ShardRef,
    new_shard,
    read_pages,
    write_pages,
)
from workbench.core.progress import ProgressFn
from workbench.core.records import SkipRecord
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.workers.parallel import run_plan

# A task that fails for a reason of its own (not a lost worker) is tried this often more.
RETRIES = 2
# Whole files a task reads at most, and their bytes: a Dask task costs milliseconds of CPU
# in the client, scheduler and worker, so the local plan's 24-file batches are joined into
# larger ones (measured on 20,000 small pages: 834 tasks of 24 files cost the cluster run
# about half again the local run's CPU).
TASK_FILES = 512
TASK_BYTES = 64 * 2**20
_TASKS_PER_WORKER = 4  # at least this many tasks a worker, so that all finish about together


def sharded(fn: Callable[..., Any], work_dir: str, *args: Any) -> Any:
    """Task: ``fn(*args)`` (a worker function of ``archive.worker``) with its pages left in
    a shard; returns its result with refs in their places."""
    got = fn(*args)
    logs: list[list[Any]]
    if fn is read_files:
        logs = [log for log in got if log]
    elif isinstance(got, RangeLog):
        logs = [got.entries]
    else:
        logs = [got]
    pages: list[ExtractedPage] = []
    path = new_shard(work_dir, "pages")
    for log in logs:
        for k, item in enumerate(log):
            if isinstance(item, ExtractedPage):
                log[k] = ShardRef(str(path), len(pages), item.note)
                pages.append(item)
    if pages:
        write_pages(pages, path)
    return got


def _unit_bytes(args: tuple[Any, ...]) -> int:
    unit = args[0] if args else None
    if isinstance(unit, FileBatch):
        return files_size(unit.items)
    if isinstance(unit, FileRange):
        return unit.end - unit.start
    return 0


class _BytesDone:
    """Stands in for the local pool's shared counter: the bytes of the tasks done."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    def add(self, n: int) -> None:
        with self._lock:
            self._value += n

    @property
    def value(self) -> int:
        return self._value


class DaskExecutor(Executor):
    """``run_plan``'s pool on a Dask client: each call becomes a :func:`sharded` task.

    ``submit`` returns a plain ``concurrent.futures.Future`` that the Dask future's
    callback completes, and the Dask future is let go then: its result leaves the worker's
    memory at once, and ``run_plan`` waits on a standard future (waiting on a Dask future
    with a timeout, as it polls, raised an UnboundLocalError from inside distributed now
    and then, under load)."""

    def __init__(self, client: Any, work_dir: Path, planned: int) -> None:
        self.client = client
        self.work_dir = str(work_dir)
        self.counter = _BytesDone()
        self.pending: set[Any] = set()  # the Dask futures not yet done, to cancel them
        self.submitted = 0
        self.tasks_done = 0
        self.tasks = planned  # the plan's tasks and the follow-ups submitted so far
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = self.client.submit(sharded, fn, self.work_dir, *args, pure=False, retries=RETRIES)
        if fn is resolve_pages:
            self.tasks += 1  # a follow-up (revisits, pages the client read), not in the plan
        size = _unit_bytes(args)
        mine: Future[Any] = Future()
        mine.set_running_or_notify_cancel()
        with self._lock:
            self.pending.add(future)
            self.submitted += 1

        def done(finished: Any) -> None:  # in the Dask client's callback thread
            try:
                if finished.status == "finished":
                    mine.set_result(finished.result())
                    self.counter.add(size)
                    self.tasks_done += 1
                else:
                    mine.set_exception(finished.exception() if finished.status == "error"
                                       else CancelledError())
            except BaseException as exc:  # noqa: BLE001 - whatever it is, the waiter hears it
                if not mine.done():
                    mine.set_exception(exc)
            finally:
                with self._lock:
                    self.pending.discard(finished)

        future.add_done_callback(done)
        return mine

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:
            with self._lock:
                pending, self.pending = list(self.pending), set()
            if pending:
                self.client.cancel(pending)


def coarser(units: list[FileBatch | SplitFile], workers: int) -> list[FileBatch | SplitFile]:
    """The plan's consecutive batches of whole files joined into tasks of up to
    ``TASK_FILES`` files (fewer for a small crawl, so every worker gets a few). The same
    files in the same order: the logs replay as the local plan's do."""
    files = sum(len(u.items) for u in units if isinstance(u, FileBatch))
    most = max(min(TASK_FILES, -(-files // max(workers * _TASKS_PER_WORKER, 1))), 1)
    out: list[FileBatch | SplitFile] = []
    size = 0
    for unit in units:
        last = out[-1] if out else None
        if isinstance(unit, FileBatch):
            grow = files_size(unit.items)
            if (isinstance(last, FileBatch) and len(last.items) + len(unit.items) <= most
                    and size + grow <= TASK_BYTES):
                last.items = joined(last.items, unit.items)
                size += grow
                continue
            out.append(FileBatch(unit.items))
            size = grow
        else:
            out.append(unit)
    return out


def extract_on(client: Any, work_dir: Path, root: Path, params: SpotSigsParams, progress: ProgressFn,
               workers: int, process: Process = extract_batch,
               items: list[FileEntry | SkipRecord] | None = None,
               on_refs: Callable[[Sequence[Any]], None] | None = None, light: bool = False,
               ) -> tuple[Sequence[ExtractedPage], list[SkipRecord]]:
    """Every page below ``root`` (or in ``items`` only: the files a grown crawl added,
    ``workbench.usecases.grow``), extracted by the cluster, in ``scan`` order, with the
    skip records; the client reads the pages back from the shards (``light``: only their
    records, their arrays left in the shards: :class:`ShardPage`). ``on_refs`` sees where
    the pages are before they are read back (:class:`ShardPlaces`, to start reductions over
    the shards on the cluster meanwhile: workbench.cluster.filters.reduce). ``client`` may be a
    future of the client (a local cluster still starting): it is waited for once the crawl
    is planned."""
    found = plan(root, workers) if items is None else plan_items(items, workers)
    found.units = coarser(found.units, workers)
    planned = sum(len(u.ranges) if isinstance(u, SplitFile) else 1 for u in found.units)
    if isinstance(client, Future):
        client = client.result()
    pool = DaskExecutor(client, work_dir, planned)

    def with_tasks(stage: str, done: int, total: int | None) -> None:
        progress("tasks", pool.tasks_done, pool.tasks)
        progress(stage, done, total)

    try:
        places, skipped = run_plan(found, pool, pool.counter, params, with_tasks, workers, process,
                                   PlaceEntries(work_dir))
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise
    if on_refs is not None:
        on_refs(places)
    return (_records_of(places) if light else _read_back(places)), skipped


def _in_order(places: ShardPlaces, read: Callable[[str], list[Any]],
              page: Callable[[Any, ShardFile, int], ExtractedPage]) -> list[ExtractedPage]:
    """The pages in ``places``' order: each shard ``read`` once, ``page`` made of its row
    (anything else among them came back as it was). A shard's rows are let go once its
    last page is made."""
    reader = ShardReader()
    left = places.pages_in().tolist()
    shards: dict[int, tuple[ShardFile, list[Any]]] = {}
    out: list[ExtractedPage] = []
    for k, shard, row in places.where():
        if shard < 0:
            out.append(places[k])
            continue
        got = shards.get(shard)
        if got is None:
            path = places.paths[shard]
            got = shards[shard] = ShardFile(path, reader), read(path)
        out.append(page(got[1][row], got[0], row))
        left[shard] -= 1
        if not left[shard]:
            del shards[shard]
    return out


def _read_back(places: ShardPlaces) -> list[ExtractedPage]:
    """The pages in ``places``' order, read back whole."""
    return _in_order(places, read_pages, lambda whole, _shard, _row: whole)


def _records_of(places: ShardPlaces) -> LightPages:
    """The pages in ``places``' order, their arrays left in their shards: only the shards'
    record columns are read, into columns (workbench.cluster.records.light_pages)."""
    return LightPages(places)
