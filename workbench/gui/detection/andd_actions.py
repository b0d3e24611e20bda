"""Detection ▸ Learn From My Coding (ANDD): learn weights from the coded clusters, preview, apply.

The main window adds the action with one line, ``install_andd_action(self, detect)``,
where ``detect`` is its Detection menu. Triggering it reads the archive again, trains
ANDD on the clusters the coder checked and matches every page with the learned weights
(:func:`workbench.detect.andd.rerun.plan_rerun`) in an :class:`AnddJob` on the thread
pool; the job never touches a widget and its news comes back through queued signals.
While it works it is the window's ``job``, so the window's own guards hold: coding and
other runs wait, the status bar's Cancel stops it, closing the project waits for it.
The merges and splits it would make are then shown in :class:`AnddDialog`; Apply saves
them as a new run (the current one stays in the project, the tags stay on their pages).

The window is an :class:`AnddWindow`: ``project``, ``prompter``, ``job``, ``statusBar()``,
``current_params()``, ``refresh(select_ids=...)``, what :func:`show_carried` needs, and
``workers`` and ``run_panel`` when it has them.
"""

from __future__ import annotations

import dataclasses
import traceback
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from workbench.core.progress import Cancelled
from workbench.core.records import RunFilters
from workbench.detect.andd.andd import AnddDetector
from workbench.detect.andd.labels import labelled_from_project
from workbench.detect.andd.rerun import Rerun, plan_rerun
from workbench.detect.andd.train import NOTHING_CHECKED
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.texts import read_texts
from workbench.gui.coding.carried import CarriedWindow, carried_message, show_carried
from workbench.gui.detection.andd_dialog import AnddDialog
from workbench.gui.errors.failures import explain
from workbench.gui.jobs import CancellableJob, retire
from workbench.store import Project, ProjectError

ACTION_NAME = "learn_andd"
# At most one progress signal per this many seconds, unless the stage changes.

# What the status bar says for the stages the run panel does not know.
STAGE_TEXT = {"featurize": "Reading the archive", "train": "Learning weights from your coding",
              "match": "Matching pages with the learned weights"}


@runtime_checkable
class AnddWindow(CarriedWindow, Protocol):
    """What learning from the coding uses of the window: its job (the learning is the
    window's job while it works) and the extraction settings of its current run."""

    job: object | None

    def current_params(self) -> SpotSigsParams: ...


def install_andd_action(window: AnddWindow, menu: QMenu) -> QAction:
    """Add "Learn From My Coding (ANDD)…" to ``menu`` for ``window``."""
    learner = AnddLearner(window)
    action = QAction("&Learn From My Coding (ANDD)…", window.window())
    action.setObjectName(ACTION_NAME)
    action.setMenuRole(QAction.MenuRole.NoRole)  # stays in its menu on macOS (menus.NO_ROLE)
    action.setStatusTip("Learn ANDD weights from the clusters you coded, see which clusters "
                        "would merge or split with them, and apply that as a new run")
    action.triggered.connect(lambda _checked=False: learner.start())
    menu.addAction(action)
    named = getattr(window, "actions_by_name", None)
    if isinstance(named, dict):
        named[ACTION_NAME] = action
    return action


def andd_run_params(rerun: Rerun, extraction: SpotSigsParams) -> dict[str, Any]:
    """What the applied run records: the extraction settings the pages were read with,
    the threshold and clustering used, and the learned detector, recorded the way
    :meth:`workbench.usecases.detector_run.MethodResult.recorded_params` records any detector, so
    ``MethodChoice.of_run`` gives the options that rebuild it (the weights as
    ``AnddWeights.to_dict()``)."""
    detector = AnddDetector(rerun.weights)
    # The clustering plan_rerun did: rerun.cluster_method over pairs >= the threshold,
    # without SpotSigs' corroboration, weak joins and hub splits (tuned on its own similarity).
    params = dataclasses.replace(extraction, tau=rerun.threshold, pair_floor=rerun.threshold,
                                 cluster_method=rerun.cluster_method, corroborate_below=0.0,
                                 weak_join=0.0, hub_split=0.0)
    record = params.to_dict()
    record["detector"] = AnddDetector.name
    record["detector_label"] = detector.label
    record["detector_similarity"] = detector.similarity
    record["detector_parameters"] = detector.parameters()
    record["detector_options"] = {"weights": rerun.weights.to_dict()}
    record["detector_threshold"] = rerun.threshold
    record["andd_trained_on"] = rerun.labelled.describe()
    return record


class AnddSignals(QObject):
    progress = Signal(str, object, object)  # stage, done, total (objects: byte counts, None)
    finished = Signal(object)  # Rerun
    failed = Signal(str, str, str)  # title, message, details
    cancelled = Signal()
    ended = Signal()  # after any of the three above


class AnddJob(CancellableJob, QRunnable):
    """Read the archive, train and match (:func:`plan_rerun`) on a worker thread; nothing
    is written to the project."""

    def __init__(self, project: Project, root: str, params: SpotSigsParams,
                 workers: int | None = None) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.project, self.root, self.params, self.workers = project, root, params, workers
        self.signals = AnddSignals()
        self._begin_reporting()  # cancel (the window's cancel_run calls it too) and progress

    def run(self) -> None:  # noqa: D401 - QRunnable API
        try:
            detector = AnddDetector()  # the workers make each page's k-grams
            texts = read_texts(self.root, self.params, self._progress, self.workers,
                               detector=detector)
            rerun = plan_rerun(self.project, texts, features=texts.texts, k=detector.k,
                               progress=self._progress)
        except Cancelled:
            self.signals.cancelled.emit()
        except ValueError as exc:  # plan_rerun: nothing checked to learn from
            self.signals.failed.emit("Nothing to learn from yet", str(exc),
                                     "".join(traceback.format_exception(exc)))
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the coder
            failure = explain(exc)
            self.signals.failed.emit(failure.title, failure.text, failure.details)
        else:
            self.signals.finished.emit(rerun)
        finally:
            self.done.set()
            self.signals.ended.emit()



class AnddLearner(QObject):
    """One per window: starts the job, shows the preview, applies it."""

    # Emitted on the GUI thread (tests and other widgets wait on these, never on the job's).
    started = Signal()
    previewed = Signal(object)  # the AnddDialog now shown
    applied = Signal(int)  # the id of the run saved
    dismissed = Signal()  # the preview was closed without applying
    stopped = Signal()  # the job was cancelled
    failed = Signal(str)  # the message shown

    def __init__(self, window: AnddWindow, pool: QThreadPool | None = None) -> None:
        super().__init__(window.window())
        self.setObjectName("anddLearner")
        self.window = window
        self.pool = pool or QThreadPool.globalInstance()
        self.job: AnddJob | None = None
        self.rerun: Rerun | None = None  # the result being previewed
        self.dialog: AnddDialog | None = None
        self._params = SpotSigsParams()
        self._project: Project | None = None

    # ================================================================ starting
    def start(self) -> bool:
        """Start learning (False: it cannot start; the coder was told why)."""
        w = self.window
        project: Project | None = w.project
        if project is None:
            return self._refuse("No project open",
                                "Open a project and code some clusters, then learn from them.")
        name = project.path.name
        if project.readonly:
            return self._refuse(
                "Project is read-only",
                f"{name} is open read-only ({project.readonly_reason}). Learning from your coding "
                "saves a new run: open a copy you may change (File ▸ Save Project As…).")
        if w.job is not None or self.job is not None:
            return self._refuse(
                "Detection is running",
                "A detection run is going on. Wait for it to finish (or cancel it), then choose "
                "Detection ▸ Learn From My Coding (ANDD) again.")
        root = project.archive_root
        if not Path(root).exists():
            return self._refuse("Archive not found",
                                f"The archive folder {root} of {name} is not there any more, so "
                                "its pages cannot be read again to learn from.")
        # Checked here, cheaply, before the archive is read for nothing.
        try:
            labelled = labelled_from_project(project)
        except ProjectError as exc:
            return self._refuse("Nothing to learn from yet", str(exc))
        if not labelled.positive_pairs:
            return self._refuse(
                "Nothing to learn from yet",
                f"{NOTHING_CHECKED} Tag the clusters of {name} whose pages really are one story "
                "(mark a page that is not with “not this story”), then try again.")
        self._params = w.current_params()
        self._project = project
        job = self.job = AnddJob(project, root, self._params, getattr(w, "workers", None))
        job.signals.progress.connect(self._on_progress)
        job.signals.finished.connect(self._on_finished)
        job.signals.failed.connect(self._on_failed)
        job.signals.cancelled.connect(self._on_cancelled)
        w.job = job  # the window's guards: no coding, no other run, Cancel, close waits
        panel = self._panel()
        if panel is not None:
            panel.start(f"Learning from {labelled.describe()}…")
        w.statusBar().showMessage(f"Learning ANDD weights from {labelled.describe()}…")
        w.refresh()  # shows the actions disabled while the job runs
        self.pool.start(job)
        self.started.emit()
        return True

    def _refuse(self, title: str, text: str) -> bool:
        self.window.prompter.error(title, text)
        self.failed.emit(text)
        return False

    def _panel(self) -> Any:
        return getattr(self.window, "run_panel", None)

    # ============================================================ job signals
    def _from_job(self) -> bool:
        """Signals of a job given up on (the window cancelled it while closing) arrive
        late: ignore them."""
        return self.job is not None and self.sender() is self.job.signals

    def _end_job(self) -> None:
        job, self.job = self.job, None
        if job is None:
            return
        retire(job)
        w = self.window
        if w.job is job:
            w.job = None
            panel = self._panel()
            if panel is not None:
                panel.stop()
        w.statusBar().clearMessage()
        w.refresh()

    def _still_current(self) -> bool:
        """The project learned from is still the one open (and the job the window's)."""
        return self._project is not None and self.window.project is self._project

    def _on_progress(self, stage: str, done: object, total: object) -> None:
        if not self._from_job():
            return
        panel = self._panel()
        if panel is None:
            self.window.statusBar().showMessage(STAGE_TEXT.get(stage, stage.title()) + "…")
            return
        panel.on_progress(stage, done, total)
        if stage in STAGE_TEXT:
            panel.stage.setText(STAGE_TEXT[stage])

    def _on_cancelled(self) -> None:
        if not self._from_job():
            return
        self._end_job()
        self.window.statusBar().showMessage(
            "Learning from your coding was cancelled; the project is as it was.", 15000)
        self.stopped.emit()

    def _on_failed(self, title: str, text: str, details: str) -> None:
        if not self._from_job():
            return
        self._end_job()
        self.window.prompter.error(title, text, details)
        self.failed.emit(text)

    def _on_finished(self, rerun: Rerun) -> None:
        if not self._from_job():
            return
        self._end_job()
        if not self._still_current():
            return
        self.rerun = rerun
        dialog = self.dialog = AnddDialog(rerun.changes, self.window.window(),
                                          trained_on=rerun.labelled.describe(),
                                          weights=rerun.weights, pairs=rerun.pairs,
                                          threshold=rerun.threshold)
        dialog.setObjectName("anddPreview")
        dialog.applied.connect(self._apply)
        dialog.rejected.connect(self._dismiss)
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        dialog.open()
        self.previewed.emit(dialog)

    # ================================================================ deciding
    def _dismiss(self) -> None:
        self.rerun = self.dialog = None
        self.window.statusBar().showMessage(
            "Nothing changed: the current run stays as it is.", 15000)
        self.dismissed.emit()

    def _apply(self) -> None:
        rerun, self.rerun, self.dialog = self.rerun, None, None
        w = self.window
        project: Project | None = w.project
        if rerun is None or project is None or not self._still_current():
            return
        if w.job is not None:  # the preview is window-modal; a run cannot start under it
            self._refuse("Detection is running",
                         "A detection run started meanwhile; learn from your coding again once "
                         "it is done.")
            return
        try:
            run_id = project.save_run(andd_run_params(rerun, self._params), AnddDetector.name,
                                      rerun.timings, rerun.pages, rerun.pairs, rerun.clusters,
                                      filters=RunFilters(), skipped=rerun.skipped)
        except (ProjectError, OSError) as exc:
            failure = explain(exc)
            w.prompter.error("The ANDD run was not saved", failure.text, failure.details)
            self.failed.emit(failure.text)
            return
        w.refresh(select_ids=[])
        w.statusBar().showMessage(_applied_message(rerun, carried_message(w)), 20000)
        show_carried(w)
        self.applied.emit(run_id)


def _applied_message(rerun: Rerun, carried: str) -> str:
    merges, splits = len(rerun.changes.merges), len(rerun.changes.splits)
    what = " and ".join(part for part in (
        f"{merges} {'merge' if merges == 1 else 'merges'}" if merges else "",
        f"{splits} {'split' if splits == 1 else 'splits'}" if splits else "") if part)
    return (f"ANDD with weights learned from your coding is the current run now "
            f"(threshold {rerun.threshold:.2f}; {what or 'no change to the clusters'}); "
            f"your {carried}; the earlier run is kept in the project.")
