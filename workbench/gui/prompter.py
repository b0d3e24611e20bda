"""Every question the window asks the coder, in one replaceable object.

Tests pass a subclass with canned answers, so no modal dialog ever blocks them.
After every dialog, ``after_dialog`` runs (the window puts the keyboard focus back
in the cluster list: a closed dialog otherwise leaves focus nowhere, and coding
keys then do nothing).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import QColorDialog, QFileDialog, QInputDialog, QMessageBox, QWidget

from workbench.cluster.where import RunWhere
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.coding.tagdialog import TagDialog
from workbench.gui.coding.tagform import TagForm
from workbench.gui.detection.sample_dialog import SampleDialog, SampleOptions, new_seed
from workbench.gui.dialogs import ExportDialog, ExportOptions, ListDialog, SettingsDialog, shortcuts_dialog
from workbench.gui.project.locations import PROJECT_SUFFIX
from workbench.gui.project.team_dialogs import HandOutDialog, HandOutOptions
from workbench.store import Tag

F = TypeVar("F", bound=Callable[..., Any])


def _dialog(method: F) -> F:
    """Run ``after_dialog`` once the dialog ``method`` shows has closed."""
    @functools.wraps(method)
    def wrapper(self: Prompter, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        finally:
            if self.after_dialog is not None:
                self.after_dialog()
    return wrapper  # type: ignore[return-value]


class Prompter:
    def __init__(self, parent: QWidget | None = None) -> None:
        self.parent = parent
        self.after_dialog: Callable[[], None] | None = None

    @_dialog
    def text(self, title: str, label: str, default: str = "") -> str | None:
        value, ok = QInputDialog.getText(self.parent, title, label, text=default)
        return value if ok else None

    @_dialog
    def confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self.parent, title, text)
        return answer == QMessageBox.StandardButton.Yes

    @_dialog
    def choose(self, title: str, text: str, buttons: list[str]) -> int | None:
        """One of several answers: the index of the button pressed (None: closed/Escape).

        The first button is the default; a button named "Cancel" answers Escape.
        """
        box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton,
                          self.parent)
        made = []
        for label in buttons:
            role = (QMessageBox.ButtonRole.RejectRole if label == "Cancel"
                    else QMessageBox.ButtonRole.AcceptRole)
            made.append(box.addButton(label, role))
        if made:
            box.setDefaultButton(made[0])
        box.exec()
        clicked = box.clickedButton()
        return made.index(clicked) if clicked in made else None

    @_dialog
    def colour(self, initial: str) -> str | None:
        chosen = QColorDialog.getColor(QColor(initial or "#888888"), self.parent, "Tag colour")
        return chosen.name() if chosen.isValid() else None

    @_dialog
    def folder(self, title: str, start: str = "") -> str | None:
        path = QFileDialog.getExistingDirectory(self.parent, title, start)
        return path or None

    @_dialog
    def open_project(self, start: str = "") -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, "Open Project", start,
                                              f"Workbench projects (*{PROJECT_SUFFIX});;All files (*)")
        return path or None

    @_dialog
    def save_project(self, start: str = "") -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save Project As", start,
                                              f"Workbench projects (*{PROJECT_SUFFIX})")
        return path or None

    @_dialog
    def info(self, title: str, text: str) -> None:
        QMessageBox.information(self.parent, title, text)

    @_dialog
    def error(self, title: str, text: str, details: str = "") -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self.parent)
        if details:
            box.setDetailedText(details)
        box.exec()

    @_dialog
    def export_options(self, default_path: Path) -> ExportOptions | None:
        dialog = ExportDialog(default_path, self.parent)
        return dialog.options() if dialog.exec() else None

    @_dialog
    def detection_params(self, current: SpotSigsParams,
                         where: RunWhere | None = None) -> tuple[SpotSigsParams, RunWhere] | None:
        """The settings to run with and where to run (None: cancelled)."""
        dialog = SettingsDialog(current, self.parent, where)
        return (dialog.params(), dialog.where()) if dialog.exec() else None

    @_dialog
    def show_list(self, title: str, intro: str, headers: list[str], rows: list[tuple[str, str]]) -> None:
        ListDialog(title, intro, headers, rows, self.parent).exec()

    @_dialog
    def show_shortcuts(self) -> None:
        shortcuts_dialog(self.parent).exec()

    @_dialog
    def about(self, title: str, text: str) -> None:
        QMessageBox.about(self.parent, title, text)

    @_dialog
    def tag_form(self, title: str, form: TagForm, tags: Sequence[Tag],
                 editing: int | None = None) -> TagForm | None:
        dialog = TagDialog(title, form, tags, editing, self.parent)
        return dialog.form() if dialog.exec() else None

    def reveal(self, path: Path) -> bool:
        """Show ``path``'s folder in the desktop's file manager."""
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(path).parent)))

    @_dialog
    def open_file(self, title: str, start: str, filters: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, title, start, filters)
        return path or None

    @_dialog
    def save_file(self, title: str, start: str, filters: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, title, start, filters)
        return path or None

    @_dialog
    def open_files(self, title: str, start: str, filters: str) -> list[str]:
        paths, _ = QFileDialog.getOpenFileNames(self.parent, title, start, filters)
        return list(paths)

    @_dialog
    def hand_out_options(self, folder: str, selected: int) -> HandOutOptions | None:
        dialog = HandOutDialog(folder, selected, self.parent)
        return dialog.options() if dialog.exec() else None

    @_dialog
    def sample_options(self, clusters: int) -> SampleOptions | None:
        dialog = SampleDialog(clusters, new_seed(), self.parent)
        return dialog.options() if dialog.exec() else None
