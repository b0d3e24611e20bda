"""Every question the window asks the coder, in one replaceable object.

Tests pass a subclass with canned answers, so no modal dialog ever blocks them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QColorDialog, QFileDialog, QInputDialog, QMessageBox, QWidget

from workbench.detect.params import SpotSigsParams
from workbench.gui.dialogs import ExportDialog, ExportOptions, ListDialog, SettingsDialog, shortcuts_dialog
from workbench.gui.locations import PROJECT_SUFFIX


class Prompter:
    def __init__(self, parent: QWidget | None = None) -> None:
        self.parent = parent

    def text(self, title: str, label: str, default: str = "") -> str | None:
        value, ok = QInputDialog.getText(self.parent, title, label, text=default)
        return value if ok else None

    def confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self.parent, title, text)
        return answer == QMessageBox.StandardButton.Yes

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

    def colour(self, initial: str) -> str | None:
        chosen = QColorDialog.getColor(QColor(initial or "#888888"), self.parent, "Tag colour")
        return chosen.name() if chosen.isValid() else None

    def folder(self, title: str, start: str = "") -> str | None:
        path = QFileDialog.getExistingDirectory(self.parent, title, start)
        return path or None

    def open_project(self, start: str = "") -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, "Open Project", start,
                                              f"Workbench projects (*{PROJECT_SUFFIX});;All files (*)")
        return path or None

    def save_project(self, start: str = "") -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save Project As", start,
                                              f"Workbench projects (*{PROJECT_SUFFIX})")
        return path or None

    def info(self, title: str, text: str) -> None:
        QMessageBox.information(self.parent, title, text)

    def error(self, title: str, text: str, details: str = "") -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self.parent)
        if details:
            box.setDetailedText(details)
        box.exec()

    def export_options(self, default_path: Path) -> ExportOptions | None:
        dialog = ExportDialog(default_path, self.parent)
        return dialog.options() if dialog.exec() else None

    def detection_params(self, current: SpotSigsParams) -> SpotSigsParams | None:
        dialog = SettingsDialog(current, self.parent)
        return dialog.params() if dialog.exec() else None

    def show_list(self, title: str, intro: str, headers: list[str], rows: list[tuple[str, str]]) -> None:
        ListDialog(title, intro, headers, rows, self.parent).exec()

    def show_shortcuts(self) -> None:
        shortcuts_dialog(self.parent).exec()

    def about(self, title: str, text: str) -> None:
        QMessageBox.about(self.parent, title, text)
