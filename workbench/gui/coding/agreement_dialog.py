"""Codebook ▸ Agreement…: Krippendorff's α (with its bootstrap interval), Cohen's κ and
percent agreement per tag over the reliability sample, from each coder's own codes, with
Save as CSV and Save as HTML (the report for a methods section). The figures are
:mod:`workbench.usecases.agreement`'s; :mod:`agreement_view` puts them in words."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.coding.agreement_view import HEADERS, heading, methods_text, save_report, table_rows
from workbench.gui.host import ProjectWindow
from workbench.store import ProjectError
from workbench.usecases.agreement import ProjectAgreement, project_agreement


class AgreementDialog(QDialog):
    def __init__(self, window: ProjectWindow, found: ProjectAgreement,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent or window.window())
        self.setObjectName("agreementDialog")
        self.setWindowTitle("Agreement")
        self.window_ = window
        self.found = found
        head = QLabel(heading(found))
        head.setWordWrap(True)
        rows = table_rows(found)
        self.table = QTableWidget(len(rows), len(HEADERS))
        self.table.setObjectName("agreementTable")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)  # a note cut by a narrow window is whole here
                if 0 < c < len(HEADERS) - 1:  # figures line up on the right
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(
            len(HEADERS) - 1, QHeaderView.ResizeMode.Stretch)
        methods = QLabel(methods_text(found))
        methods.setObjectName("agreementMethods")
        methods.setWordWrap(True)
        methods.setTextInteractionFlags(methods.textInteractionFlags()
                                        | methods.textInteractionFlags().TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.csv_button = QPushButton("Save as &CSV…")
        self.html_button = QPushButton("Save as &HTML…")
        for button in (self.csv_button, self.html_button):
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
        self.csv_button.clicked.connect(lambda: self.save(html=False))
        self.html_button.clicked.connect(lambda: self.save(html=True))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(self.table, 1)
        layout.addWidget(methods)
        layout.addWidget(buttons)
        self.resize(980, 420)

    def save(self, *, html: bool) -> Path | None:
        project = self.window_.project
        if project is None:
            return None
        suffix, filters = (".html", "HTML report (*.html)") if html else (".csv", "CSV (*.csv)")
        start = project.path.with_name(f"{project.path.stem}-agreement{suffix}")
        target = self.window_.prompter.save_file("Save the agreement table", str(start), filters)
        if not target:
            return None
        try:
            path = save_report(project, self.found, Path(target), html)
        except ProjectError as exc:
            self.window_.prompter.error("Cannot save the agreement table", str(exc))
            return None
        self.window_.statusBar().showMessage(f"Saved the agreement table as {path}", 8000)
        return path


def show_agreement(window: ProjectWindow) -> AgreementDialog | None:
    """Codebook ▸ Agreement…: the table over the newest reliability sample, or a dialog
    that says what is missing (no sample, fewer than two coders brought in)."""
    project = window.project
    if project is None:
        return None
    try:
        found = project_agreement(project)
    except ProjectError as exc:
        window.prompter.error("Cannot compute agreement", str(exc))
        return None
    dialog = AgreementDialog(window, found)
    dialog.setModal(False)
    dialog.show()
    dialog.table.setFocus()
    return dialog
