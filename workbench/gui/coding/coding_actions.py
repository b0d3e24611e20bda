"""The coding keys: tag, tag a page alone, not this story, split, merge, undo, redo, next.

What each key does to the project and what the status bar says afterwards; the main
window only routes menu items and shortcuts here (as the codebook's actions go to
:mod:`workbench.gui.coding.codebook_actions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from workbench.gui.coding.feedback import (
    key_message,
    merge_message,
    next_message,
    split_message,
    tag_message,
    undo_message,
)
from workbench.gui.coding.navigation import after_tagging, next_uncoded_row, tag_for_key
from workbench.gui.host import CodingWindow

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QTableView

    from workbench.gui.models import ClusterTableModel
    from workbench.gui.sidebyside.view import CompareView


@runtime_checkable
class CodingKeysWindow(CodingWindow, Protocol):
    """What the coding keys use of the window: the list, the side by side, and the
    refreshes a tag needs (a tag changes no row's place, so no whole refresh)."""

    model: ClusterTableModel
    table: QTableView
    compare: CompareView
    actions_by_name: dict[str, QAction]

    def selected_ids(self) -> list[int]: ...

    def select_row(self, row: int) -> None: ...

    def refresh_codebook(self) -> None: ...

    def update_actions(self) -> None: ...

    def show_status(self) -> None: ...


class CodingActions:
    def __init__(self, window: CodingKeysWindow) -> None:
        self.window = window

    def toggle_tag_key(self, key: str, *, stay: bool = False) -> None:
        """A digit key: toggle its tag on the selection, say so, and (when it tagged and
        "Advance After Tagging" is on) move to the next uncoded cluster. ``stay``
        (Shift+digit): never move on, so a cluster can be given several tags."""
        if self.window.project is None:
            return
        pressed = f"Shift+{key}" if stay else key
        tag = tag_for_key(self.window.project.codebook(), key)
        if tag is None:
            self.window.statusBar().showMessage(
                key_message(pressed, f"no tag has the key {key}; Ctrl+T adds one."), 5000)
            return
        ids = self.window.selected_ids()
        if not ids and self.window.may_code():
            self.window.statusBar().showMessage(
                key_message(pressed, f"no cluster is selected to tag “{tag.name}”."), 5000)
            return
        if not self.toggle_tag(tag.id):
            return
        after = after_tagging(self.window.project.next_undo(), stay=stay,
                              advance_on=self.window.actions_by_name["advance"].isChecked())
        if after.advance:
            self.next_uncoded(quiet=True)
        self.window.statusBar().showMessage(
            tag_message(tag.name, ids, after.added, after.advance, pressed), 6000)

    def toggle_page_tag_key(self, key: str) -> None:
        """Alt+digit: toggle the tag on the page shown on the right only (a page that is
        not the cluster's story gets its own tags so)."""
        member = self.window.compare.current_member()
        tag = tag_for_key(self.window.project.codebook(), key) \
            if self.window.project is not None else None
        if member is None or tag is None or not self.window.may_code():
            return
        has = tag.id in member.tag_ids
        act = self.window.project.untag_pages if has else self.window.project.tag_pages
        if self.window.attempt("Cannot tag the page", lambda: act([member.page_id], [tag.id])) is None:
            return
        cid = self.window.compare.cluster_id
        self.window.refresh(select_ids=[cid] if cid is not None else None, member_page=member.page_id)
        self.window.statusBar().showMessage(
            f"{'Removed' if has else 'Tagged'} “{tag.name}” {'from' if has else 'on'} the page "
            f"“{member.title or member.key}” alone.", 6000)

    def toggle_tag(self, tag_id: int) -> bool:
        ids = self.window.selected_ids()
        if not self.window.may_code() or not ids:
            return False
        if self.window.attempt("Cannot tag", lambda: self.window.project.toggle_tag(ids, tag_id)) is None:
            return False
        self.window.model.refresh_clusters(set(ids))
        self.window.refresh_codebook()
        self.window.update_actions()
        self.window.show_status()
        return True

    def undo(self) -> None:
        self._step_history(undo=True)

    def redo(self) -> None:
        self._step_history(undo=False)

    def _step_history(self, *, undo: bool) -> None:
        """Undo or redo, say what, and select the clusters it changed."""
        if not self.window.may_code():
            return
        info = self.window.project.next_undo() if undo else self.window.project.next_redo()
        action_id = self.window.attempt("Cannot undo" if undo else "Cannot redo",
                             self.window.project.undo if undo else self.window.project.redo)
        verb = "Undid" if undo else "Redid"
        if action_id is None:
            self.window.statusBar().showMessage(undo_message(verb, None, []), 4000)
            return
        changed = self.window.project.clusters_of_action(action_id)
        self.window.refresh(select_ids=changed or None)
        self.window.statusBar().showMessage(
            undo_message(verb, info.description if info else "", changed), 8000)

    def split_member(self) -> None:
        if not self.window.may_code():
            return
        cid, member = self.window.compare.cluster_id, self.window.compare.current_member()
        if cid is None or member is None or member.is_reference:
            self.window.statusBar().showMessage(key_message(
                "S", "nothing split: choose a member other than the reference first "
                     "(Page Down)."), 5000)
            return
        result = self.window.attempt("Cannot split", lambda: self.window.project.split(cid, [member.page_id]))
        if result is not None:
            self.window.refresh(select_ids=[cid])
            self.window.statusBar().showMessage(
                split_message(member.title or member.key, cid, result.id), 8000)

    def toggle_not_this_story(self) -> None:
        """X: the member on the right is not the cluster's story (or is again); the
        clustering stays, the cluster's tags pass it by, and it keeps its own tags."""
        if not self.window.may_code():
            return
        cid, member = self.window.compare.cluster_id, self.window.compare.current_member()
        if cid is None or member is None:
            self.window.statusBar().showMessage(
                key_message("X", "nothing marked: choose a cluster first."), 5000)
            return
        exclude = not member.excluded
        if self.window.attempt("Cannot mark the page", lambda: self.window.project.set_excluded(
                cid, [member.page_id], exclude)) is None:
            return
        self.window.refresh(select_ids=[cid], member_page=member.page_id)
        title = member.title or member.key
        said = (f"“{title}” is marked not this story (cluster {cid}): the cluster's tags pass "
                "it by; Alt+digit tags this page alone." if exclude
                else f"“{title}” is this story again (cluster {cid}).")
        self.window.statusBar().showMessage(key_message("X", said), 8000)

    def merge_selected(self) -> None:
        ids = self.window.selected_ids()
        if not self.window.may_code():
            return
        if len(ids) < 2:
            self.window.statusBar().showMessage(key_message(
                "M", "nothing merged: select two or more clusters first (Shift+Down or "
                     "Ctrl+click)."), 5000)
            return
        result = self.window.attempt("Cannot merge", lambda: self.window.project.merge(ids))
        if result is not None:
            self.window.refresh(select_ids=[result.id] if result.id is not None else [])
            self.window.statusBar().showMessage(merge_message(len(ids), result.id), 8000)

    def next_uncoded(self, quiet: bool = False) -> None:
        """N: the next uncoded cluster of the list (from the top again at its end);
        ``quiet``: after tagging, whose message says it moved on."""
        found = next_uncoded_row(self.window.model, self.window.table.currentIndex().row())
        if found is not None:
            self.window.select_row(found)
        if not quiet and self.window.project is not None:
            cid = self.window.model.row_of(found).id if found is not None else None
            self.window.statusBar().showMessage(next_message(cid), 5000)
