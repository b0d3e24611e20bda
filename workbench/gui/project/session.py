"""The window's project: open an archive or a project (by menu, the recent list or a
drop), close it, save a copy."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QDragEnterEvent, QDropEvent

from workbench.cluster.where import RunWhere
from workbench.gui.long_words import shorten_middle
from workbench.gui.project.locations import APP_NAME, PROJECT_SUFFIX, project_for_archive, projects_dir
from workbench.gui.project.opening import Opened, offer_pending_run, open_existing, read_only_banner
from workbench.gui.sidebyside.pagetext import params_from_dict
from workbench.store import Project, ProjectError
from workbench.store.safety.backup import backup_dir_for
from workbench.store.team import CopyStamp, copy_of
from workbench.usecases.detector_run import MethodChoice

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QLabel

    from workbench.gui.coding.carried import CarriedDialog
    from workbench.gui.coding.memopane import MemoPane
    from workbench.gui.coding.review_dialog import ReviewDialog
    from workbench.gui.jobs import DetectJob
    from workbench.gui.models import ClusterTableModel
    from workbench.gui.project.backupwatch import BackupWatcher
    from workbench.gui.project.recent import RecentProjects
    from workbench.gui.prompter import Prompter
    from workbench.gui.sidebyside.view import CompareView


def backups_note(path: Path) -> str:
    """Where the copies made on opening are (only when the data changed since the last)."""
    return f"Backup copies are in {backup_dir_for(path)}"


class ProjectSession:
    """MainWindow's opening, closing and Save As; one project is open at a time."""

    # The window's, set in MainWindow.__init__, _build_widgets and _build_menus.
    project: Project | None
    prompter: Prompter
    settings: QSettings
    projects_folder: Path | None
    coder: str
    copy_stamp: CopyStamp | None
    job: DetectJob | None
    skipped: list[tuple[str, str]]
    carried_dialog: CarriedDialog | None
    review_dialog: ReviewDialog | None
    model: ClusterTableModel
    compare: CompareView
    memo_pane: MemoPane
    recent: RecentProjects
    backup_watcher: BackupWatcher
    readonly_label: QLabel
    project_label: QLabel

    def open_archive_dialog(self) -> None:
        path = self.prompter.folder("Open Archive Folder", self.settings.value("lastFolder", "") or "")
        if path:
            self.settings.setValue("lastFolder", path)
            self.open_archive(Path(path))

    def open_project_dialog(self) -> None:
        path = self.prompter.open_project(str(self.projects_folder or projects_dir()))
        if path:
            self.open_project(Path(path))

    def open_path(self, path: Path) -> bool:
        """A project file, or else an archive folder or file: what a drop, the command line
        and Finder's open requests (workbench.gui.fileopen) give."""
        path = Path(path)
        if path.suffix == PROJECT_SUFFIX and path.is_file():
            return self.open_project(path)
        return self.open_archive(path)

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
            opened = open_existing(path, self.prompter, self.projects_folder) if exists else Opened(
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
            opened = open_existing(path, self.prompter, self.projects_folder)
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
        self.copy_stamp = self._stamp_of(project)
        # A coder's copy codes as the coder it was handed out to, whoever opens it: its
        # work comes back to the lead under that name.
        if self.coding_as and not project.readonly:
            project.use_coder(self.coding_as)
        self.skipped = [(k, r) for k, r in project.skipped_pages()]
        self.recent.remember(project.path)
        banner = read_only_banner(project)
        self.readonly_label.setText(banner)
        self.readonly_label.setVisible(bool(banner))
        name = Path(project.archive_root).name or project.path.stem
        whose = f" ({self.copy_stamp.coder}'s copy)" if self.copy_stamp is not None else ""
        self.setWindowTitle(f"{name}{whose}{' (read-only)' if banner else ''} — {APP_NAME}")
        # A long file name would widen the window: shortened here, whole in the tooltip.
        self.project_label.setText(f"Project: {shorten_middle(project.path.name, 48)}")
        self.project_label.setToolTip(f"{project.path}\n{backups_note(project.path)}\n"
                                      "(File ▸ Show Project File)")
        self.backup_watcher.watch(project)
        self.refresh(select_ids=[])
        self._keyboard_to_list()
        self.project_opened.emit(str(project.path))
        if opened.note:
            self.prompter.info(opened.note_title, opened.note)
        pending = offer_pending_run(project, self.prompter)
        if pending is not None:
            self.start_run(params_from_dict(pending), MethodChoice.of_run("", pending),
                           where=RunWhere.of_setting(pending))
        elif project.current_run() is None and not project.readonly \
                and Path(project.archive_root).exists():
            self.start_run()

    @property
    def coding_as(self) -> str:
        """The coder credited with what is done in the open project: a copy's own coder,
        else the window's."""
        return self.copy_stamp.coder if self.copy_stamp is not None else self.coder

    def _stamp_of(self, project: Project) -> CopyStamp | None:
        try:
            return copy_of(project)
        except ProjectError as exc:  # a damaged stamp: opened as an ordinary project
            self.prompter.error("Damaged coder's copy", str(exc))
            return None

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
        if self.review_dialog is not None:  # so does the review queue
            self.review_dialog.close()
        project, self.project = self.project, None
        self.copy_stamp = None
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
            # Refuses a target open elsewhere; copies the -wal too (store.safety.save_as).
            self.project.save_copy(target_path)
        except ProjectError as exc:
            self.prompter.error("Save As failed", str(exc))
            return
        self.open_project(target_path)

    def show_project_file(self) -> None:
        if self.project is not None:
            self.prompter.reveal(self.project.path)
            self.statusBar().showMessage(
                f"The project file is {self.project.path}. {backups_note(self.project.path)}", 15000)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            path = Path(url.toLocalFile())
            if path.exists():
                self.open_path(path)
            return
