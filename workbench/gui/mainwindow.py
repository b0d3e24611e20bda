"""The workbench window: cluster list, side by side, codebook, background runs."""

from __future__ import annotations

import html
import time
from pathlib import Path

from PySide6.QtCore import (
    QItemSelectionModel,
    QKeyCombination,
    QSettings,
    Qt,
    QThreadPool,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QIcon,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import workbench
from workbench import resources
from workbench.core.calibration import run_floor
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.coding.carried import CarriedDialog, carried_message, review_carried, show_carried
from workbench.gui.coding.codebook import CodebookPanel
from workbench.gui.coding.codebook_actions import CodebookActions
from workbench.gui.coding.coding_actions import CodingActions
from workbench.gui.coding.feedback import count_of, memo_saved_message
from workbench.gui.coding.memopane import MemoPane
from workbench.gui.coding.memoview import memo_view
from workbench.gui.coding.navigation import cluster_to_show, counts_text, edge_row, member_to_show
from workbench.gui.detection.andd_actions import install_andd_action
from workbench.gui.detection.calibration import CalibrationDialog, open_calibration
from workbench.gui.detection.compare_actions import install_compare_action
from workbench.gui.filterbar import FilterBar
from workbench.gui.jobs import DetectJob, RunSummary
from workbench.gui.keyboard import CodingUndoInTextFields, Pane, is_typing, pane_after, pane_of
from workbench.gui.messages import MessageLog
from workbench.gui.models import COL_MIN, COL_SIZE, COL_TITLE, ClusterTableModel
from workbench.gui.project.backupwatch import BackupWatcher
from workbench.gui.project.export_actions import export_dialog
from workbench.gui.project.locations import APP_NAME, PROJECT_SUFFIX, project_for_archive, projects_dir
from workbench.gui.project.opening import Opened, offer_pending_run, open_existing, read_only_banner
from workbench.gui.project.recent import RecentProjects
from workbench.gui.prompter import Prompter
from workbench.gui.runpanel import RunPanel
from workbench.gui.sidebyside.pagetext import params_from_dict
from workbench.gui.sidebyside.view import CompareView
from workbench.store import ClusterRow, Project, ProjectError
from workbench.usecases.detector_run import MethodChoice

ICONS = resources.ICONS
# How long after its worker is done an ended detection job is kept alive (see _retire).
JOB_GRACE_SECONDS = 2.0


def icon(name: str) -> QIcon:
    path = ICONS / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


class MainWindow(QMainWindow):
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
        self.job: DetectJob | None = None
        self.pool = QThreadPool.globalInstance()
        self._retired_jobs: list[tuple[DetectJob, float]] = []
        self._singles = 0
        self.skipped: list[tuple[str, str]] = []
        self.calibration: CalibrationDialog | None = None
        # What the last re-clustering carried over, to review (workbench.gui.coding.carried).
        self.carried_dialog: CarriedDialog | None = None
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

    # ================================================================ building
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
        self.table.horizontalHeader().setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Stretch)
        self.table.setAlternatingRowColors(True)
        for col, width in enumerate([42, 44, 46, 50, 0, 110, 100, 54]):
            if width:
                self.table.setColumnWidth(col, width)
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
        self.counts_label = QLabel()
        self.counts_label.setObjectName("countsLabel")
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
        bar = self.statusBar()
        self.messages = MessageLog(bar, self)
        bar.addWidget(self.run_panel)
        bar.addPermanentWidget(self.keyboard_label)
        bar.addPermanentWidget(self.readonly_label)
        bar.addPermanentWidget(self.counts_label)
        bar.addPermanentWidget(self.coder_label)
        bar.addPermanentWidget(self.project_label)

    def _action(self, name: str, text: str, slot, shortcut: str | QKeySequence | None = None,
                tip: str = "") -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        self.actions_by_name[name] = action
        return action

    def _build_actions(self) -> None:
        self.actions_by_name: dict[str, QAction] = {}
        a = self._action
        a("open_archive", "Open Archive &Folder…", self.open_archive_dialog, QKeySequence.StandardKey.Open,
          "Open a folder of saved pages, WARC/ARC or WACZ files")
        a("open_project", "Open &Project…", self.open_project_dialog, "Ctrl+Shift+O")
        a("save_as", "Save Project &As…", self.save_project_as)
        a("export", "&Export…", lambda: export_dialog(self), "Ctrl+E", "Export tagged pages to CSV")
        a("skipped", "&Skipped Files…", self.show_skipped)
        a("quit", "&Quit", self.close, QKeySequence.StandardKey.Quit)
        a("undo", "&Undo", self.coding.undo, "Ctrl+Z")
        a("redo", "&Redo", self.coding.redo, "Ctrl+Shift+Z")
        a("split", "&Split Member Out", self.coding.split_member, "S",
          "Move the member shown on the right into a cluster of its own")
        a("merge", "&Merge Clusters", self.coding.merge_selected, "M", "Merge the selected clusters")
        a("exclude", "Not &This Story", self.coding.toggle_not_this_story, "X",
          "Mark the member shown on the right as not the cluster's story (or its story again)")
        a("next_uncoded", "&Next Uncoded Cluster", self.coding.next_uncoded, "N")
        a("next_member", "Next Member", lambda: self.compare.step_member(1), "PgDown")
        a("prev_member", "Previous Member", lambda: self.compare.step_member(-1), "PgUp")
        a("find", "&Filter Clusters", self.filters.text.setFocus, QKeySequence.StandardKey.Find)
        a("change_coder", "Change &Coder…", self.change_coder)
        a("settings", "&Detection Settings…", self.settings_dialog, tip="Change parameters and run again")
        a("rerun", "&Run Detection Again", lambda: self.start_run())
        a("calibrate", "&Calibrate τ…", lambda: open_calibration(self), "Ctrl+K",
          "See what another similarity threshold would do to the clusters, and apply it")
        a("review_carried", "Re&view Carried Decisions…", lambda: review_carried(self),
          tip="Memos and marks a re-clustering carried to clusters that changed, to look at")
        a("focus_list", "Cluster &List", self.focus_list, "Escape",
          "Put the keyboard in the cluster list (from the filter box, the codebook, a page)")
        a("focus_codebook", "Code&book", self.focus_codebook, "Ctrl+B")
        a("focus_memo", "&Memo", self.focus_memo, "Ctrl+M",
          "Put the keyboard in the memo on the cluster (again: the memo on the page)")
        a("messages", "Status &Messages…", self.show_messages, tip="Every status message of "
          "this session in full, newest first")
        a("first_cluster", "&First Cluster", lambda: self.select_edge(last=False), "Ctrl+Home")
        a("last_cluster", "&Last Cluster", lambda: self.select_edge(last=True), "Ctrl+End")
        a("new_tag", "&New Tag…", self.tag_actions.new_tag, "Ctrl+T",
          "Add a tag: name, key, colour, parent and description")
        a("edit_tag", "&Edit Tag…", self.tag_actions.edit_tag, "Ctrl+Shift+T",
          "Change the tag chosen in the codebook")
        a("delete_tag", "&Delete Tag", self.tag_actions.delete_tag)
        a("import_codebook", "&Import Codebook…", self.tag_actions.import_codebook,
          tip="Tags from a REFI-QDA .qdc file (MAXQDA, ATLAS.ti, NVivo, QualCoder) or a CSV")
        a("import_project_codebook", "Import From &Project…", self.tag_actions.import_from_project,
          tip="Start from the codebook of another project")
        a("export_codebook", "E&xport Codebook…", self.tag_actions.export_codebook,
          tip="Write the codebook as a REFI-QDA .qdc file or a CSV")
        a("show_project", "Show Project &File", self.show_project_file,
          tip="Show the project file in the file manager")
        advance = a("advance", "&Advance After Tagging", lambda: self.settings.setValue(
            "coding/advance", self.actions_by_name["advance"].isChecked()),
            tip="After a key tags a cluster, move to the next uncoded one")
        advance.setCheckable(True)
        advance.setChecked(str(self.settings.value("coding/advance", True)).lower()
                           not in ("false", "0"))
        a("shortcuts", "&Keyboard Shortcuts", lambda: self.prompter.show_shortcuts(), "F1")
        a("about", "&About", self.about)
        self.tag_shortcuts = []
        for digit in range(1, 10):
            sc = QShortcut(QKeySequence(str(digit)), self)
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
            sc.activated.connect(lambda d=digit: self.coding.toggle_tag_key(str(d)))
            self.tag_shortcuts.append(sc)
            page_sc = QShortcut(QKeySequence(f"Alt+{digit}"), self)
            page_sc.setContext(Qt.ShortcutContext.WindowShortcut)
            page_sc.activated.connect(lambda d=digit: self.coding.toggle_page_tag_key(str(d)))
            self.tag_shortcuts.append(page_sc)
            # Shift+digit tags and stays, for a second tag. Given as key code and modifier,
            # not as the text "!": Qt matches a shortcut by the key's place on the layout,
            # so it is the digit key with Shift on layouts where Shift+1 types "!" or "+".
            stay_sc = QShortcut(QKeySequence(
                QKeyCombination(Qt.KeyboardModifier.ShiftModifier, Qt.Key(Qt.Key.Key_0 + digit))),
                self)
            stay_sc.setContext(Qt.ShortcutContext.WindowShortcut)
            stay_sc.activated.connect(
                lambda d=digit: self.coding.toggle_tag_key(str(d), stay=True))
            self.tag_shortcuts.append(stay_sc)

    def _build_menus(self) -> None:
        m = self.menuBar()
        act = self.actions_by_name
        file = m.addMenu("&File")
        file.addAction(act["open_archive"])
        file.addAction(act["open_project"])
        self.recent_menu = QMenu("&Recent Projects", self)
        self.recent_menu.setObjectName("recentMenu")
        self.recent = RecentProjects(self.settings, self.recent_menu, self.open_project)
        file.addMenu(self.recent_menu)
        file.addAction(act["save_as"])
        file.addSeparator()
        file.addAction(act["export"])
        file.addAction(act["skipped"])
        file.addAction(act["show_project"])
        file.addSeparator()
        file.addAction(act["quit"])
        edit = m.addMenu("&Edit")
        for name in ("undo", "redo", None, "split", "merge", "exclude", None, "change_coder"):
            edit.addSeparator() if name is None else edit.addAction(act[name])
        view = m.addMenu("&View")
        for name in ("next_uncoded", "first_cluster", "last_cluster", "next_member", "prev_member",
                     None, "find", "focus_list", "focus_codebook", "focus_memo", None, "advance",
                     None, "messages"):
            view.addSeparator() if name is None else view.addAction(act[name])
        codebook = m.addMenu("&Codebook")
        for name in ("new_tag", "edit_tag", "delete_tag", None, "import_codebook",
                     "import_project_codebook", "export_codebook"):
            codebook.addSeparator() if name is None else codebook.addAction(act[name])
        detect = m.addMenu("&Detection")
        detect.addAction(act["settings"])
        detect.addAction(act["rerun"])
        detect.addAction(act["calibrate"])
        install_compare_action(self, detect)
        install_andd_action(self, detect)
        detect.addAction(act["review_carried"])
        help_ = m.addMenu("&Help")
        help_.addAction(act["shortcuts"])
        help_.addAction(act["about"])
        self.recent.fill()
        bar = self.addToolBar("Main")
        bar.setObjectName("mainToolBar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for item in (("open_archive", "open"), ("open_project", "project"), ("export", "export"), None,
                     ("undo", "undo"), ("redo", "redo"), None, ("next_uncoded", "next"),
                     ("split", "split"), ("merge", "merge"), None, ("settings", "settings"),
                     ("skipped", "skipped")):
            if item is None:
                bar.addSeparator()
                continue
            name, pic = item
            act[name].setIcon(icon(pic))
            bar.addAction(act[name])
        for name, short in (("open_archive", "Open Folder"), ("open_project", "Open Project"),
                            ("export", "Export"), ("undo", "Undo"), ("redo", "Redo"),
                            ("next_uncoded", "Next Uncoded"), ("split", "Split"), ("merge", "Merge"),
                            ("settings", "Settings"), ("skipped", "Skipped")):
            act[name].setIconText(short)

    # ========================================================= layout memory
    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1480, 900)
        for splitter in (self.main_splitter, self.left_splitter, self.compare.splitter):
            state = self.settings.value(f"window/{splitter.objectName()}")
            if state is not None:
                splitter.restoreState(state)

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        for splitter in (self.main_splitter, self.left_splitter, self.compare.splitter):
            self.settings.setValue(f"window/{splitter.objectName()}", splitter.saveState())
        self.settings.sync()

    # ================================================================ opening
    def open_archive_dialog(self) -> None:
        path = self.prompter.folder("Open Archive Folder", self.settings.value("lastFolder", "") or "")
        if path:
            self.settings.setValue("lastFolder", path)
            self.open_archive(Path(path))

    def open_project_dialog(self) -> None:
        path = self.prompter.open_project(str(self.projects_folder or projects_dir()))
        if path:
            self.open_project(Path(path))

    def open_archive(self, root: Path) -> bool:
        """Open (or create) the project for an archive folder; run detection if it has no run yet."""
        root = Path(root).resolve()
        if not root.exists():
            self.prompter.error("Cannot open", f"{root} does not exist.")
            return False
        try:
            path, exists = project_for_archive(root, self.projects_folder)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._release_if_open(path)
            opened = open_existing(path, self.prompter) if exists else Opened(
                Project.create(path, str(root)))
        except (ProjectError, OSError) as exc:
            self.prompter.error("Cannot open the archive", str(exc))
            return False
        if opened is None:
            return False
        self._set_project(opened)
        return True

    def open_project(self, path: Path) -> bool:
        try:
            self._release_if_open(path)
            opened = open_existing(path, self.prompter)
        except (ProjectError, OSError) as exc:
            self.prompter.error("Cannot open the project", str(exc))
            return False
        if opened is None:
            return False
        self._set_project(opened)
        return True

    def _set_project(self, opened: Opened) -> None:
        """Show an opened project, then start the run it needs (none yet, or one that
        never finished and the coder wants again)."""
        self.close_project()
        project = self.project = opened.project
        if self.coder and not project.readonly:
            project.use_coder(self.coder)
        self.skipped = [(k, r) for k, r in project.skipped_pages()]
        self.recent.remember(project.path)
        banner = read_only_banner(project)
        self.readonly_label.setText(banner)
        self.readonly_label.setVisible(bool(banner))
        name = Path(project.archive_root).name or project.path.stem
        self.setWindowTitle(f"{name}{' (read-only)' if banner else ''} — {APP_NAME}")
        self.project_label.setText(f"Project: {project.path.name}")
        self.project_label.setToolTip(f"{project.path}\n(File ▸ Show Project File)")
        self.backup_watcher.watch(project)
        self.refresh(select_ids=[])
        self._keyboard_to_list()
        self.project_opened.emit(str(project.path))
        if opened.note:
            self.prompter.info("Backup restored", opened.note)
        pending = offer_pending_run(project, self.prompter)
        if pending is not None:
            self.start_run(params_from_dict(pending), MethodChoice.of_run("", pending))
        elif project.current_run() is None and not project.readonly \
                and Path(project.archive_root).exists():
            self.start_run()

    def _release_if_open(self, path: Path) -> None:
        """Opening the project this window has open: close it first, or its own write
        lock would make it look in use by someone else."""
        if self.project is not None and self.project.path.resolve() == Path(path).resolve():
            self.close_project()

    def close_project(self) -> bool:
        """Stop the run and close the project; a close that cannot fold its last changes
        into the file (full disk) says where they are and returns False."""
        if self.job is not None:
            self.cancel_run(wait=True)
        self.backup_watcher.stop()
        self.memo_pane.flush()  # a memo typed just now is saved before the file closes
        if self.carried_dialog is not None:  # its items belong to the project closing
            self.carried_dialog.close()
        project, self.project = self.project, None
        if project is not None:
            # Nothing may read the closed file later (a debounced filter change did).
            self.model.project = None
            self.model.reload()
            self.compare.clear()
            try:
                project.close()
            except ProjectError as exc:
                self.prompter.error("Project not closed cleanly", str(exc))
                return False
        return True

    def save_project_as(self) -> None:
        if self.project is None:
            return
        target = self.prompter.save_project(str(self.project.path))
        if not target:
            return
        target_path = Path(target)
        if target_path.suffix != PROJECT_SUFFIX:
            target_path = target_path.with_suffix(PROJECT_SUFFIX)
        if self.job is not None:
            self.prompter.info("Please wait", "Save As is possible once the detection run ends.")
            return
        self.memo_pane.flush()  # a memo typed just now goes into the copy
        try:
            # Refuses a target open elsewhere; copies the -wal too (store.save_as).
            self.project.save_copy(target_path)
        except ProjectError as exc:
            self.prompter.error("Save As failed", str(exc))
            return
        self.open_project(target_path)

    # ============================================================= detection
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

    def start_run(self, params: SpotSigsParams | None = None, method: MethodChoice | None = None) -> bool:
        """A detection run into the project: with ``params`` (from the settings dialog)
        SpotSigs, unless ``method`` says otherwise; without, the current run's method again."""
        if self.project is None or self.job is not None:
            return False
        if method is None:
            method = MethodChoice() if params is not None else self.current_method()
        root = self.project.archive_root
        if not Path(root).exists():
            self.prompter.error("Archive not found", f"The archive folder {root} is not there any more.")
            return False
        self.job = DetectJob(self.project, root, params or self.current_params(), self.workers, method)
        sig = self.job.signals
        sig.progress.connect(self.run_panel.on_progress)
        sig.counts.connect(self.run_panel.on_counts)
        sig.finished.connect(self._run_finished)
        sig.failed.connect(self._run_failed)
        sig.cancelled.connect(self._run_cancelled)
        self.run_panel.start(f"Opening {Path(root).name}…")
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
            self._retire(self.job)
        self.job = None
        self.run_panel.stop()
        self.update_actions()

    def _retire(self, job: DetectJob) -> None:
        """Keep an ended job alive until its worker has surely left ``run()``.

        Dropping the last reference while the worker still unwinds would delete the
        job's signal object on the worker thread, racing this thread's event loop over
        its queued signals (a crash seen about once in eight test-suite runs). Jobs are
        let go here, on the GUI thread, a while after their worker said it was done.
        """
        now = time.monotonic()
        self._retired_jobs = [(j, t) for j, t in self._retired_jobs
                              if not (j.done.is_set() and now - t > JOB_GRACE_SECONDS)]
        self._retired_jobs.append((job, now))

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
        skipped = (f"{count_of(len(self.skipped), 'file or record', 'files or records')} gave "
                   "no page to compare (File ▸ Skipped Files says why)" if self.skipped
                   else "nothing skipped")
        self.statusBar().showMessage(
            f"Detection done in {spent:.1f} s: {count_of(summary.pages, 'page', 'pages')}, "
            f"{count_of(summary.pairs, 'pair', 'pairs')}, "
            f"{count_of(summary.clusters, 'cluster', 'clusters')} and "
            f"{count_of(self._singles, 'single page', 'single pages')}; {skipped}."
            f"{summary.note}"
            + (f" Your {carried_message(self)}." if self.project and self.project.last_carry else ""),
            15000)
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
        params = self.prompter.detection_params(self.current_params())
        if params is not None:
            self.start_run(params)

    def show_skipped(self) -> None:
        self.prompter.show_list(
            "Skipped Files",
            f"{count_of(len(self.skipped), 'file or record', 'files or records')} gave no page "
            "to compare, with the reason for each.",
            ["File or record", "Reason"], self.skipped)

    # =============================================================== refresh
    def update_actions(self) -> None:
        have = self.project is not None
        idle = self.job is None
        # A read-only project can be read, calibrated and exported, not changed.
        writable = have and idle and not self.project.readonly
        act = self.actions_by_name
        for name in ("export", "save_as", "skipped", "calibrate", "next_uncoded", "next_member",
                     "prev_member"):
            act[name].setEnabled(have and idle)
        for name in ("settings", "rerun", "split", "merge", "exclude", "review_carried"):
            act[name].setEnabled(writable)
        can_undo = writable and self.project.next_undo() is not None
        can_redo = writable and self.project.next_redo() is not None
        act["undo"].setEnabled(can_undo)
        act["redo"].setEnabled(can_redo)
        act["undo"].setText(f"&Undo {self.project.next_undo().description}" if can_undo else "&Undo")
        act["redo"].setText(f"&Redo {self.project.next_redo().description}" if can_redo else "&Redo")
        for sc in self.tag_shortcuts:  # kept on read-only, to say why nothing happens
            sc.setEnabled(have and idle)
        self.codebook.setEnabled(writable)

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
        self.memo_pane.show_view(memo_view(self.project, self.coder, self.compare.cluster_id,
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

    def _shown_member_id(self) -> int | None:
        m = self.compare.current_member()
        return m.page_id if m else None

    def _reselect(self, cluster_ids: list[int]) -> None:
        sel = self.table.selectionModel()
        with_signals_blocked = sel.blockSignals(True)
        sel.clearSelection()
        first = None
        for cid in cluster_ids:
            row = self.model.find_row(cid)
            if row < 0:
                continue
            first = row if first is None else first
            sel.select(self.model.index(row, 0), QItemSelectionModel.SelectionFlag.Select
                       | QItemSelectionModel.SelectionFlag.Rows)
        if first is not None:
            sel.setCurrentIndex(self.model.index(first, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
            self.table.scrollTo(self.model.index(first, 0))
        sel.blockSignals(with_signals_blocked)
        self.table.viewport().update()

    def show_status(self) -> None:
        self.counts_label.setText(counts_text(self.project, self._singles))
        # A narrow window cuts the permanent labels too: their tooltips hold them whole.
        self.counts_label.setToolTip(self.counts_label.text())
        self.coder_label.setText(f"Coder: {self.coder}" if self.coder else "")

    def refresh_codebook(self) -> None:
        tags = self.project.codebook() if self.project is not None else []
        self.codebook.set_tags(tags, self.selected_rows() if self.project is not None else [])
        self.filters.set_tags(tags)

    # ============================================================= selection
    def selected_rows(self) -> list[ClusterRow]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.row_of(r) for r in rows if r < self.model.rowCount()]

    def selected_ids(self) -> list[int]:
        return [r.id for r in self.selected_rows()]

    def select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    def select_cluster(self, cluster_id: int) -> bool:
        row = self.model.find_row(cluster_id)
        if row >= 0:
            self.select_row(row)
        return row >= 0

    def _selection_changed(self, *_args) -> None:
        rows = self.selected_rows()
        if self.project is not None and rows:
            current = self.table.currentIndex()
            here = self.model.row_of(current.row()).id \
                if current.isValid() and current.row() < self.model.rowCount() else None
            cid = cluster_to_show([r.id for r in rows], here)
            if cid != self.compare.cluster_id:
                self.compare.show_cluster(self.project, cid)
        elif not rows:
            self.compare.clear()
        self.refresh_codebook()
        self._show_memos()

    def focus_list(self) -> None:
        """Escape, and after every dialog: the keyboard goes back to the cluster list."""
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if not self.table.currentIndex().isValid() and self.model.rowCount():
            self.select_row(0)

    def focus_memo(self) -> None:
        """Ctrl+M: the memo on the cluster; pressed there, the memo on the page."""
        pane = self.memo_pane
        target = pane.page if pane.cluster.hasFocus() and pane.page.isEnabled() else pane.cluster
        if not target.isEnabled():
            self.statusBar().showMessage(
                "Ctrl+M: no memo to write here — choose a cluster first." if self.project
                is not None else "Ctrl+M: open a project first.", 5000)
            return
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _keyboard_to_list(self) -> None:
        """After a run or an opening: the keyboard goes to the list, where Down acts, unless
        the coder is typing (a filter or memo with text in it)."""
        widget = QApplication.focusWidget()
        typed = is_typing(widget) and bool(getattr(widget, "text", lambda: "")()
                                           or getattr(widget, "toPlainText", lambda: "")())
        if not typed:
            self.focus_list()

    def panes(self) -> list[Pane]:
        """The panes Tab moves between, in order, each with the widget that takes the keys."""
        memo, compare = self.memo_pane, self.compare
        return [Pane("filter box", self.filters.text, self.filters),
                Pane("cluster list", self.table, self.table),
                Pane("codebook", self.codebook.tree, self.codebook),
                Pane("memo on the cluster", memo.cluster, memo.cluster),
                Pane("memo on the page", memo.page, memo),
                Pane("members", compare.members, compare.members),
                Pane("why these match", compare.why, compare.why),
                Pane("reference page", compare.left.text, compare.left),
                Pane("member page", compare.right.text, compare.right),
                Pane("side by side", compare.members, compare)]

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt API
        """Tab and Shift+Tab move from pane to pane (not through every button and box)."""
        panes = self.panes()
        target = pane_after(panes, QApplication.focusWidget(), forward=next,
                            usable=lambda w: w.isEnabled() and w.isVisibleTo(self))
        if target is None:
            return super().focusNextPrevChild(next)
        target.setFocus(Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason)
        return True

    def _focus_moved(self, _old, now) -> None:
        if now is None or now.window() is not self:
            return
        pane = pane_of(self.panes(), now)
        where = pane.name if pane is not None else "window"
        self.keyboard_label.setText(f"Keys: {where}" + (" (typing)" if is_typing(now) else ""))

    def show_messages(self) -> None:
        self.prompter.show_list("Status Messages", "Every message of this session, newest first.",
                                ["Time", "Message"], self.messages.rows())

    def focus_codebook(self) -> None:
        tree = self.codebook.tree
        tree.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if tree.currentItem() is None and tree.topLevelItemCount():
            tree.setCurrentItem(tree.topLevelItem(0))

    def select_edge(self, *, last: bool) -> None:
        """Ctrl+Home / Ctrl+End: the first or last cluster of the whole list."""
        row = edge_row(self.model, last=last)
        if row is not None:
            self.select_row(row)
            self.table.setFocus()

    def show_project_file(self) -> None:
        if self.project is not None:
            self.prompter.reveal(self.project.path)
            self.statusBar().showMessage(f"The project file is {self.project.path}", 10000)

    def _apply_filters(self) -> None:
        """Filter the list, keeping the selected clusters still listed; when none is, the
        first row is selected (a current row left hidden made Down skip it, and a list
        filtered to one row could not be given a selection by key at all)."""
        keep = self.selected_ids()
        self.model.set_filters(**self.filters.values())
        self._reselect(keep)
        if not self.selected_rows() and self.model.rowCount():
            self.select_row(0)  # its selectionChanged shows it
        else:
            self._selection_changed()

    # =============================================================== actions
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

    # ------------------------------------------------------------------ coder
    def set_coder(self, name: str) -> None:
        self.coder = name.strip()
        if self.project is not None and self.coder and not self.project.readonly:
            self.project.use_coder(self.coder)
        self.show_status()

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
            "(Theobald, Siddharth &amp; Paepcke, SIGIR 2008), then read and tag each story once.")

    # ------------------------------------------------------------ drag & drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            path = Path(url.toLocalFile())
            if path.suffix == PROJECT_SUFFIX and path.is_file():
                self.open_project(path)
            elif path.exists():
                self.open_archive(path)
            return

    # ------------------------------------------------------------------ close
    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel_run(wait=True)
        self.pool.waitForDone(5000)
        self.save_layout()
        self.close_project()
        super().closeEvent(event)
