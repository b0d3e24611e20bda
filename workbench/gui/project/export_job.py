"""File ▸ Export on a worker thread: the window stays live, the run panel shows the rows
written, and Cancel stops it with the old CSV (if any) left as it was.

The export re-reads every member from the archive for its passage shares (about 5-10 ms
a row), so a 30,000-page export takes minutes: on the GUI thread it froze the window.
The job reads the project through its own thread's connection (the store keeps one per
thread) and never touches a widget; :class:`Exporter`, on the GUI thread, shows what it
reports and says how it ended.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from workbench.core.progress import Cancelled
from workbench.export import export_pages
from workbench.gui.errors.failures import explain
from workbench.gui.jobs import CancellableJob, retire
from workbench.store import ProjectError

if TYPE_CHECKING:
    from workbench.export.pages import ExportResult
    from workbench.gui.dialogs import ExportOptions
    from workbench.store import Project


class ExportSignals(QObject):
    progress = Signal(str, object, object)  # stage, rows written, rows in all
    finished = Signal(object)  # ExportResult
    failed = Signal(str, str)  # message, details
    cancelled = Signal()


class ExportJob(CancellableJob, QRunnable):
    """``export_pages`` with the dialog's options, reporting each row written."""

    def __init__(self, project: Project, options: ExportOptions, workers: int = 1) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.project, self.options, self.workers = project, options, workers
        self.signals = ExportSignals()
        self._begin_reporting()

    def run(self) -> None:  # noqa: D401 - QRunnable API
        o = self.options
        try:
            result = export_pages(self.project, o.path, coded_only=o.coded_only, wide=o.wide,
                                  excel=o.excel, coders=o.coders, progress=self._progress,
                                  workers=self.workers)
        except Cancelled:
            self.signals.cancelled.emit()
        except (ProjectError, OSError) as exc:
            self.signals.failed.emit(str(exc), "")
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the coder
            failure = explain(exc)
            self.signals.failed.emit(failure.text, failure.details)
        else:
            self.signals.finished.emit(result)
        finally:
            self.done.set()


class Exporter(QObject):
    """One per window: starts the export job, shows its progress, says how it ended."""

    # Emitted on the GUI thread (tests wait on these, never on the job's own signals).
    exported = Signal(object)  # the ExportResult, once reported
    stopped = Signal()  # cancelled: nothing was replaced
    failed = Signal(str)  # the message shown

    def __init__(self, window: Any, on_done: Callable[[ExportOptions, ExportResult], None],
                 pool: QThreadPool | None = None) -> None:
        super().__init__(window)
        self.setObjectName("exporter")
        self.window = window
        self._on_done = on_done
        self.pool = pool or QThreadPool.globalInstance()
        # True: export on the calling thread (GUI tests that check what an export wrote).
        self.run_here = False
        self.job: ExportJob | None = None

    def start(self, options: ExportOptions) -> bool:
        """Export in the background (False: a run or another export is going on)."""
        w = self.window
        if w.project is None or w.job is not None:
            return False
        workers = getattr(w, "workers", None) or os.cpu_count() or 1
        job = self.job = ExportJob(w.project, options, workers)
        job.signals.progress.connect(self._on_progress)
        job.signals.finished.connect(self._on_finished)
        job.signals.failed.connect(self._on_failed)
        job.signals.cancelled.connect(self._on_cancelled)
        # The window's guards, as for a run: no coding meanwhile (the export shows the
        # project as it was when it began), Cancel in the run panel, closing waits.
        w.job = job
        w.run_panel.start(f"Exporting to {options.path.name}…")
        w.update_actions()
        if self.run_here:
            job.run()
        else:
            self.pool.start(job)
        return True

    def _from_job(self) -> bool:
        """A job the window gave up on (cancelled while closing) reports late: ignored."""
        return self.job is not None and self.sender() is self.job.signals

    def _end(self) -> ExportOptions | None:
        job, self.job = self.job, None
        if job is None:
            return None
        retire(job)
        w = self.window
        if w.job is job:
            w.job = None
            w.run_panel.stop()
            w.update_actions()
        return job.options

    def _on_progress(self, stage: str, done: object, total: object) -> None:
        if not self._from_job():
            return
        panel = self.window.run_panel
        panel.on_progress(stage, done, total)
        panel.stage.setText("Exporting")
        what = "pages compared with their reference" if stage == "shares" else "rows"
        panel.detail.setText(f"{done:,} of {total:,} {what}" if isinstance(done, int)
                             and isinstance(total, int) else "")

    def _on_finished(self, result: ExportResult) -> None:
        if not self._from_job():
            return
        options = self._end()
        if options is not None:
            self._on_done(options, result)
        self.exported.emit(result)

    def _on_failed(self, message: str, details: str) -> None:
        if not self._from_job():
            return
        self._end()
        self.window.prompter.error("Export failed", message, details)
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        if not self._from_job():
            return
        options = self._end()
        where = f" {options.path} was left as it was." if options is not None else ""
        self.window.statusBar().showMessage(f"Export cancelled; nothing was written.{where}",
                                            10000)
        self.stopped.emit()
