"""The New Tag / Edit Tag dialog: every field reachable and changeable by keyboard."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QColorDialog,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from workbench.gui.coding.codebook import swatch
from workbench.gui.coding.tagform import PALETTE, TagForm, free_keys, parent_choices, problem
from workbench.store import Tag

OTHER_COLOUR = "Other colour…"


class TagDialog(QDialog):
    def __init__(self, title: str, form: TagForm, tags: Sequence[Tag], editing: int | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._tags, self._editing = list(tags), editing
        self.name = QLineEdit(form.name)
        self.name.setPlaceholderText("e.g. labour dispute")
        self.key = QComboBox()
        self.key.addItem("none", None)
        for k in free_keys(tags, editing):
            self.key.addItem(k, k)
        self.key.setCurrentIndex(max(0, self.key.findData(form.key)))
        self.colour = QComboBox()
        colours = list(PALETTE) + ([form.colour] if form.colour and form.colour not in PALETTE else [])
        for c in colours:
            self.colour.addItem(swatch(c), c, c)
        self.colour.addItem(OTHER_COLOUR, None)
        self.colour.setCurrentIndex(max(0, self.colour.findData(form.colour)))
        self.colour.activated.connect(self._maybe_other_colour)
        self.parent_box = QComboBox()
        self.parent_box.addItem("none (a top-level tag)", None)
        for t in parent_choices(tags, editing):
            self.parent_box.addItem(swatch(t.colour), t.name, t.id)
        self.parent_box.setCurrentIndex(max(0, self.parent_box.findData(form.parent_id)))
        self.description = QPlainTextEdit(form.description)
        self.description.setTabChangesFocus(True)  # Tab leaves the field, as in a form
        self.description.setFixedHeight(80)
        self.problem = QLabel()
        self.problem.setObjectName("tagProblem")
        self.problem.setWordWrap(True)
        layout = QFormLayout(self)
        layout.addRow("&Name:", self.name)
        layout.addRow("&Key:", self.key)
        layout.addRow("&Colour:", self.colour)
        layout.addRow("&Parent:", self.parent_box)
        layout.addRow("&Description:", self.description)
        layout.addRow(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout.addRow(buttons)
        self.name.setFocus()

    def _maybe_other_colour(self, index: int) -> None:
        if self.colour.itemData(index) is not None:
            return
        chosen = QColorDialog.getColor(QColor(PALETTE[0]), self, "Tag colour")
        if chosen.isValid():
            name = chosen.name()
            self.colour.insertItem(index, swatch(name), name, name)
            self.colour.setCurrentIndex(index)
        else:
            self.colour.setCurrentIndex(0)

    def form(self) -> TagForm:
        return TagForm(self.name.text().strip(), self.key.currentData(),
                       self.colour.currentData() or PALETTE[0],
                       self.description.toPlainText().strip(), self.parent_box.currentData())

    def _accept(self) -> None:
        wrong = problem(self.form(), self._tags, self._editing)
        if wrong:
            self.problem.setText(wrong)
            self.name.setFocus()
            return
        self.accept()
