"""Codebook ▸ New Tag, Edit Tag, Rename, Colour, Delete: what each does to the project.

Kept apart from the main window, which only routes menu items, keys and the codebook
panel's buttons here. Every change is one undoable project action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.gui.tagform import changes, form_of, new_tag_form
from workbench.store import ProjectError, Tag

if TYPE_CHECKING:
    from workbench.gui.mainwindow import MainWindow


class CodebookActions:
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    # ----------------------------------------------------------------- helpers
    def _tags(self) -> list[Tag]:
        project = self.window.project
        return project.codebook() if project is not None else []

    def _tag(self, tag_id: int | None) -> Tag | None:
        if tag_id is None:
            tag_id = self.window.codebook.current_tag_id()
        return next((t for t in self._tags() if t.id == tag_id), None)

    def _done(self, message: str) -> None:
        self.window.refresh()
        self.window.statusBar().showMessage(message, 6000)

    def _try(self, title: str, action) -> bool:
        try:
            action()
        except ProjectError as exc:
            self.window.prompter.error(title, str(exc))
            return False
        return True

    # ----------------------------------------------------------------- actions
    def new_tag(self) -> None:
        """Codebook ▸ New Tag (Ctrl+T): name, key, colour, parent and description."""
        if not self.window._guard():
            return
        tags = self._tags()
        form = self.window.prompter.tag_form("New Tag", new_tag_form(tags), tags)
        if form is None:
            return
        project = self.window.project
        if self._try("Cannot add the tag", lambda: project.add_tag(
                form.name, form.description, form.colour, form.key, form.parent_id)):
            key = f" (key {form.key})" if form.key else ""
            self._done(f"Added tag “{form.name}”{key}.")

    def edit_tag(self, tag_id: int | None = None) -> None:
        """Codebook ▸ Edit Tag: every field of the tag chosen in the codebook."""
        tag = self._tag(tag_id) if self.window._guard() else None
        if tag is None:
            if self.window.project is not None and not self._tags():
                self.window.statusBar().showMessage("The codebook is empty: Ctrl+T adds a tag.", 6000)
            elif self.window.project is not None:
                self.window.statusBar().showMessage(
                    "Choose a tag in the codebook first (Ctrl+B, then the arrow keys).", 6000)
            return
        tags = self._tags()
        form = self.window.prompter.tag_form(f"Edit Tag “{tag.name}”", form_of(tag), tags, tag.id)
        if form is None:
            return
        fields = changes(form, tag)
        if fields and self._try("Cannot change the tag",
                                lambda: self.window.project.edit_tag(tag.id, **fields)):
            self._done(f"Changed tag “{form.name}”.")

    def rename_tag(self, tag_id: int | None = None) -> None:
        tag = self._tag(tag_id) if self.window._guard() else None
        if tag is None:
            return
        name = self.window.prompter.text("Rename Tag", "New name:", tag.name)
        if name and name.strip() and name.strip() != tag.name and self._try(
                "Cannot rename", lambda: self.window.project.edit_tag(tag.id, name=name)):
            self._done(f"Renamed “{tag.name}” to “{name.strip()}”.")

    def recolour_tag(self, tag_id: int | None = None) -> None:
        tag = self._tag(tag_id) if self.window._guard() else None
        if tag is None:
            return
        colour = self.window.prompter.colour(tag.colour)
        if colour and self._try("Cannot recolour",
                                lambda: self.window.project.edit_tag(tag.id, colour=colour)):
            self._done(f"New colour for “{tag.name}”.")

    def delete_tag(self, tag_id: int | None = None) -> None:
        tag = self._tag(tag_id) if self.window._guard() else None
        if tag is None:
            return
        project = self.window.project
        used = sum(1 for r in project.page_records() if tag.name in r.tags)
        if used and not self.window.prompter.confirm(
                "Delete Tag", f"“{tag.name}” is on {used:,} pages. Delete the tag and remove it "
                "from all of them? (Undo brings both back.)"):
            return
        if self._try("Cannot delete", lambda: project.delete_tag(tag.id)):
            self._done(f"Deleted tag “{tag.name}” (Ctrl+Z brings it back).")
