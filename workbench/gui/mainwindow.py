"""The workbench window: cluster list, side by side, codebook, background runs."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QThreadPool, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import workbench
from workbench.core.clusters.calibration import run_floor
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.coding.carried import CarriedDialog
from workbench.gui.coding.codebook import CodebookPanel
from workbench.gui.coding.codebook_actions import CodebookActions
from workbench.gui.coding.coding_actions import CodingActions
from workbench.gui.coding.feedback import memo_saved_message
from workbench.gui.coding.memopane import MemoPane
from workbench.gui.coding.memoview import memo_view
from workbench.gui.coding.navigation import cluster_to_show, counts_text, member_to_show
from workbench.gui.coding.review_dialog import ReviewDialog
from workbench.gui.detection.calibration import CalibrationDialog
from workbench.gui.filterbar import FilterBar
from workbench.gui.jobs import DetectJob
from workbench.gui.keys.keyboard import CodingUndoInTextFields
from workbench.gui.messages import KeyNamingStatusBar, MessageLog
from workbench.gui.models import (
    COL_FIRST,
    COL_LAST,
    COL_MIN,
    COL_SITE_COUNT,
    COL_SIZE,
    COL_SPAN,
    COL_TITLE,
    COLUMNS,
    ClusterTableModel,
)
from workbench.gui.project.backupwatch import BackupWatcher
from workbench.gui.project.export_actions import report_export
from workbench.gui.project.export_job import Exporter
from workbench.gui.project.locations import APP_NAME
from workbench.gui.project.opening import read_only_banner
from workbench.gui.project.session import ProjectSession
from workbench.gui.project.team_text import copy_banner
from workbench.gui.prompter import Prompter
from workbench.gui.related.actions import RelatedActions
from workbench.gui.related.pane import RelatedPane
from workbench.gui.runpanel import RunPanel
from workbench.gui.sidebyside.pagetext import params_from_dict
from workbench.gui.sidebyside.view import CompareView
from workbench.gui.window.first_size import first_size
from workbench.gui.window.focus import KeyboardFocus
from workbench.gui.window.menus import ICONS, WindowActions, icon
from workbench.gui.window.runs import DetectionRuns
from workbench.gui.window.selection import ClusterSelection
from workbench.store import Project, ProjectError
from workbench.store.team import CopyStamp, list_samples

# How much of a headline the cluster list shows before the pointer (or a wider column) is
# needed: its first words, enough to tell two stories apart.
TITLE_ROOM = "Saddam hanged at dawn | World ne"
COUNTS_MIN_WIDTH = 160  # the coding counts' least room in the status bar
# ICONS: where the window's icons are read from (the packaging tests read it here).
__all__ = ["ICONS", "MainWindow"]


class MainWindow(WindowActions, ProjectSession, DetectionRuns, ClusterSelection, KeyboardFocus,
                 QMainWindow):
    """The window: builds its widgets and connects them; what each part does is in the
    modules its bases come from (actions and menus, the project, runs, selection, focus)
    and in the action modules it hands itself to (coding keys, codebook, calibration…)."""

    run_started = Signal()
    run_finished = Signal(object)  # RunSummary
    run_cancelled = Signal()
    run_failed = Signal(str)
    project_opened = Signal(str)

    def __init__(self, settings: QSettings, prompter: Prompter | None = None,
                 projects_folder: Path | None = None, workers: int | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.prompter = prompter or Prompter(self)
        self.prompter.after_dialog = self.focus_list
        self.projects_folder = projects_folder
        self.workers = workers
        self.project: Project | None = None
        self.coder = ""
        self.copy_stamp: CopyStamp | None = None  # the open project's, when a coder's copy
        self.job: DetectJob | None = None
        self.pool = QThreadPool.globalInstance()
        self._singles = 0
        self.skipped: list[tuple[str, str]] = []
        self.calibration: CalibrationDialog | None = None
        # What the last re-clustering carried over, to review (workbench.gui.coding.carried).
        self.carried_dialog: CarriedDialog | None = None
        # The review queue of a sample's disagreements (workbench.gui.coding.review_dialog).
        self.review_dialog: ReviewDialog | None = None
        self.setWindowTitle(APP_NAME)
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self._build_widgets()
        self._build_actions()
        self._build_menus()
        self._restore_layout()
        self.update_actions()
        self.show_status()
        # The keyboard starts in the cluster list (it started in the filter box, where
        # Down did nothing), and the status bar always says where it is.
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        self.keyboard_label.setText("Keys: cluster list")
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_moved)

    def _build_widgets(self) -> None:
        self.model = ClusterTableModel(self)
        self.table = QTableView()
        self.table.setObjectName("clusterTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COL_SIZE, Qt.SortOrder.DescendingOrder)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAlternatingRowColors(True)
        for col, width in enumerate([42, 44, 46, 50, 0, 110, 100, 54]):
            if width:
                self.table.setColumnWidth(col, width)
        self._size_title_and_date_columns()
        # "< floor" whole, not cut to "< …" (a mark nobody could read).
        self.table.setColumnWidth(COL_MIN, max(46, self.table.fontMetrics().horizontalAdvance(
            "< floor") + 16))
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)

        self.filters = FilterBar()
        self.filters.changed.connect(self._apply_filters)
        self._undo_keys = CodingUndoInTextFields(self)
        self.filters.text.installEventFilter(self._undo_keys)
        # Tab leaves the list (it walked cells and changed the selected cluster).
        self.table.setTabKeyNavigation(False)

        list_box = QWidget()
        lay = QVBoxLayout(list_box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.filters)
        lay.addWidget(self.table, 1)

        self.codebook = CodebookPanel()
        self.codebook.toggle_requested.connect(lambda tid: self.coding.toggle_tag(tid))
        self.tag_actions = CodebookActions(self)
        self.coding = CodingActions(self)
        self.codebook.add_requested.connect(self.tag_actions.new_tag)
        self.codebook.rename_requested.connect(self.tag_actions.rename_tag)
        self.codebook.recolour_requested.connect(self.tag_actions.recolour_tag)
        self.codebook.delete_requested.connect(self.tag_actions.delete_tag)
        code_box = QWidget()
        lay = QVBoxLayout(code_box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("<b>Codebook</b>"))
        lay.addWidget(self.codebook, 1)

        self.left_splitter = QSplitter(Qt.Orientation.Vertical)
        self.left_splitter.setObjectName("leftSplitter")
        self.left_splitter.addWidget(list_box)
        self.left_splitter.addWidget(code_box)
        self.memo_pane = MemoPane()
        self.memo_pane.save_requested.connect(self._save_memo)
        self.left_splitter.addWidget(self.memo_pane)
        self.left_splitter.setSizes([520, 200, 160])

        self.compare = CompareView(settings=self.settings)
        self.compare.member_changed.connect(lambda _page: self._show_memos())
        # Related rewrites below τ, under the members (workbench.gui.related.actions).
        self.related_pane = RelatedPane()
        self.compare.side.addWidget(self.related_pane)
        self.related = RelatedActions(self)
        self.compare.cluster_shown.connect(self.related.show_for)
        self.related_pane.chosen.connect(self.related.open)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.left_splitter)
        self.main_splitter.addWidget(self.compare)
        self.main_splitter.setStretchFactor(1, 1)
        self.main_splitter.setSizes([660, 940])
        self.setCentralWidget(self.main_splitter)

        self.run_panel = RunPanel()
        self.run_panel.hide()
        self.run_panel.cancel_requested.connect(self.cancel_run)
        # File ▸ Export on a worker, in the run panel with Cancel (export_job).
        self.exporter = Exporter(self, lambda options, result: report_export(self, options, result))
        self.counts_label = QLabel()
        self.counts_label.setObjectName("countsLabel")
        # Cut at the window's edge (whole in its tooltip) rather than holding the window at
        # its full length (about 510 px): the status bar alone then asked for 988 px.
        self.counts_label.setMinimumWidth(COUNTS_MIN_WIDTH)
        self.counts_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.coder_label = QLabel()
        self.coder_label.setObjectName("coderLabel")
        self.project_label = QLabel()
        self.project_label.setObjectName("projectLabel")
        self.readonly_label = QLabel()
        self.readonly_label.setObjectName("readOnlyLabel")
        self.readonly_label.hide()
        self.backup_watcher = BackupWatcher(lambda title, text: self.prompter.error(title, text), self)
        self.keyboard_label = QLabel()
        self.keyboard_label.setObjectName("keyboardLabel")
        self.keyboard_label.setToolTip(
            "Where the keyboard is. Coding keys (digits, S, X, M, N) act on the clusters "
            "unless you are typing in a text field (the filter box, a memo). Tab moves "
            "from pane to pane; Escape goes back to the cluster list.")
        bar = KeyNamingStatusBar(self)
        self.setStatusBar(bar)
        self.messages = MessageLog(bar, self)
        bar.addWidget(self.run_panel)
        bar.addPermanentWidget(self.keyboard_label)
        bar.addPermanentWidget(self.readonly_label)
        bar.addPermanentWidget(self.counts_label)
        bar.addPermanentWidget(self.coder_label)
        bar.addPermanentWidget(self.project_label)

    def _size_title_and_date_columns(self) -> None:
        """Twelve columns do not fit the list's share of the window: a stretched title
        was squeezed to "Saddam …" once the date columns came. The title keeps room for
        a headline's first words, the list scrolls sideways, and the last column takes
        what is left over; the date columns are as wide as their header or a date."""
        header = self.table.horizontalHeader()
        fit = self.table.fontMetrics().horizontalAdvance
        header.setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(COL_TITLE, fit(TITLE_ROOM) + 16)
        for col, sample in ((COL_FIRST, "2007-01-18"), (COL_LAST, "2007-01-18"), (COL_SPAN, "41.5 d"),
                            (COL_SITE_COUNT, "431")):
            # The header's own text and its sort arrow, or a value, whichever is wider.
            self.table.setColumnWidth(col, max(fit(COLUMNS[col]) + 28, fit(sample) + 16))

    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:  # the first start: the default size, or the screen's room on a small screen
            screen = self.screen()
            room = screen.availableGeometry().size() if screen is not None else None
            width, height, left = first_size(room.width() if room else None, room.height() if room else None)
            self.resize(width, height)
            self.main_splitter.setSizes([left, width - left])
        for splitter in (self.main_splitter, self.left_splitter, self.compare.splitter):
            state = self.settings.value(f"window/{splitter.objectName()}")
            if state is not None:
                splitter.restoreState(state)

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        for splitter in (self.main_splitter, self.left_splitter, self.compare.splitter):
            self.settings.setValue(f"window/{splitter.objectName()}", splitter.saveState())
        self.settings.sync()

    def refresh(self, select_ids: list[int] | None = None, member_page: int | None = None) -> None:
        """Re-read everything shown from the project, keeping (or setting) the selection."""
        keep = self.selected_ids() if select_ids is None else select_ids
        current = self.compare.cluster_id
        if self.project is not None:
            run = self.project.current_run()
            self.compare.set_context(self.project.archive_root,
                                     params_from_dict(run.params) if run else SpotSigsParams(),
                                     self.project.run_filters(run.id) if run else None,
                                     floor=run_floor(run.params) if run else None)
        # Counted here (runs, splits, merges, undo all refresh), not on every keystroke.
        self._singles = self.project.count_single_pages() if self.project is not None else 0
        loaded = self.model.rowCount()
        self.model.project = self.project
        self.model.reload(keep_rows=loaded)
        self._reselect(keep)
        rows = self.selected_rows()
        if not rows or self.project is None:
            self.compare.clear()
        else:
            target = cluster_to_show([r.id for r in rows], current)
            self.compare.show_cluster(self.project, target, member_to_show(
                target, current, self._shown_member_id(), member_page))
        self.refresh_codebook()
        self._show_memos()
        self.update_actions()
        self.show_status()

    def _show_memos(self) -> None:
        """Save what the memo pane holds, then show the memos of what is shown now."""
        self.memo_pane.flush()
        member = self.compare.current_member()
        self.memo_pane.show_view(memo_view(self.project, self.coding_as, self.compare.cluster_id,
                                           member.page_id if member else None))
        self.memo_pane.setEnabled(self.project is not None and not self.project.readonly)

    def _save_memo(self, cluster_id: int | None, page_id: int | None, text: str,
                   continued: bool) -> None:
        """Save a memo; ``continued``: the coder goes on typing the memo saved before, and
        the save joins that undo step when nothing else happened since."""
        if self.project is None or self.project.readonly:
            return
        if self.attempt("Cannot save the memo", lambda: self.project.set_memo(
                cluster_id=cluster_id, page_id=page_id, text=text,
                continued=continued)) is not None:
            if cluster_id is not None:
                self.model.refresh_clusters({cluster_id})
            self.update_actions()
            self.statusBar().showMessage(
                memo_saved_message(cluster_id, page_id, deleted=not text.strip()), 4000)

    def show_status(self) -> None:
        self.counts_label.setText(counts_text(self.project, self._singles))
        # A narrow window cuts the permanent labels too: their tooltips hold them whole.
        self.counts_label.setToolTip(self.counts_label.text())
        banner = copy_banner(self.copy_stamp)
        self.coder_label.setText(f"Coder: {self.coding_as} — {banner}" if banner
                                 else f"Coder: {self.coder}" if self.coder else "")

    def refresh_codebook(self) -> None:
        tags = self.project.codebook() if self.project is not None else []
        self.codebook.set_tags(tags, self.selected_rows() if self.project is not None else [])
        self.filters.set_tags(tags)
        self.filters.set_samples(list_samples(self.project.reader()) if self.project is not None
                                 else [])

    def show_messages(self) -> None:
        self.prompter.show_list("Status Messages", "Every message of this session, newest first.",
                                ["Time", "Message"], self.messages.rows())

    def may_code(self) -> bool:
        """May a coding action run now? On a read-only project the status bar says why not."""
        if self.project is None or self.job is not None:
            return False
        if self.project.readonly:
            self.statusBar().showMessage(read_only_banner(self.project), 8000)
            return False
        return True

    def attempt(self, what: str, fn):
        """Run a store action; a ProjectError becomes a message, not a crash."""
        try:
            return fn()
        except ProjectError as exc:
            self.prompter.error(what, str(exc))
            return None

    def set_coder(self, name: str) -> None:
        self.coder = name.strip()
        # A coder's copy keeps its own coder (copy_stamp): its work goes back under that name.
        if self.project is not None and self.coder and not self.project.readonly \
                and self.copy_stamp is None:
            self.project.use_coder(self.coder)
        self.show_status()
        if self.copy_stamp is not None and self.coder != self.copy_stamp.coder:
            self.statusBar().showMessage(
                f"This is {self.copy_stamp.coder}'s copy: what you do in it goes back to the "
                f"lead as {self.copy_stamp.coder}'s work. Your name is used in other projects.",
                10000)

    def change_coder(self) -> None:
        name = self.prompter.text("Coder", "Your name (credited with your tags):", self.coder)
        if name and name.strip():
            self.settings.setValue("coder", name.strip())
            self.set_coder(name)

    def about(self) -> None:
        self.prompter.about(
            f"About {APP_NAME}",
            f"<b>{APP_NAME}</b> {html.escape(workbench.__version__)}<br><br>"
            "Find clusters of near-duplicate pages in a web archive with SpotSigs "
            "(Theobald, Siddharth &amp; Paepcke, SIGIR 2008), then read and tag each story once."
            f"<br><br>Free software under the {workbench.LICENCE} licence.")

    def close_project(self) -> bool:
        # A read of related pairs under way finishes first (never a connection closed
        # under a worker's query).
        self.related.reader.wait()
        return super().close_project()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel_run(wait=True)
        self.pool.waitForDone(5000)
        self.save_layout()
        self.close_project()
        super().closeEvent(event)
