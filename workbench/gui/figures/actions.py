"""View ▸ Story Timeline, Save Timeline As…, Corpus Dashboard and Export Dashboard…

The main window adds them with one line, ``install_figure_actions(self, view)``. The
timeline follows the cluster the side by side shows: it is redrawn when the list's
selection changes and after every refresh of the list (a split, merge, mark or undo).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from workbench.figures.corpus import corpus_numbers
from workbench.figures.saving import FigureFormatError, export_dashboard, save_figure
from workbench.figures.spread import cluster_spread
from workbench.figures.timeline import timeline_figure
from workbench.gui.figures.dashboard_view import DashboardWindow
from workbench.gui.figures.timeline_view import RelatedPages, TimelineWindow
from workbench.gui.host import ProjectWindow
from workbench.gui.related.presenter import related_pages, related_pages_read
from workbench.store import ProjectError
from workbench.store.safety.portable_names import portable_name

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QTableView

    from workbench.gui.models import ClusterTableModel
    from workbench.gui.related.actions import RelatedActions
    from workbench.gui.sidebyside.view import CompareView

FOLDER_SETTING = "figures/lastFolder"
FIGURE_FILTERS = "PNG picture (*.png);;SVG drawing, scalable (*.svg)"
KEYS = {"timeline": "Ctrl+L", "save_timeline": "Ctrl+Shift+L", "dashboard": "Ctrl+D",
        "export_dashboard": "Ctrl+Shift+D"}


@runtime_checkable
class FiguresWindow(ProjectWindow, Protocol):
    """What the figures use of the window: the cluster shown, the list (to follow it),
    its settings (the folder saved to last), its named actions and its related pairs
    reader."""

    settings: QSettings
    compare: CompareView
    table: QTableView
    model: ClusterTableModel
    actions_by_name: dict[str, QAction]
    related: RelatedActions  # its reader reads a run's related pairs off the GUI thread


class FigureActions:
    """The four actions and the two windows they open (made when first opened)."""

    def __init__(self, window: FiguresWindow) -> None:
        self.window = window
        self.timeline: TimelineWindow | None = None
        self.dashboard: DashboardWindow | None = None
        self._pending = False
        # The cluster's rewrites: the related pages the related pane offers (the window
        # shown: once the related list has read them; a saved timeline: always).
        self.related: RelatedPages = related_pages
        self.related_shown: RelatedPages = related_pages_read

    # -- timeline

    def open_timeline(self) -> TimelineWindow:
        if self.timeline is None:
            self.timeline = TimelineWindow(self.window.window())
            self.timeline.related = self.related_shown
        self.timeline.show_cluster(self.window.project, self.window.compare.cluster_id)
        self.timeline.show()
        self.timeline.raise_()
        self.timeline.activateWindow()
        return self.timeline

    def follow(self, *_args: object) -> None:
        """The list changed: redraw once the window has shown what it now shows (the
        side by side follows the selection in a slot that may run after this one)."""
        if self.timeline is None or not self.timeline.isVisible() or self._pending:
            return
        self._pending = True
        QTimer.singleShot(0, self._redraw)

    def _redraw(self) -> None:
        self._pending = False
        if self.timeline is not None and self.timeline.isVisible():
            self.timeline.show_cluster(self.window.project, self.window.compare.cluster_id)

    def save_timeline(self) -> Path | None:
        """Ask for a file and save the shown cluster's timeline there (PNG or SVG, by the
        name's extension; .png when it has none)."""
        w = self.window
        cluster_id = w.compare.cluster_id
        if w.project is None or cluster_id is None:
            w.prompter.error("No cluster to save", "Choose a cluster in the list first: its "
                             "timeline is what Save Timeline As writes.")
            return None
        start = self._folder() / f"cluster-{cluster_id}-timeline.png"
        answer = w.prompter.save_file("Save Timeline As", str(start), FIGURE_FILTERS)
        if not answer:
            return None
        path = Path(answer)
        if not path.suffix:
            path = path.with_suffix(".png")
        project = w.project
        try:
            ready = project.related_read(cluster_id)
        except (ProjectError, sqlite3.Error) as exc:
            w.prompter.error("Cannot save the timeline", f"Could not read the project: {exc}")
            return None
        if ready:
            return self._save_timeline(cluster_id, path)
        # The rewrites drawn are the run's related pairs: read on a worker, as the related
        # list reads them (seconds for a million pairs), then saved; never on this thread.
        w.statusBar().showMessage(f"Reading the run's related pairs to save the timeline of "
                                  f"cluster {cluster_id}…", 10000)
        w.related.reader.then(
            project, cluster_id,
            lambda: self._save_timeline(cluster_id, path) if w.project is project else None,
            lambda why: w.prompter.error("Cannot save the timeline", why)
            if w.project is project else None)
        return None

    def _save_timeline(self, cluster_id: int, path: Path) -> Path | None:
        """Save the timeline, the run's related pairs read (the rewrites it draws)."""
        w = self.window
        if w.project is None:
            return None
        try:
            spread = cluster_spread(w.project.reader(), cluster_id,
                                    self.related(w.project, cluster_id))
            if spread is None:
                raise ProjectError(f"Cluster {cluster_id} no longer exists.")
            save_figure(timeline_figure(spread), path)
        except (FigureFormatError, ProjectError) as exc:
            w.prompter.error("Cannot save the timeline", str(exc))
            return None
        except OSError as exc:
            w.prompter.error("Cannot save the timeline",
                             f"Could not write {path}: {exc.strerror or exc}.")
            return None
        w.settings.setValue(FOLDER_SETTING, str(path.parent))
        w.statusBar().showMessage(f"Saved the timeline of cluster {cluster_id} to {path}", 10000)
        return path

    # -- dashboard

    def open_dashboard(self) -> DashboardWindow:
        if self.dashboard is None:
            self.dashboard = DashboardWindow(self.window.window())
            self.dashboard.export_requested.connect(self.export_dashboard)
            self.dashboard.reread_requested.connect(self._count)
        self._count()
        self.dashboard.show()
        self.dashboard.raise_()
        self.dashboard.activateWindow()
        return self.dashboard

    def _count(self) -> None:
        if self.dashboard is None:
            return
        try:
            self.dashboard.show_run(self.window.project)
        except (ProjectError, sqlite3.Error) as exc:
            self.window.prompter.error("Cannot count the run", f"The dashboard could not read "
                                       f"the project: {exc}")

    def export_dashboard(self) -> list[Path]:
        """Ask for a folder and write every plot as PNG and SVG and its numbers as CSV."""
        w = self.window
        if w.project is None:
            w.prompter.error("No project open", "Open a project to export its dashboard.")
            return []
        stem = portable_name(Path(w.project.archive_root).name, fallback="run")
        folder = w.prompter.folder("Export Dashboard To Folder",
                                   str(self._folder() / f"{stem}-dashboard"))
        if not folder:
            return []
        try:
            written = export_dashboard(corpus_numbers(w.project.reader()), folder)
        except ProjectError as exc:
            w.prompter.error("Cannot export the dashboard", str(exc))
            return []
        except OSError as exc:
            w.prompter.error("Cannot export the dashboard",
                             f"Could not write into {folder}: {exc.strerror or exc}.")
            return []
        w.settings.setValue(FOLDER_SETTING, str(folder))
        w.statusBar().showMessage(
            f"Wrote the dashboard's {len(written) // 3} plots (PNG, SVG) and their numbers "
            f"(CSV) to {folder}", 10000)
        return written

    def _folder(self) -> Path:
        last = self.window.settings.value(FOLDER_SETTING, "")
        return Path(str(last)) if last else Path.home()


def install_figure_actions(window: FiguresWindow, menu: QMenu) -> FigureActions:
    """Add the four actions to ``menu`` (and to ``window.actions_by_name``)."""
    figures = FigureActions(window)
    host = window.window()
    for name, text, slot, tip in (
            ("timeline", "Story &Timeline", figures.open_timeline,
             "The selected cluster's pages by date and site: who had it first, who copied"),
            ("save_timeline", "Save Timeline &As…", figures.save_timeline,
             "Save the selected cluster's timeline as PNG or SVG (by the file's extension)"),
            ("dashboard", "Corpus &Dashboard", figures.open_dashboard,
             "The run at a glance: cluster sizes, copies per site, duplication over time, "
             "the sources copied most"),
            ("export_dashboard", "E&xport Dashboard…", figures.export_dashboard,
             "Every dashboard plot as PNG and SVG and its numbers as CSV, into a folder")):
        action = QAction(text, host)
        action.setObjectName(name)
        action.setMenuRole(QAction.MenuRole.NoRole)  # stays in its menu on macOS
        action.setShortcut(QKeySequence(KEYS[name]))
        action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False, slot=slot: slot())
        host.addAction(action)
        menu.addAction(action)
        window.actions_by_name[name] = action
    window.table.selectionModel().selectionChanged.connect(figures.follow)
    for signal in (window.model.modelReset, window.model.dataChanged, window.model.layoutChanged):
        signal.connect(figures.follow)
    window.figures = figures  # type: ignore[attr-defined]
    return figures
