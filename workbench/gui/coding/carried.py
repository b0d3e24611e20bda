"""The list of what a re-clustering carried over and the coder should look at again.

Shown after every re-clustering (Calibrate ▸ Apply, Run Again, Use This Method, learned
weights) when :meth:`Project.carried_to_review` is not empty: memos on clusters whose
pages now lie elsewhere, "not this story" marks that could not be carried. The list is
the store's (:mod:`workbench.store.coding.carry`); this dialog only draws it. Double-clicking
an item shows its cluster in the window; "Mark Reviewed" takes the chosen items (all
when none is chosen) off the list as one undoable action; "Later" keeps them for
Detection ▸ Review Carried Decisions….
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.host import ProjectWindow
from workbench.gui.keys.keynames import key_label
from workbench.store import ProjectError
from workbench.store.coding.carry import CarriedItem

ACTION_NAME = "review_carried"


def item_text(item: CarriedItem) -> str:
    """One line of the list: the note, and a memo's text (shortened)."""
    if item.kind != "memo" or not item.memo_text:
        return item.note
    text = " ".join(item.memo_text.split())
    return f"{item.note} Memo: “{text[:120]}{'…' if len(text) > 120 else ''}”"


@runtime_checkable
class CarriedWindow(ProjectWindow, Protocol):
    """What the list of carried decisions uses of the window: the list it keeps open,
    a cluster to show, and a refresh once items are marked reviewed."""

    carried_dialog: CarriedDialog | None

    def select_cluster(self, cluster_id: int) -> bool: ...

    def refresh(self, select_ids: list[int] | None = None,
                member_page: int | None = None) -> None: ...


class CarriedDialog(QDialog):
    """The carried items to review, with Mark Reviewed and Later."""

    def __init__(self, window: CarriedWindow, items: list[CarriedItem],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent or window.window())
        self.setObjectName("carriedDialog")
        self.setWindowTitle("Carried to the new clusters: please review")
        self.window_ = window
        layout = QVBoxLayout(self)
        self.intro = QLabel(
            "Your tags, marks, memos and hand-made clusters went with their pages to the new "
            "clusters. These did not map one to one: a memo is now on each cluster that holds "
            "its pages. Double-click one to see its cluster.")
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.list = QListWidget()
        self.list.setObjectName("carriedList")
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        self.list.setWordWrap(True)
        for item in items:
            row = QListWidgetItem(item_text(item))
            row.setData(Qt.ItemDataRole.UserRole, item)
            self.list.addItem(row)
        self.list.itemActivated.connect(self._show)
        layout.addWidget(self.list)
        buttons = QDialogButtonBox()
        self.reviewed_button = QPushButton("&Mark Reviewed")
        self.reviewed_button.setToolTip(key_label("Take the chosen items (all, when none is "
                                                  "chosen) off this list; Ctrl+Z puts them back"))
        self.later_button = QPushButton("&Later")
        buttons.addButton(self.reviewed_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.later_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.reviewed_button.clicked.connect(self._mark_reviewed)
        self.later_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(640, 360)

    def items(self) -> list[CarriedItem]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def _chosen(self) -> list[CarriedItem]:
        chosen = [row.data(Qt.ItemDataRole.UserRole) for row in self.list.selectedItems()]
        return chosen or self.items()

    def _show(self, row: QListWidgetItem) -> None:
        item: CarriedItem = row.data(Qt.ItemDataRole.UserRole)
        if item.cluster_id is not None:
            self.window_.select_cluster(item.cluster_id)

    def _mark_reviewed(self) -> None:
        project = self.window_.project
        if project is None:
            self.reject()
            return
        chosen = self._chosen()
        try:
            project.mark_carried_reviewed([i.id for i in chosen])
        except ProjectError as exc:
            self.window_.prompter.error("Cannot mark as reviewed", str(exc))
            return
        for row in [self.list.item(i) for i in range(self.list.count())]:
            if row.data(Qt.ItemDataRole.UserRole) in chosen:
                self.list.takeItem(self.list.row(row))
        self.window_.refresh()
        if self.list.count() == 0:
            self.accept()


def show_carried(window: CarriedWindow) -> CarriedDialog | None:
    """After a re-clustering: open the list of carried items to review, when there are
    any (None: nothing to review). Not modal, so the coder can look at the clusters."""
    project = window.project
    if project is None:
        return None
    try:
        items = project.carried_to_review()
    except ProjectError as exc:
        window.prompter.error("Cannot list what was carried", str(exc))
        return None
    old = getattr(window, "carried_dialog", None)
    if old is not None:
        old.close()
    if not items:
        window.carried_dialog = None
        return None
    dialog = window.carried_dialog = CarriedDialog(window, items)
    dialog.finished.connect(lambda _r: _forget(window, dialog))
    dialog.show()
    return dialog


def _forget(window: CarriedWindow, dialog: CarriedDialog) -> None:
    if getattr(window, "carried_dialog", None) is dialog:
        window.carried_dialog = None
    dialog.deleteLater()


def review_carried(window: CarriedWindow) -> CarriedDialog | None:
    """Detection ▸ Review Carried Decisions…: the list again, or word that it is empty."""
    dialog = show_carried(window)
    if dialog is None and window.project is not None:
        window.prompter.info("Review carried decisions",
                             "Nothing carried over by a re-clustering is waiting for review.")
    return dialog


def carried_message(window: ProjectWindow) -> str:
    """The status line's ending after a re-clustering: what was carried over."""
    project = window.project
    report = getattr(project, "last_carry", None) if project is not None else None
    waiting = len(project.carried_to_review()) if project is not None else 0
    parts = ["tags stayed on their pages"]
    if report is not None:
        if report.memos:
            parts.append(f"{report.memos} memo(s)")
        if report.exceptions:
            parts.append(f"{report.exceptions} “not this story” mark(s)")
        if report.hand_clusters:
            parts.append(f"{report.hand_clusters} hand-made cluster(s)")
    said = parts[0] + ("; " + ", ".join(parts[1:]) + " carried over" if len(parts) > 1 else "")
    return said + (f"; {waiting} to review" if waiting else "") + " (Ctrl+Z takes it all back)"
