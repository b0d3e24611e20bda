"""A detection run on a Dask cluster: the client, the work directory and the two hooks
the pipeline takes (``load_corpus(extract_all=...)``, ``detect(join=...)``).

No address: a ``LocalCluster`` on this machine's cores (worker processes, one thread
each). An address: the scheduler already running there (Slurm through dask-jobqueue, SSH
hosts, Kubernetes...: docs/cluster.md); its workers must see the work directory.

The cluster's fixed costs are kept off the run's path where they can be: a local cluster
starts in the background while the client walks the crawl and plans the tasks (about 3 s
of worker processes starting and importing), and ``dedup --dask`` leaves the cluster's
stop to the background too (``end_later``), while it writes its CSVs and saves the project.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.archive.scan import FileEntry
from workbench.archive.worker import Process
from workbench.cluster import die_with_client
from workbench.cluster.extract import extract_on
from workbench.cluster.filters.corpus_blocks import corpus_inputs_on
from workbench.cluster.filters.doc_freqs import too_common_and_filters_on, too_common_on
from workbench.cluster.filters.identical import groups, repeats_on
from workbench.cluster.filters.reduce import SiteCounts, boilerplate_of, merge, site_counts_on
from workbench.cluster.filters.rows import matrix_rows_on, where_pages_are
from workbench.cluster.join import find_pairs_on
from workbench.cluster.quiet import new_workers_quiet, quiet_while
from workbench.cluster.records.light_pages import LightPages
from workbench.cluster.run_folders import new_run_folder, remove_abandoned
from workbench.cluster.short_logs import short_logs
from workbench.cluster.where import ClusterError
from workbench.core.clusters.heap import release_free_memory
from workbench.core.progress import ProgressFn
from workbench.core.records import PageInfo, SkipRecord
from workbench.detect.join.matcher import FilteredRows, PairResult, SignatureMatrix
from workbench.detect.spotsigs.boilerplate import ANY_SITE, site_boilerplate
from workbench.detect.spotsigs.corpus_boilerplate import SAMPLE, corpus_boilerplate_weighed
from workbench.detect.spotsigs.extract import ExtractedPage, extract_batch
from workbench.detect.spotsigs.params import SpotSigsParams

if TYPE_CHECKING:
    from workbench.usecases.pipeline import MadeRows

CONNECT_TIMEOUT = "15s"  # a scheduler that does not answer by then is said to be unreachable


@dataclass(slots=True)
class DaskRun:
    # The client, or (a local cluster still starting in the background) what gives it:
    # :attr:`client` waits for it only when the run first needs the cluster.
    connecting: Future[Any]
    work_dir: Path  # this run's own folder, removed when the run ends
    workers: int  # the cluster's worker threads when the run began
    # What a task does with a batch of pages (extract_batch; a test may put a worker's
    # death in it).
    process: Process = extract_batch

    # The site boilerplate's counts, being reduced on the cluster while the client reads
    # the pages back (workbench.cluster.filters.reduce): a future and the client's own part.
    _site_counts: tuple[Any, SiteCounts] | None = field(default=None, init=False, repr=False)
    # Where the pages read back were (the shards' rows), for the document frequencies'
    # reduction once the boilerplate is known (workbench.cluster.filters.doc_freqs).
    _refs: Sequence[Any] | None = field(default=None, init=False, repr=False)
    # The identical pages, being found on the cluster meanwhile (workbench.cluster.filters.identical).
    # With the number of pages it is about.
    _repeats: tuple[int, Callable[[], tuple[np.ndarray, np.ndarray]]] | None = field(default=None, init=False,
                                                                                       repr=False)

    def extract_all(self, root: Path, params: SpotSigsParams, progress: ProgressFn,
                    workers: int) -> tuple[Sequence[ExtractedPage], list[SkipRecord]]:
        def reduce_meanwhile(refs: Sequence[Any]) -> None:
            self._refs = refs
            self._repeats = len(refs), repeats_on(self.client, refs)
            if params.site_boilerplate:
                self._site_counts = site_counts_on(self.client, refs)

        self._site_counts = self._refs = self._repeats = None
        # The pages' records only: their arrays stay in the shards (matrix_rows).
        # The client's future: a local cluster that is still starting is waited for only
        # once the crawl is planned.
        return extract_on(self.connecting, self.work_dir, root, params, progress, self.workers, self.process,
                          on_refs=reduce_meanwhile, light=True)

    def site_boilerplate(self, infos: Sequence[PageInfo], block_hashes: Sequence[np.ndarray],
                         min_pages: int, share: float) -> dict[str, np.ndarray]:
        """``boilerplate.site_boilerplate`` from the counts the cluster reduced while the
        pages were read back (computed here, as locally, for pages it did not read)."""
        pending, self._site_counts = self._site_counts, None
        if pending is None:
            return site_boilerplate(infos, block_hashes, min_pages, share)
        future, here = pending
        counts = merge([future.result(), here]) if future is not None else here
        return boilerplate_of(counts, infos, min_pages, share)

    def too_common_ids(self, boiler: dict[str, np.ndarray], params: SpotSigsParams
                       ) -> Callable[[], tuple[int, np.ndarray | None] | None]:
        """Starts the document frequencies' reduction over the shards the pages were read
        back from, with the boilerplate decided (``pipeline.TooCommonIds``); counted here,
        as locally, when the pages did not come from this run's shards."""
        refs, self._refs = self._refs, None  # not held on: a page the client had goes with the run's
        if refs is None:
            return lambda: None
        return too_common_on(self.client, refs, boiler, params.idf_min_pages, params.idf_low)

    def matrix_rows(self, pages: Sequence[ExtractedPage], params: SpotSigsParams,
                    progress: ProgressFn) -> MadeRows | None:
        """The boilerplate decided, the document frequencies' reduction started and the
        matrix's rows (filtered: ``FilteredRows``) and repeated blocks made by the cluster's
        tasks, from the shards the pages are in (``pipeline.MatrixRows``); None, to do it
        all here as locally, when the pages did not come from this run's shards."""
        if self._refs is None or (params.site_boilerplate and self._site_counts is None):
            return None
        if len(self._refs) != len(pages):  # another run's pages: never a silent difference
            raise RuntimeError(f"the run's shards hold {len(self._refs):,} pages, not {len(pages):,}")
        refs = where_pages_are(pages)
        # The light pages' records table (no object a page), or each page's record.
        infos = pages.infos if isinstance(pages, LightPages) else [p.info for p in pages]
        boiler = self.site_boilerplate(infos, (), params.site_min_pages, params.site_block_share) \
            if params.site_boilerplate else {}
        if params.corpus_boilerplate:
            # Made by the tasks: only the blocks that weigh in the decision reach the client
            # (workbench.cluster.filters.corpus_blocks), not every page's blocks.
            weighed = corpus_inputs_on(self.client, refs, params.corpus_min_pages, SAMPLE, progress)
            everywhere = corpus_boilerplate_weighed(*weighed, params.corpus_min_pages,
                                                    params.corpus_core_share, SAMPLE, params.corpus_own_share)
            del weighed
            if len(everywhere):
                boiler[ANY_SITE] = everywhere
            release_free_memory()  # its temporaries go back to the system before the matrix's
        self._refs = None  # counted from the pages' places here (refs), as too_common_ids would
        decided, filters = too_common_and_filters_on(self.client, refs, boiler, params.idf_min_pages,
                                                     params.idf_low)
        made, repeated = matrix_rows_on(self.client, self.work_dir, refs, boiler, filters, params.min_sigs,
                                        progress)
        counted_pages, dropped = decided()
        if counted_pages != made.with_sigs:  # the counts were not of these pages: never a silent difference
            raise RuntimeError(f"the document frequencies were counted over {counted_pages:,} pages "
                               f"with signatures, the signature matrix has {made.with_sigs:,}")
        # The rows come filtered (the IDF filter, unindexed signatures, pages too short):
        # the client never holds the matrix before the filters and its filtered copy at once.
        rows = FilteredRows(made.lengths, made.too_common_ids(), dropped is not None, made.finish)
        return boiler, decided, repeated, rows

    def checksum_groups(self, pages: int) -> np.ndarray | None:
        """Per page, its checksum's first page, from the reduction started when the pages
        were read back (``pipeline.ChecksumGroups``); None, to find them as locally, when
        the pages did not come from this run's shards."""
        pending, self._repeats = self._repeats, None
        if pending is None:
            return None
        counted, answer = pending
        if counted != pages:  # another run's pages: never a silent difference
            raise RuntimeError(f"identical pages were looked for among {counted:,} pages, not {pages:,}")
        later, first = answer()
        return groups(pages, later, first)

    def read_files(self, files: list[FileEntry | SkipRecord], params: SpotSigsParams,
                   skipped: list[SkipRecord], progress: ProgressFn, workers: int) -> list[ExtractedPage]:
        """Only these files, read and extracted by the cluster (a grown crawl's new and
        changed files: ``grow_corpus(read=...)``, ``dedup --add --dask``)."""
        if not files:
            return []
        pages, skips = extract_on(self.connecting, self.work_dir, Path("."), params, progress, self.workers,
                                  self.process, items=files)
        skipped.extend(skips)
        return list(pages)  # read back whole: a list already

    def join(self, m: SignatureMatrix, tau: float, groups: np.ndarray | None,
             progress: ProgressFn) -> PairResult:
        return find_pairs_on(self.client, self.work_dir, m, tau, groups, progress)

    @property
    def client(self) -> Any:
        """The Dask client (waited for while a local cluster starts)."""
        return self.connecting.result()

    @property
    def hooks(self) -> dict[str, Any]:
        """What ``run_into_project`` takes to run on the cluster."""
        return {**self.corpus_hooks, "join": self.join}

    @property
    def corpus_hooks(self) -> dict[str, Any]:
        """What ``load_corpus`` takes to read and count on the cluster."""
        return {"extract_all": self.extract_all, "site_boiler": self.site_boilerplate,
                "too_common_ids": self.too_common_ids, "checksum_groups": self.checksum_groups,
                "matrix_rows": self.matrix_rows}

    @property
    def grow_hooks(self) -> dict[str, Any]:
        """What ``grow_into_project`` takes to run on the cluster."""
        return {"read": self.read_files, "join": self.join}


def local_cluster(workers: int | None = None) -> Any:
    """Worker processes on this machine, one thread each. They are the cluster's
    children: closing it ends them, and a worker whose parent dies (killed, even with
    SIGKILL) is ended by the kernel on Linux (workbench.cluster.die_with_client), and by
    Dask's own watch of its parent elsewhere."""
    from distributed import LocalCluster

    # Only this machine may connect. The dashboard on a free port: None does not turn it off
    # (dask/distributed#8136) and warned on stderr whenever another cluster held 8787.
    # Workers without Dask's profiler (workbench.cluster.quiet says why).
    with new_workers_quiet(), short_logs():  # the scheduler (here) and its workers log little
        return LocalCluster(n_workers=workers or os.cpu_count() or 1,  # type: ignore[no-untyped-call]
                            threads_per_worker=1, processes=True, host="127.0.0.1",
                            dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR,
                            preload=[die_with_client.MODULE])


def _started(value: Any) -> Future[Any]:
    done: Future[Any] = Future()
    done.set_result(value)
    return done


def _in_background(make: Callable[[], Any], name: str) -> Future[Any]:
    """``make()`` in a thread of its own; its result (or error) in the future."""
    out: Future[Any] = Future()
    out.set_running_or_notify_cancel()

    def run() -> None:
        try:
            out.set_result(make())
        except BaseException as exc:  # noqa: BLE001 - told to whoever waits on the future
            out.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return out


def _start_local(workers: int, stack: ExitStack) -> Future[Any]:
    """A local cluster and its client, started in the background: their start (worker
    processes spawned, Dask imported in each) overlaps the client's walk of the crawl and
    its plan. Both are closed with ``stack``, which waits for the start first, so a run
    that ends (or fails) meanwhile leaves no workers behind."""
    from distributed import Client

    made: list[Any] = []  # the cluster, then the client, as they come

    def start() -> Any:
        made.append(local_cluster(workers))
        made.append(Client(made[0], timeout=CONNECT_TIMEOUT))  # type: ignore[no-untyped-call]
        return made[1]

    connecting = _in_background(start, "workbench-dask-start")

    def close() -> None:
        with suppress(BaseException):
            connecting.exception()  # waits for the start to end, one way or the other
        for thing in reversed(made):
            with suppress(Exception):  # a half-started cluster: whatever of it there is goes
                thing.close()

    stack.callback(close)
    return connecting


# Runs whose end was left to the background (``dask_run(end_later=True)``).
_ending: list[threading.Thread] = []


def wait_ended() -> None:
    """Wait for the runs :func:`dask_run` left to end in the background (their clusters
    stopped, their work folders removed)."""
    while _ending:
        _ending.pop().join()


@contextmanager
def dask_run(address: str | None, work_dir: Path | str | None = None, workers: int | None = None,
             cluster: Any = None, end_later: bool = False) -> Iterator[DaskRun]:
    """A client for the run (on ``cluster``, the scheduler at ``address``, or a new local
    cluster, started in the background) and a work folder for its shards inside
    ``work_dir`` (default: the system's temporary folder; on a real cluster a folder every
    worker can read and write).

    ``end_later``: a run that ends without an error stops its local cluster and removes its
    work folder in a thread (not a daemon: the process waits for it when it exits, and
    :func:`wait_ended` waits for it before), so the caller goes on meanwhile. A run that
    fails ends at once."""
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - a runtime dependency; said plainly if missing
        raise ClusterError(f"--dask needs Dask distributed and pyarrow ({exc})") from None
    stack = ExitStack()
    try:
        # For the run's time, not only while it connects: a worker that joins later (one
        # the nanny restarted) gets a connection with a short log too. Entered before the
        # local cluster starts in the background, and so left after it.
        stack.enter_context(short_logs())
        if cluster is None and not address:
            threads = workers or os.cpu_count() or 1  # one thread a worker (local_cluster)
            connecting = _start_local(threads, stack)
        else:
            try:
                client = stack.enter_context(Client(cluster if cluster is not None else address,  # type: ignore[no-untyped-call]
                                                    timeout=CONNECT_TIMEOUT))
            except OSError as exc:
                raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
            stack.callback(quiet_while(client))  # a cluster started elsewhere: its profiler paused
            threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()) or 1
            connecting = _started(client)
        base = Path(work_dir) if work_dir else None
        if base is not None:
            base.mkdir(parents=True, exist_ok=True)
        remove_abandoned(base)  # the shards of runs killed before they could remove them
        run_dir, owner = new_run_folder(base)
        stack.callback(shutil.rmtree, run_dir, True)
        stack.callback(owner.release)  # before the folder goes (callbacks run last first)
        yield DaskRun(connecting, run_dir, threads)
    except BaseException:
        stack.close()
        raise
    if not end_later:
        stack.close()
        return
    ending = threading.Thread(target=stack.close, name="workbench-dask-end")
    _ending.append(ending)
    ending.start()
