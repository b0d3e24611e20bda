"""The hand-out dialog: coder names, output folder, optionally only the selected clusters."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.project.team_text import parse_coders


@dataclass(frozen=True, slots=True)
class HandOutOptions:
    coders: list[str]
    folder: Path
    only_selected: bool  # only the clusters selected in the list (else every cluster)


class HandOutDialog(QDialog):
    """File ▸ Hand Out to Coders…: OK stays off until a name and a folder are given."""

    def __init__(self, folder: str, selected: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("handOutDialog")
        self.setWindowTitle("Hand Out to Coders")
        intro = QLabel("Writes one project file per coder into the folder: the same run, "
                       "pages, clusters and codebook. Each coder codes their copy; bring it "
                       "back with File ▸ Bring In Coders' Work…. Reliability samples are "
                       "coded blind.")
        intro.setWordWrap(True)
        self.coders = QLineEdit()
        self.coders.setObjectName("handOutCoders")
        self.coders.setPlaceholderText("Names, separated by commas")
        self.folder = QLineEdit(folder)
        self.folder.setObjectName("handOutFolder")
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        self.only_selected = QCheckBox(f"Only the {selected} selected cluster(s)")
        self.only_selected.setObjectName("handOutOnlySelected")
        self.only_selected.setEnabled(selected > 0)
        form = QFormLayout()
        form.addRow("&Coders:", self.coders)
        form.addRow("&Folder:", row)
        form.addRow("", self.only_selected)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Hand Out")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        for edit in (self.coders, self.folder):
            edit.textChanged.connect(self._check)
        self._check()
        self.resize(560, 220)

    def _check(self) -> None:
        ok = bool(parse_coders(self.coders.text())) and bool(self.folder.text().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Hand out into", self.folder.text())
        if path:
            self.folder.setText(path)

    def options(self) -> HandOutOptions:
        return HandOutOptions(parse_coders(self.coders.text()), Path(self.folder.text().strip()),
                              self.only_selected.isChecked())
