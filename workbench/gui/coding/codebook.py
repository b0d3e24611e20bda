"""The codebook panel: tags with colour and key, and their state for the selected clusters."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.sidebyside.pagetext import plain_tip
from workbench.store import ClusterRow, Tag

TagIdRole = Qt.ItemDataRole.UserRole + 1
STATE_TEXT = {"all": "● all", "some": "◐ some", "none": ""}


def swatch(colour: str, size: int = 14) -> QIcon:
    pix = QPixmap(size, size)
    pix.fill(QColor(colour or "#999999"))
    return QIcon(pix)


def selection_state(tag_id: int, rows: Sequence[ClusterRow]) -> str:
    """"all" when every selected cluster has the tag on all pages, "some", else "none"."""
    if not rows:
        return "none"
    states = [next((t.state for t in r.tags if t.tag_id == tag_id), "none") for r in rows]
    if all(s == "all" for s in states):
        return "all"
    return "some" if any(s != "none" for s in states) else "none"


class CodebookPanel(QWidget):
    toggle_requested = Signal(int)  # tag id
    add_requested = Signal()
    rename_requested = Signal(int)
    recolour_requested = Signal(int)
    delete_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setObjectName("codebook")
        self.tree.setHeaderLabels(["Key", "Tag", "Selection"])
        self.tree.setRootIsDecorated(True)  # sub-tags sit under their parent
        self.tree.setColumnWidth(0, 40)
        self.tree.setColumnWidth(1, 150)
        self.tree.setToolTip("Double-click a tag (or press its key) to toggle it on the selected clusters")
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in (("add", "Add…"), ("rename", "Rename…"), ("colour", "Colour…"),
                           ("delete", "Delete")):
            b = QPushButton(text)
            b.setObjectName(f"tag_{name}")
            self.buttons[name] = b
            row.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree, 1)
        layout.addLayout(row)
        self.tree.itemDoubleClicked.connect(
            lambda item, _c: self.toggle_requested.emit(item.data(0, TagIdRole)))
        self.buttons["add"].clicked.connect(self.add_requested)
        self.buttons["rename"].clicked.connect(lambda: self._for_current(self.rename_requested))
        self.buttons["colour"].clicked.connect(lambda: self._for_current(self.recolour_requested))
        self.buttons["delete"].clicked.connect(lambda: self._for_current(self.delete_requested))
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.tags: list[Tag] = []
        self._update_buttons()

    def _for_current(self, signal) -> None:
        tag_id = self.current_tag_id()
        if tag_id is not None:
            signal.emit(tag_id)

    def _update_buttons(self) -> None:
        has = self.tree.currentItem() is not None
        for name in ("rename", "colour", "delete"):
            self.buttons[name].setEnabled(has)

    def current_tag_id(self) -> int | None:
        item = self.tree.currentItem()
        return item.data(0, TagIdRole) if item else None

    def set_tags(self, tags: Sequence[Tag], selected: Sequence[ClusterRow]) -> None:
        current = self.current_tag_id()
        self.tags = list(tags)
        self.tree.clear()
        items: dict[int, QTreeWidgetItem] = {}
        known = {t.id for t in tags}
        # Parents first, so a sub-tag finds its parent's row (one level of hierarchy).
        for tag in sorted(tags, key=lambda t: t.parent_id in known):
            state = selection_state(tag.id, selected)
            item = QTreeWidgetItem([tag.shortcut or "", tag.name, STATE_TEXT[state]])
            item.setIcon(1, swatch(tag.colour))
            item.setData(0, TagIdRole, tag.id)
            item.setData(2, Qt.ItemDataRole.UserRole, state)
            item.setToolTip(1, plain_tip(tag.description or tag.name))
            parent = items.get(tag.parent_id) if tag.parent_id is not None else None
            if parent is not None:
                parent.addChild(item)
            else:
                self.tree.addTopLevelItem(item)
            items[tag.id] = item
        self.tree.expandAll()
        if current in items:
            self.tree.setCurrentItem(items[current])
        self._update_buttons()

    def _items(self) -> list[QTreeWidgetItem]:
        found = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            found.append(top)
            found.extend(top.child(j) for j in range(top.childCount()))
        return found

    def state_of(self, tag_id: int) -> str | None:
        for item in self._items():
            if item.data(0, TagIdRole) == tag_id:
                return item.data(2, Qt.ItemDataRole.UserRole)
        return None
