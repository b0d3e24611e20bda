"""Where the keyboard is in the window: the panes Tab walks, Escape, Ctrl+B and Ctrl+M,
and the status bar's word for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from workbench.gui.keys.keyboard import Pane, is_typing, pane_after, pane_of

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QTableView

    from workbench.gui.coding.codebook import CodebookPanel
    from workbench.gui.coding.memopane import MemoPane
    from workbench.gui.filterbar import FilterBar
    from workbench.gui.models import ClusterTableModel
    from workbench.gui.related.pane import RelatedPane
    from workbench.gui.sidebyside.view import CompareView
    from workbench.store import Project


class KeyboardFocus:
    """MainWindow's keyboard: pane to pane by Tab, back to the cluster list after dialogs."""

    # The window's, built in MainWindow._build_widgets.
    project: Project | None
    model: ClusterTableModel
    table: QTableView
    filters: FilterBar
    codebook: CodebookPanel
    memo_pane: MemoPane
    compare: CompareView
    related_pane: RelatedPane
    keyboard_label: QLabel

    def focus_list(self) -> None:
        """Escape, and after every dialog: the keyboard goes back to the cluster list."""
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if not self.table.currentIndex().isValid() and self.model.rowCount():
            self.select_row(0)

    def focus_memo(self) -> None:
        """Ctrl+M: the memo on the cluster; pressed there, the memo on the page."""
        pane = self.memo_pane
        target = pane.page if pane.cluster.hasFocus() and pane.page.isEnabled() else pane.cluster
        if not target.isEnabled():
            self.statusBar().showMessage(  # its Ctrl+M reads ⇧⌘M on macOS (KeyNamingStatusBar)
                "Ctrl+M: no memo to write here — choose a cluster first." if self.project
                is not None else "Ctrl+M: open a project first.", 5000)
            return
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_codebook(self) -> None:
        tree = self.codebook.tree
        tree.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if tree.currentItem() is None and tree.topLevelItemCount():
            tree.setCurrentItem(tree.topLevelItem(0))

    def _keyboard_to_list(self) -> None:
        """After a run or an opening: the keyboard goes to the list, where Down acts, unless
        the coder is typing (a filter or memo with text in it)."""
        widget = QApplication.focusWidget()
        typed = is_typing(widget) and bool(getattr(widget, "text", lambda: "")()
                                           or getattr(widget, "toPlainText", lambda: "")())
        if not typed:
            self.focus_list()

    def panes(self) -> list[Pane]:
        """The panes Tab moves between, in order, each with the widget that takes the keys."""
        memo, compare = self.memo_pane, self.compare
        return [Pane("filter box", self.filters.text, self.filters),
                Pane("cluster list", self.table, self.table),
                Pane("codebook", self.codebook.tree, self.codebook),
                Pane("memo on the cluster", memo.cluster, memo.cluster),
                Pane("memo on the page", memo.page, memo),
                Pane("members", compare.members, compare.members),
                Pane("why these match", compare.why, compare.why),
                Pane("related", self.related_pane.list, self.related_pane),
                Pane("reference page", compare.left.text, compare.left),
                Pane("member page", compare.right.text, compare.right),
                Pane("side by side", compare.members, compare)]

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt API
        """Tab and Shift+Tab move from pane to pane (not through every button and box)."""
        panes = self.panes()
        target = pane_after(panes, QApplication.focusWidget(), forward=next,
                            usable=lambda w: w.isEnabled() and w.isVisibleTo(self))
        if target is None:
            return super().focusNextPrevChild(next)
        target.setFocus(Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason)
        return True

    def _focus_moved(self, _old, now) -> None:
        if now is None or now.window() is not self:
            return
        pane = pane_of(self.panes(), now)
        where = pane.name if pane is not None else "window"
        self.keyboard_label.setText(f"Keys: {where}" + (" (typing)" if is_typing(now) else ""))
