"""Detection runs from the window: start one, cancel it, and show how it ended."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cluster.where import RunWhere
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.coding.carried import carried_message, show_carried
from workbench.gui.coding.feedback import count_of, run_done_message
from workbench.gui.jobs import DetectJob, RunSummary, retire
from workbench.gui.sidebyside.pagetext import params_from_dict
from workbench.usecases.detector_run import MethodChoice

if TYPE_CHECKING:
    from PySide6.QtCore import QThreadPool

    from workbench.gui.models import ClusterTableModel
    from workbench.gui.prompter import Prompter
    from workbench.gui.runpanel import RunPanel
    from workbench.gui.sidebyside.view import CompareView
    from workbench.store import Project



class DetectionRuns:
    """MainWindow's detection runs: one :class:`DetectJob` at a time on the thread pool,
    reporting through queued signals; the window's ``run_*`` signals say how it went."""

    # The window's, set in MainWindow.__init__ and _build_widgets.
    project: Project | None
    prompter: Prompter
    workers: int | None
    job: DetectJob | None
    pool: QThreadPool
    skipped: list[tuple[str, str]]
    model: ClusterTableModel
    compare: CompareView
    run_panel: RunPanel
    _singles: int
    _run_started_at: float
    # Where SpotSigs runs go (Detection ▸ Settings): this machine until the coder chooses
    # a Dask cluster; a run's pending settings keep it (workbench.cluster.where).
    run_where: RunWhere = RunWhere()

    def current_params(self) -> SpotSigsParams:
        run = self.project.current_run() if self.project else None
        return params_from_dict(run.params) if run else SpotSigsParams()

    def current_method(self) -> MethodChoice:
        """The detector of the current run (SpotSigs when there is none)."""
        run = self.project.current_run() if self.project else None
        return MethodChoice.of_run(run.method, run.params) if run else MethodChoice()

    def start_method_run(self, choice: MethodChoice) -> bool:
        """Run detection again with another method (Compare Methods' "Use This Method"),
        with the current run's extraction settings; every tag stays on its page."""
        return self.start_run(self.current_params(), method=choice)

    def add_pages(self) -> bool:
        """File ▸ Add Pages…: read the archive folder's new and changed files and detect as
        on the whole folder, with the current run's settings; every decision carries over."""
        if self.project is None or self.job is not None:
            return False
        if not self.current_method().is_spotsigs:
            self.prompter.error("Add Pages", "Add Pages works on SpotSigs runs. The current run was "
                                "made with another method: run it again (Detection ▸ Run Detection "
                                "Again) to take the new pages in.")
            return False
        return self.start_run(self.current_params(), grow=True)

    def start_run(self, params: SpotSigsParams | None = None, method: MethodChoice | None = None,
                  grow: bool = False, where: RunWhere | None = None) -> bool:
        """A detection run into the project: with ``params`` (from the settings dialog)
        SpotSigs, unless ``method`` says otherwise; without, the current run's method again.
        ``grow``: read only the new and changed files (:meth:`add_pages`). ``where``: this
        machine or a Dask cluster, for this run and the next (default: as the last)."""
        if self.project is None or self.job is not None:
            return False
        if where is not None:
            self.run_where = where
        if method is None:
            method = MethodChoice() if params is not None else self.current_method()
        root = self.project.archive_root
        if not Path(root).exists():
            self.prompter.error("Archive not found", f"The archive folder {root} is not there any more.")
            return False
        self.job = DetectJob(self.project, root, params or self.current_params(), self.workers, method,
                             grow=grow, where=self.run_where if method.is_spotsigs else None)
        sig = self.job.signals
        sig.progress.connect(self.run_panel.on_progress)
        sig.counts.connect(self.run_panel.on_counts)
        sig.finished.connect(self._run_finished)
        sig.failed.connect(self._run_failed)
        sig.cancelled.connect(self._run_cancelled)
        self.run_panel.start(f"Opening {Path(root).name}…")
        # The run's figures need the status bar's room; where the keyboard is says little
        # while a run reads (a narrow window cut the figures into the elapsed time).
        self.keyboard_label.hide()
        if self.model.rowCount() == 0:
            self.compare.clear("Detection is running; its clusters appear here when it is done.")
        self._run_started_at = time.monotonic()
        self.update_actions()
        self.pool.start(self.job)
        self.run_started.emit()
        return True

    def cancel_run(self, wait: bool = False) -> None:
        job = self.job
        if job is None:
            return
        job.cancel()
        if wait:
            job.done.wait(30)
            self.pool.waitForDone(5000)
            self._end_job()

    def _end_job(self) -> None:
        if self.job is not None:
            retire(self.job)
        self.job = None
        self.run_panel.stop()
        self.keyboard_label.show()
        self.update_actions()

    def _from_current_job(self) -> bool:
        """Signals of a job given up on (cancelled while closing) arrive late: ignore them."""
        return self.job is not None and self.sender() is self.job.signals

    def _run_finished(self, summary: RunSummary) -> None:
        if not self._from_current_job():
            return
        self._end_job()
        self.skipped = self.project.skipped_pages() if self.project is not None else []
        spent = time.monotonic() - self._run_started_at
        self.refresh(select_ids=[])
        carried = carried_message(self) if self.project and self.project.last_carry else None
        self.statusBar().showMessage(run_done_message(
            spent, summary.pages, summary.pairs, summary.clusters, self._singles, len(self.skipped),
            summary.note, carried), 15000)
        if self.model.rowCount():
            self.select_row(0)
        show_carried(self)  # what the re-run carried to clusters that changed, if anything
        self._keyboard_to_list()
        self.run_finished.emit(summary)

    def _run_cancelled(self) -> None:
        if not self._from_current_job():
            return
        self._end_job()
        self.statusBar().showMessage("Detection cancelled; the project keeps its earlier results.", 15000)
        self.refresh()
        self.run_cancelled.emit()

    def _run_failed(self, message: str, details: str) -> None:
        if not self._from_current_job():
            return
        self._end_job()
        self.refresh()
        self.run_failed.emit(message)
        self.prompter.error("Detection failed", message, details)

    def settings_dialog(self) -> None:
        if self.project is None:
            return
        chosen = self.prompter.detection_params(self.current_params(), self.run_where)
        if chosen is not None:
            params, where = chosen
            self.start_run(params, where=where)

    def show_skipped(self) -> None:
        self.prompter.show_list(
            "Skipped Files",
            f"{count_of(len(self.skipped), 'file or record', 'files or records')} gave no page "
            "to compare, with the reason for each.",
            ["File or record", "Reason"], self.skipped)
