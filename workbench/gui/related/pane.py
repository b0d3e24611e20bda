"""The related pane: a cluster's related rewrites, below the members (thin: the rows and
what the keys do are workbench.gui.related.presenter's)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.related.presenter import RelatedRow, title_text
from workbench.gui.sidebyside.pagetext import plain_tip

RowRole = Qt.ItemDataRole.UserRole + 1
# Room for the similarity and the share of the reference: a row cut after them still
# says how close it is and how much was copied (its whole line is in its tooltip).
MIN_LINE = "0.34  carries 43 % of the reference"


class _ListWide(QStyledItemDelegate):
    """Rows as wide as the list, not as their text: a list view lays a row out as wide as
    its text (so it is cut at the right edge, never elided); asking for no width makes
    it the list's, and the view's elide mode then applies."""

    def sizeHint(self, option: QStyleOptionViewItem,  # noqa: N802 - Qt API
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(0, super().sizeHint(option, index).height())


class RelatedPane(QWidget):
    """A titled list of related clusters; choosing one asks for it side by side."""

    chosen = Signal(object)  # the RelatedRow to show against the reference

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(f"<b>{title_text([])}</b>")
        self.list = QListWidget()
        self.list.setObjectName("relatedList")
        # Two lines a row (similarity and share; page, site and cluster), each cut in the
        # middle, not at the end, so both of its ends stay; the whole is in the tooltip.
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setItemDelegate(_ListWide(self.list))
        self.list.setMinimumWidth(self.list.fontMetrics().horizontalAdvance(MIN_LINE) + 24)
        self.list.setToolTip("Pages of other clusters this one resembles below τ: never merged "
                             "without you. M merges one, Shift+M its page alone, D dismisses it.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.list, 1)
        self.rows: list[RelatedRow] = []
        self.list.currentRowChanged.connect(self._row_changed)
        self.list.itemActivated.connect(lambda _item: self._row_changed(self.list.currentRow()))

    def show_rows(self, rows: list[RelatedRow]) -> None:
        """List ``rows``; none is chosen until the coder moves into the list."""
        self.rows = list(rows)
        with QSignalBlocker(self.list):
            self.list.clear()
            for row in self.rows:
                item = QListWidgetItem("\n".join(row.lines()))
                item.setToolTip(plain_tip(row.tip()))
                self.list.addItem(item)
            self.list.setCurrentRow(-1)
        self.title.setText(f"<b>{title_text(self.rows)}</b>")

    def show_waiting(self, message: str) -> None:
        """No rows yet: ``message`` says why (the run's pairs are being read)."""
        self.show_rows([])
        if message:
            self.title.setText(f"<b>{title_text([])}</b> — {message}")

    def update_row(self, row: RelatedRow) -> None:
        """The same related row, knowing more (its passages): its line and tip again."""
        index = next((k for k, r in enumerate(self.rows) if r == row), None)
        if index is None:
            return
        self.rows[index] = row
        item = self.list.item(index)
        item.setText("\n".join(row.lines()))
        item.setToolTip(plain_tip(row.tip()))

    def current(self) -> RelatedRow | None:
        row = self.list.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def has_keyboard(self) -> bool:
        return self.list.hasFocus()

    def take_keyboard(self) -> None:
        """Ctrl+R: the keyboard into the list, on its first row when none is chosen."""
        self.list.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if self.current() is None and self.rows:
            self.list.setCurrentRow(0)

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self.chosen.emit(self.rows[row])
