"""The cluster list's selection: which clusters are chosen, and the side by side following it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel

from workbench.gui.coding.navigation import cluster_to_show, edge_row
from workbench.store import ClusterRow

if TYPE_CHECKING:
    from PySide6.QtWidgets import QTableView

    from workbench.gui.filterbar import FilterBar
    from workbench.gui.models import ClusterTableModel
    from workbench.gui.sidebyside.view import CompareView
    from workbench.store import Project


class ClusterSelection:
    """MainWindow's selection in the cluster list (what is shown is asked of
    :mod:`workbench.gui.coding.navigation`)."""

    # The window's, built in MainWindow._build_widgets.
    project: Project | None
    model: ClusterTableModel
    table: QTableView
    filters: FilterBar
    compare: CompareView

    def selected_rows(self) -> list[ClusterRow]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.row_of(r) for r in rows if r < self.model.rowCount()]

    def selected_ids(self) -> list[int]:
        return [r.id for r in self.selected_rows()]

    def select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    def select_cluster(self, cluster_id: int) -> bool:
        row = self.model.find_row(cluster_id)
        if row >= 0:
            self.select_row(row)
        return row >= 0

    def _reselect(self, cluster_ids: list[int]) -> None:
        sel = self.table.selectionModel()
        with_signals_blocked = sel.blockSignals(True)
        sel.clearSelection()
        first = None
        for cid in cluster_ids:
            row = self.model.find_row(cid)
            if row < 0:
                continue
            first = row if first is None else first
            sel.select(self.model.index(row, 0), QItemSelectionModel.SelectionFlag.Select
                       | QItemSelectionModel.SelectionFlag.Rows)
        if first is not None:
            sel.setCurrentIndex(self.model.index(first, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
            self.table.scrollTo(self.model.index(first, 0))
        sel.blockSignals(with_signals_blocked)
        self.table.viewport().update()

    def _selection_changed(self, *_args) -> None:
        rows = self.selected_rows()
        if self.project is not None and rows:
            current = self.table.currentIndex()
            here = self.model.row_of(current.row()).id \
                if current.isValid() and current.row() < self.model.rowCount() else None
            cid = cluster_to_show([r.id for r in rows], here)
            if cid != self.compare.cluster_id:
                self.compare.show_cluster(self.project, cid)
        elif not rows:
            self.compare.clear()
        self.refresh_codebook()
        self._show_memos()

    def select_edge(self, *, last: bool) -> None:
        """Ctrl+Home / Ctrl+End: the first or last cluster of the whole list."""
        row = edge_row(self.model, last=last)
        if row is not None:
            self.select_row(row)
            self.table.setFocus()

    def _apply_filters(self) -> None:
        """Filter the list, keeping the selected clusters still listed; when none is, the
        first row is selected (a current row left hidden made Down skip it, and a list
        filtered to one row could not be given a selection by key at all)."""
        keep = self.selected_ids()
        self.model.set_filters(**self.filters.values())
        self._reselect(keep)
        if not self.selected_rows() and self.model.rowCount():
            self.select_row(0)  # its selectionChanged shows it
        else:
            self._selection_changed()

    def _shown_member_id(self) -> int | None:
        m = self.compare.current_member()
        return m.page_id if m else None
