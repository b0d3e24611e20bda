"""Background work: a pipeline call wrapped in a QRunnable whose signals carry the news.

A job never touches a widget. It reports ``progress(stage, done, total)`` through a
queued signal (throttled, so a fast loop cannot flood the event loop) and stops at
the next progress call once ``cancel()`` was asked for, by raising ``Cancelled``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from workbench.cluster.where import ClusterError, RunWhere, running
from workbench.core.progress import Cancelled
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.errors.failures import explain
from workbench.store import Project
from workbench.usecases.detector_run import MethodChoice, run_method_into_project
from workbench.usecases.grow import grow_into_project, keep_pages
from workbench.usecases.pipeline import Corpus, DedupResult, run_into_project
from workbench.usecases.published_dates import date_clustered_pages

# At most one progress signal per this many seconds, unless the stage changes.
EMIT_INTERVAL = 0.05


# How long after its worker is done an ended job is kept alive (see retire).
JOB_GRACE_SECONDS = 2.0


class EndingJob(Protocol):
    done: threading.Event  # set by the worker as the last thing it does in run()


_retired: list[tuple[EndingJob, float]] = []


def retire(job: EndingJob) -> None:
    """Keep an ended or abandoned job alive until its worker has surely left ``run()``.

    Dropping the last reference while the worker still unwinds would delete the job's
    signal object on the worker thread, racing the GUI thread's event loop over its queued
    signals (a crash seen about once in eight test-suite runs). Jobs are let go here, on
    the GUI thread, a while after their worker said it was done. One list for every kind
    of job (detection, comparison, learning).
    """
    now = time.monotonic()
    _retired[:] = [(j, t) for j, t in _retired
                   if not (j.done.is_set() and now - t > JOB_GRACE_SECONDS)]
    _retired.append((job, now))



class ReadJob(EndingJob, Protocol):
    """A QRunnable whose ``signals`` carry ``read(object)`` or ``failed(str)``."""

    signals: Any

    def run(self) -> None: ...


class ReadSignals(QObject):
    read = Signal(object)  # what the read found
    failed = Signal(str)  # the message for the coder


class ReadOnce(QRunnable):
    """A read on the thread pool that never touches a widget: :meth:`read` gives its result,
    an exception its message (:meth:`message`), both handed on through ``signals``. Kept
    alive by its reader until it has left ``run()`` (``done``)."""

    def __init__(self) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = ReadSignals()
        self.done = threading.Event()
        self.thread_id: int | None = None  # the thread it ran on (tests check it is not the GUI's)

    def read(self) -> object:
        raise NotImplementedError

    def message(self, exc: BaseException) -> str:
        """What the coder is told of a failed read."""
        return explain(exc).text

    def run(self) -> None:  # noqa: D401 - QRunnable API
        self.thread_id = threading.get_ident()
        try:
            found = self.read()
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the coder
            self.signals.failed.emit(self.message(exc))
        else:
            self.signals.read.emit(found)
        finally:
            self.done.set()


class OneReadAtATime(QObject):
    """Runs one read job at a time on the thread pool and hands its news to the GUI thread.

    Subclasses make the job and say what its result means (``_was_read``,
    ``_read_failed``); this keeps the rest the same for every such reader: one job at a
    time, a job that ended kept alive until its worker has left ``run()`` (retire), and
    ``settled`` for the tests.
    """

    # Emitted on the GUI thread once a read ended and was handed on (tests wait on this).
    settled = Signal()

    def __init__(self, parent: QObject, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        # True: read on the calling thread (GUI tests that do not test the reader itself).
        self.run_here = False
        self.job: Any = None
        self.last: Any = None  # the job that ended last (tests look at its thread)

    @property
    def busy(self) -> bool:
        return self.job is not None

    def _launch(self, job: ReadJob) -> bool:
        """Start ``job``; False when a read is already going on."""
        if self.job is not None:
            return False
        self.job = job
        job.signals.read.connect(self._read)
        job.signals.failed.connect(self._failed)
        if self.run_here:
            job.run()
        else:
            self.pool.start(job)
        return True

    def wait(self, seconds: float = 60) -> None:
        """Wait for a read under way (before what it reads is closed under it)."""
        if self.job is not None:
            self.job.done.wait(seconds)

    def _finish(self) -> Any:
        job, self.job = self.job, None
        if job is not None:
            retire(job)  # kept past this reader, until its worker has surely left run()
            self.last = job
        return job

    def _read(self, found: object) -> None:
        if (job := self._finish()) is not None:
            self._was_read(job, found)
        self.settled.emit()

    def _failed(self, message: str) -> None:
        if (job := self._finish()) is not None:
            self._read_failed(job, message)
        self.settled.emit()

    def _was_read(self, job: Any, found: object) -> None:
        raise NotImplementedError

    def _read_failed(self, job: Any, message: str) -> None:
        raise NotImplementedError

@dataclass(slots=True)
class RunSummary:
    """What a finished run tells the window (plain data: safe to pass between threads)."""

    run_id: int
    pages: int
    pairs: int
    clusters: int
    signatures: int
    timings: dict[str, float] = field(default_factory=dict)
    note: str = ""  # what the coder should know of how the run went (said after the counts)


class JobSignals(QObject):
    # done/total as objects: byte counts overflow a C int, and total may be None.
    progress = Signal(str, object, object)
    counts = Signal(object)  # dict of running counts (pages, signatures, pairs...)
    finished = Signal(object)  # RunSummary
    failed = Signal(str, str)  # message, details
    cancelled = Signal()
    # Emitted after any of finished / failed / cancelled.
    ended = Signal()


class CancellableJob:
    """What every background job of the window shares (mixed into a QRunnable): a cancel
    flag the GUI thread sets and the worker's next progress report raises on, and progress
    sent through ``self.signals.progress`` at most once per stage every EMIT_INTERVAL (a new
    stage and a stage's last count always), so a fast loop never floods the GUI thread."""

    signals: Any  # a QObject with progress = Signal(str, int, object)

    def _begin_reporting(self) -> None:
        self.done = threading.Event()
        self._cancel = threading.Event()
        self._last_emit = 0.0
        self._last_stage = ""

    # Called from the GUI thread.
    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    # Called from the worker thread (and, through the use cases, from their loops).
    def _progress(self, stage: str, done: int, total: int | None) -> None:
        if self._cancel.is_set():
            raise Cancelled()
        now = time.monotonic()
        if stage != self._last_stage or now - self._last_emit >= EMIT_INTERVAL or (
                total is not None and done >= total):
            self._last_stage = stage
            self._last_emit = now
            self.signals.progress.emit(stage, done, total)


class DetectJob(CancellableJob, QRunnable):
    """load_corpus + detect + save_result for one archive into one open project (or, for
    a ``method`` other than SpotSigs, workbench.usecases.detector_run's run of that detector).
    ``grow`` (File ▸ Add Pages…): read only the archive's new and changed files
    (workbench.usecases.grow). ``where``: this machine or a Dask cluster (SpotSigs runs;
    workbench.cluster.where), with the same progress and Cancel."""

    def __init__(self, project: Project, root: str, params: SpotSigsParams,
                 workers: int | None = None, method: MethodChoice | None = None,
                 grow: bool = False, where: RunWhere | None = None) -> None:
        super().__init__()
        self.grow = grow
        self.where = where or RunWhere()
        self.setAutoDelete(False)
        self.project = project
        self.root = root
        self.params = params
        self.workers = workers
        self.method = method or MethodChoice()
        self.signals = JobSignals()
        self._begin_reporting()

    def _corpus_counts(self, corpus: Corpus) -> None:
        usable = sum(1 for p in corpus.pages if p.skip_reason is None)
        self.signals.counts.emit({"pages": len(corpus.pages), "usable": usable,
                                  "skipped": len(corpus.skipped),
                                  "signatures": int(len(corpus.matrix.sig))})

    def _result_counts(self, result: DedupResult) -> None:
        self.signals.counts.emit({"pairs": int(len(result.pairs.a)), "clusters": len(result.clusters)})
        self._progress("save", 0, None)

    def run(self) -> None:  # noqa: D401 - QRunnable API
        try:
            if not self.method.is_spotsigs:
                summary = self._method_run()
                self.signals.finished.emit(summary)
                return
            # run_into_project keeps the settings in the project until the run is saved,
            # so a run killed half way is offered again when the project reopens. A
            # cluster's shards go beside the project (on a real cluster: shared storage).
            files = ""
            with running(self.where, self.project.path.parent, self.workers) as cluster:
                extra = self.where.setting()
                if self.grow:
                    result, run_id, growth = grow_into_project(
                        self.project, self.root, self.params, self._progress, self.workers,
                        on_corpus=self._corpus_counts, on_result=self._result_counts, extra=extra,
                        **(cluster.grow_hooks if cluster is not None else {}))
                    files = f" Files: {growth.summary()}."
                else:
                    # The pages are kept beside the project, so Add Pages reads only new files.
                    result, run_id = run_into_project(
                        self.project, self.root, self.params, self._progress, self.workers,
                        keep=keep_pages(self.project.path, self.root, self.params),
                        on_corpus=self._corpus_counts, on_result=self._result_counts, extra=extra,
                        **(cluster.hooks if cluster is not None else {}))
            # The publication dates only htmldate finds, for the pages of clusters: a stage
            # of its own after the run is saved (it reads those pages again).
            date_clustered_pages(self.project, self.root, self._progress, self.workers)
            summary = RunSummary(
                run_id=run_id,
                pages=len(result.pages),
                pairs=int(len(result.pairs.a)),
                clusters=len(result.clusters),
                signatures=result.distinct_signatures,
                timings=dict(result.timings),
                note=(f" Pairs below τ were not looked for: {len(result.pages):,} pages is over the "
                      f"pair floor's limit of {result.params.pair_floor_max_pages:,}."
                      if result.floor_skipped else "") + files,
            )
        except Cancelled:
            self.signals.cancelled.emit()
        except ClusterError as exc:  # said as it is: the address is the coder's to fix
            self.signals.failed.emit(f"{exc}. Check the address in Detection ▸ Detection Settings, or "
                                     "run on this machine.", "")
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the window
            failure = explain(exc)
            self.signals.failed.emit(failure.text, failure.details)
        else:
            self.signals.finished.emit(summary)
        finally:
            self.done.set()
            self.signals.ended.emit()

    def _method_run(self) -> RunSummary:
        result, run_id = run_method_into_project(self.project, self.root, self.method, self.params,
                                                 self._progress, self.workers)
        date_clustered_pages(self.project, self.root, self._progress, self.workers)
        self.signals.counts.emit({"pages": len(result.pages), "skipped": len(result.skipped),
                                  "pairs": int(len(result.pairs.a)), "clusters": len(result.clusters)})
        return RunSummary(run_id=run_id, pages=len(result.pages), pairs=int(len(result.pairs.a)),
                          clusters=len(result.clusters), signatures=0, timings=dict(result.timings))
