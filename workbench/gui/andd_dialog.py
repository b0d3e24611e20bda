"""Shows what re-running with learned ANDD weights would change; the coder applies or not.

A thin view of :class:`workbench.core.andd_preview.Changes`: the counts, the merges and
the splits (each with its pages' keys and titles, folded), and Apply / Cancel. ``exec()``
returns Accepted for Apply; ``applied`` is emitted too, for a caller that shows the dialog
without waiting (``open()``).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.andd_preview import Changes, ClusterChange


class AnddDialog(QDialog):
    """Apply (accept) or Cancel (reject) a clustering with learned ANDD weights."""

    applied = Signal()

    def __init__(self, changes: Changes, parent: QWidget | None = None, *,
                 trained_on: str = "") -> None:
        """``trained_on``: one line on what was learned from (``Labelled.describe()``)."""
        super().__init__(parent)
        self.setWindowTitle("Re-run with learned weights (ANDD)")
        self.changes = changes
        self.summary = QLabel(changes.summary())
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        if trained_on:
            intro = QLabel(f"Weights learned from {trained_on}.")
            intro.setWordWrap(True)
            layout.addWidget(intro)
        layout.addWidget(self.summary)
        self.merges = self._list(changes.merges, "Would merge")
        self.splits = self._list(changes.splits, "Would split")
        for title, tree in (("Clusters that would merge", self.merges),
                            ("Clusters that would split", self.splits)):
            if tree.topLevelItemCount():
                layout.addWidget(QLabel(f"<b>{title}</b> ({tree.topLevelItemCount()})"))
                layout.addWidget(tree)
        buttons = QDialogButtonBox()
        self.apply_button = QPushButton("&Apply")
        self.apply_button.setToolTip("Make this clustering the project's current run: your "
                                     "tags, marks, memos and hand-made clusters go with their "
                                     "pages, and Ctrl+Z takes it back.")
        self.apply_button.setEnabled(not changes.empty)
        buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        (self.apply_button if not changes.empty else self.cancel_button).setFocus()
        self.resize(760, 520)

    @staticmethod
    def _list(items: tuple[ClusterChange, ...], what: str) -> QTreeWidget:
        tree = QTreeWidget()
        tree.setHeaderLabels(["Page", "Title"])
        tree.setAccessibleName(what)
        for change in items:
            top = QTreeWidgetItem([change.headline(), ""])
            tree.addTopLevelItem(top)
            top.setFirstColumnSpanned(True)  # takes effect once the item is in the tree
            for number, part in enumerate(change.parts, start=1):
                node = QTreeWidgetItem(top, [_part_label(change.kind, number, len(part)), ""])
                for page in part:
                    QTreeWidgetItem(node, [page.key, page.title])
        tree.setColumnWidth(0, 320)
        return tree

    def _apply(self) -> None:
        self.applied.emit()
        self.accept()

    def choose(self) -> bool:
        """Show the dialog modally; True when the coder chose Apply."""
        return self.exec() == QDialog.DialogCode.Accepted


def _part_label(kind: str, number: int, size: int) -> str:
    pages = "1 page" if size == 1 else f"{size} pages"
    if kind == "split":
        return f"Part {number}: {pages}"
    return f"From a cluster of {pages}" if size > 1 else "A page on its own"
