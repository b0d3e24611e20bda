"""Shows what re-running with learned ANDD weights would change; the coder applies or not.

A thin view of :class:`workbench.core.clusters.andd_preview.Changes`: the counts, the merges and
the splits (each with its pages' keys and titles, folded; a merge with the pairs of pages
that link its parts, :mod:`workbench.core.clusters.merge_links`), the learned weights (the whole
model: one number per feature, :meth:`AnddWeights.explained`), and Apply / Cancel. ``exec()``
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

from workbench.core.clusters.andd_preview import Changes, ClusterChange
from workbench.core.clusters.merge_links import merge_links
from workbench.detect.andd.model import AnddWeights
from workbench.detect.join.matcher import PairResult
from workbench.gui.keys.keynames import key_label

# The strongest links shown under each merge (the count says how many there are).
SHOWN_LINKS = 3


class AnddDialog(QDialog):
    """Apply (accept) or Cancel (reject) a clustering with learned ANDD weights."""

    applied = Signal()

    def __init__(self, changes: Changes, parent: QWidget | None = None, *,
                 trained_on: str = "", weights: AnddWeights | None = None,
                 pairs: PairResult | None = None, threshold: float | None = None) -> None:
        """``trained_on``: one line on what was learned from (``Labelled.describe()``);
        ``weights``: the learned model, shown; ``pairs`` and ``threshold``: the re-run's
        pairs and the cosine it linked pages at, to say why each merge would be made."""
        super().__init__(parent)
        self._pairs, self._threshold = pairs, threshold
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
        self.weights = self._weights(weights, threshold)
        if self.weights.topLevelItemCount():
            layout.addWidget(QLabel("<b>Learned weights</b>: a k-gram's weight in a page is the "
                                    "sum of each weight times that feature of it (below zero: "
                                    "left out); these numbers are the whole model."))
            layout.addWidget(self.weights)
        self.merges = self._list(changes.merges, "Would merge")
        self.splits = self._list(changes.splits, "Would split")
        for title, tree in (("Clusters that would merge", self.merges),
                            ("Clusters that would split", self.splits)):
            if tree.topLevelItemCount():
                layout.addWidget(QLabel(f"<b>{title}</b> ({tree.topLevelItemCount()})"))
                layout.addWidget(tree)
        buttons = QDialogButtonBox()
        self.apply_button = QPushButton("&Apply")
        self.apply_button.setToolTip(key_label(
            "Make this clustering the project's current run: your tags, marks, memos and "
            "hand-made clusters go with their pages, and Ctrl+Z takes it back."))
        self.apply_button.setEnabled(not changes.empty)
        buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        (self.apply_button if not changes.empty else self.cancel_button).setFocus()
        self.resize(760, 520)

    @staticmethod
    def _weights(weights: AnddWeights | None, threshold: float | None) -> QTreeWidget:
        tree = QTreeWidget()
        tree.setObjectName("anddWeights")
        tree.setAccessibleName("Learned weights")
        tree.setRootIsDecorated(False)
        tree.setHeaderLabels(["Feature", "Weight", "Counts more when positive"])
        for name, value, meaning in (weights.explained() if weights is not None else ()):
            item = QTreeWidgetItem([name, f"{value:+.3f}", meaning])
            item.setToolTip(2, meaning)
            tree.addTopLevelItem(item)
        if weights is not None and threshold is not None:
            tree.setToolTip(f"Pages whose weighted cosine is at least {threshold:.2f} are linked "
                            f"(k = {weights.k} word{'s' if weights.k > 1 else ''} per k-gram).")
        tree.setColumnWidth(0, 110)
        tree.setColumnWidth(1, 80)
        tree.setMaximumHeight(200)
        return tree

    def _why(self, top: QTreeWidgetItem, change: ClusterChange) -> None:
        """Under a merge: the strongest pairs of pages that link its parts."""
        if self._pairs is None or self._threshold is None:
            return
        links, total = merge_links(change, self._pairs.a, self._pairs.b, self._pairs.similarity,
                                   self._threshold, SHOWN_LINKS)
        if not links:
            return
        shown = f", the {len(links)} strongest shown" if total > len(links) else ""
        node = QTreeWidgetItem(top, [f"Why: {total} pair{'s' if total != 1 else ''} of pages "
                                     f"across its parts at cosine ≥ {self._threshold:.2f}{shown}",
                                     ""])
        for link in links:
            child = QTreeWidgetItem(node, [f"{link.first.key} ↔ {link.second.key}",
                                           f"cosine {link.similarity:.2f}"])
            child.setToolTip(0, f"{link.first.title or link.first.key}\n↔ "
                                f"{link.second.title or link.second.key}")

    def _list(self, items: tuple[ClusterChange, ...], what: str) -> QTreeWidget:
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
            if change.kind == "merge":
                self._why(top, change)
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
