"""The related pane's keys: M merges a related cluster into the cluster shown (Shift+M its
page alone), D dismisses it, Ctrl+R puts the keyboard in the list; choosing a row shows its
page against the reference. The logic is workbench.gui.related.presenter's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from workbench.gui.host import CodingWindow
from workbench.gui.related.presenter import (
    READING,
    RelatedRow,
    dismiss_related,
    dismissed_message,
    merge_related,
    merged_message,
    nothing_message,
    related_rows,
)
from workbench.gui.related.reader import RelatedReader

if TYPE_CHECKING:
    from workbench.gui.coding.coding_actions import CodingActions
    from workbench.gui.related.pane import RelatedPane
    from workbench.gui.sidebyside.view import CompareView


class RelatedWindow(CodingWindow, Protocol):
    compare: CompareView
    related_pane: RelatedPane
    coding: CodingActions


class RelatedActions:
    def __init__(self, window: RelatedWindow) -> None:
        self.window = window
        self.reader = RelatedReader(window.window(), self._pairs_read, self._read_failed)
        self._reading_from: object = None  # the project whose pairs are being read

    def show_for(self, cluster_id: int | None) -> None:
        """The related rows of the cluster just shown (none: no cluster). The first
        cluster of a run waits for the run's related pairs, read on a worker."""
        project = self.window.project
        rows: list[RelatedRow] = []
        if project is not None and cluster_id is not None:
            ready = self.window.attempt("Cannot list related pages",
                                        lambda: project.related_read(cluster_id))
            if not ready:
                self.window.related_pane.show_waiting(READING if ready is False else "")
                if ready is False:  # (None: it could not tell, and said why)
                    self._reading_from = project
                    self.reader.start(project, cluster_id)  # lists the rows once read
                return
            rows = self.window.attempt("Cannot list related pages",
                                       lambda: related_rows(project, cluster_id)) or []
        self.window.related_pane.show_rows(rows)

    def _pairs_read(self) -> None:
        """The run's related pairs are kept: list the cluster shown now."""
        if self.window.project is not None and self.window.project is self._reading_from:
            self.show_for(self.window.compare.cluster_id)
            figures = getattr(self.window, "figures", None)
            if figures is not None:  # the timeline draws the rewrites it could not before
                figures.follow()

    def _read_failed(self, message: str) -> None:
        if self.window.project is not None and self.window.project is self._reading_from:
            self.window.related_pane.show_waiting("")
            self.window.prompter.error("Cannot list related pages", message)

    def open(self, row: RelatedRow) -> None:
        """A related row chosen: its page side by side against the cluster's reference."""
        self.window.compare.show_other(
            row.page_id, f"similarity {row.item.similarity:.2f}: below τ, in "
                         + ("no cluster" if row.size == 1 else f"cluster {row.cluster_id}"))
        marks = self.window.compare.shown_marks
        if marks is not None and self.window.compare.other_page == row.page_id:
            # The row keeps what the view aligned: its line says how much it carries.
            self.window.related_pane.update_row(row.with_passages(marks.alignment))

    def merge_key(self, *, page_only: bool = False) -> None:
        """M: in the related list, merge its chosen cluster into the one shown; elsewhere
        the selected clusters as ever. Shift+M: the chosen related page alone."""
        pane = self.window.related_pane
        if not page_only and not pane.has_keyboard():
            self.window.coding.merge_selected()
            return
        key = "Shift+M" if page_only else "M"
        cid, row = self._target(key)
        if cid is None or row is None:
            return
        done = self.window.attempt("Cannot merge", lambda: merge_related(
            self.window.project, cid, row, page_only=page_only) is not None)
        if done:
            self._after(cid, merged_message(cid, row, page_only))

    def dismiss_key(self) -> None:
        """D: the chosen related cluster is not this story (kept in the project)."""
        cid, row = self._target("D")
        if cid is None or row is None:
            return
        if self.window.attempt("Cannot dismiss", lambda: dismiss_related(
                self.window.project, cid, row) is not None or True):
            self._after(cid, dismissed_message(cid, row))

    def _target(self, key: str) -> tuple[int | None, RelatedRow | None]:
        if not self.window.may_code():
            return None, None
        pane = self.window.related_pane
        cid, row = self.window.compare.cluster_id, pane.current()
        said = nothing_message(key, cid, row, pane.has_keyboard())
        if said is not None:
            self.window.statusBar().showMessage(said, 6000)
            return None, None
        return cid, row

    def _after(self, cluster_id: int, message: str) -> None:
        self.window.refresh(select_ids=[cluster_id])
        self.window.related_pane.take_keyboard()  # on to the next related row
        self.window.statusBar().showMessage(message, 8000)
