"""Codebook ▸ New Tag, Edit Tag, Rename, Colour, Delete: what each does to the project.

Kept apart from the main window, which only routes menu items, keys and the codebook
panel's buttons here. Every change is one undoable project action. Codebooks travel as
CSV (``name,description,colour,shortcut,parent``) or as the REFI-QDA exchange format
(``.qdc``: MAXQDA, ATLAS.ti, NVivo, QualCoder), and from another project's file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from workbench.export import QdcImport, write_codebook, write_qdc
from workbench.gui.coding.codebook_reader import CodebookReader
from workbench.gui.coding.tagform import changes, form_of, new_tag_form, with_free_keys
from workbench.gui.host import CodingWindow
from workbench.gui.project.locations import PROJECT_SUFFIX, projects_dir
from workbench.store import ProjectError, Tag, TagSpec, codebook_of
from workbench.store.safety.outputs import check_project_output

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from workbench.gui.coding.codebook import CodebookPanel

CODEBOOK_FILES = "Codebooks (*.qdc *.csv);;REFI-QDA codebook (*.qdc);;CSV (*.csv)"


@runtime_checkable
class CodebookWindow(CodingWindow, Protocol):
    """What the codebook's actions use of the window: the tag chosen in its codebook
    panel, and its settings (the folder codebooks were last read from or written to)."""

    settings: QSettings
    codebook: CodebookPanel


class CodebookActions:
    def __init__(self, window: CodebookWindow) -> None:
        self.window = window
        # Codebook files are read on a worker thread (a big one froze the window).
        self.reader = CodebookReader(window.window(), self._codebook_read,
                                     self._codebook_unreadable)
        self._importing_into: object = None  # the project a codebook file is read for

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
        """The window's ``attempt`` (a ProjectError becomes a message), as success or not."""
        return self.window.attempt(title, action) is not None

    # ----------------------------------------------------------------- actions
    def new_tag(self) -> None:
        """Codebook ▸ New Tag (Ctrl+T): name, key, colour, parent and description."""
        if not self.window.may_code():
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
        tag = self._tag(tag_id) if self.window.may_code() else None
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
        tag = self._tag(tag_id) if self.window.may_code() else None
        if tag is None:
            return
        name = self.window.prompter.text("Rename Tag", "New name:", tag.name)
        if name and name.strip() and name.strip() != tag.name and self._try(
                "Cannot rename", lambda: self.window.project.edit_tag(tag.id, name=name)):
            self._done(f"Renamed “{tag.name}” to “{name.strip()}”.")

    def recolour_tag(self, tag_id: int | None = None) -> None:
        tag = self._tag(tag_id) if self.window.may_code() else None
        if tag is None:
            return
        colour = self.window.prompter.colour(tag.colour)
        if colour and self._try("Cannot recolour",
                                lambda: self.window.project.edit_tag(tag.id, colour=colour)):
            self._done(f"New colour for “{tag.name}”.")

    def delete_tag(self, tag_id: int | None = None) -> None:
        tag = self._tag(tag_id) if self.window.may_code() else None
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

    # ------------------------------------------------------ codebooks that travel
    def export_codebook(self) -> None:
        """Codebook ▸ Export: .qdc (REFI-QDA) or .csv, by the name the coder gives."""
        project = self.window.project
        if project is None:
            return
        tags = project.codebook()
        if not tags:
            self.window.statusBar().showMessage("The codebook is empty: nothing to export.", 6000)
            return
        start = str(Path(self.window.settings.value("lastCodebookFolder", "") or Path.home())
                    / "codebook.qdc")
        target = self.window.prompter.save_file("Export Codebook", start, CODEBOOK_FILES)
        if not target:
            return
        path = Path(target)
        write = write_qdc if path.suffix.lower() == ".qdc" else write_codebook
        if path.suffix.lower() not in (".qdc", ".csv"):
            path = path.with_suffix(".qdc")
        try:
            write(tags, check_project_output(project, path))
        except (ProjectError, OSError) as exc:  # a folder that cannot be written, too
            self.window.prompter.error("Cannot export the codebook", str(exc))
            return
        self.window.settings.setValue("lastCodebookFolder", str(path.parent))
        self.window.statusBar().showMessage(f"Wrote {len(tags)} tags to {path}", 8000)

    def import_codebook(self) -> None:
        """Codebook ▸ Import: a .qdc or .csv file; what cannot come in is said first."""
        if not self.window.may_code():
            return
        start = str(self.window.settings.value("lastCodebookFolder", "") or Path.home())
        source = self.window.prompter.open_file("Import Codebook", start, CODEBOOK_FILES)
        if not source:
            return
        path = Path(source)
        if self.reader.busy:
            self.window.statusBar().showMessage("A codebook is being read already.", 6000)
            return
        self._importing_into = self.window.project
        self.window.statusBar().showMessage(f"Reading the codebook {path.name}…")
        self.reader.start(path)

    def _codebook_read(self, path: Path, found: QdcImport) -> None:
        self.window.statusBar().clearMessage()
        # The project may have been closed or another opened while the file was read.
        if self.window.project is not self._importing_into or not self.window.may_code():
            return
        self.window.settings.setValue("lastCodebookFolder", str(path.parent))
        self._import(found.specs, list(found.notes), path.name)

    def _codebook_unreadable(self, path: Path, message: str) -> None:
        self.window.statusBar().clearMessage()
        self.window.prompter.error("Cannot import the codebook", message)

    def import_from_project(self) -> None:
        """Codebook ▸ Import From Project: start from another project's codebook."""
        if not self.window.may_code():
            return
        source = self.window.prompter.open_file(
            "Import the Codebook of a Project", str(projects_dir()),
            f"Workbench projects (*{PROJECT_SUFFIX})")
        if not source:
            return
        try:
            specs = codebook_of(Path(source))
        except (ProjectError, OSError) as exc:
            self.window.prompter.error("Cannot read that project's codebook", str(exc))
            return
        self._import(specs, [], Path(source).name)

    def _import(self, specs: list[TagSpec], notes: list[str], source: str) -> None:
        if not specs:
            self.window.prompter.error("Nothing to import", f"{source} holds no tags.")
            return
        if notes and not self.window.prompter.confirm(
                "Import Codebook", f"{len(specs)} tags can be imported from {source}.\n\n"
                + "\n".join(f"• {n}" for n in notes) + "\n\nImport them?"):
            return
        project = self.window.project
        keyed = with_free_keys(specs, project.codebook())
        given = [f"{s.shortcut} {s.name}" for s, before in zip(keyed, specs, strict=True)
                 if s.shortcut and not before.shortcut]
        keys = f" Keys: {', '.join(given)}." if given else ""
        if self._try("Cannot import the codebook", lambda: project.import_codebook(keyed)):
            self._done(f"Imported {len(specs)} tags from {source} (Ctrl+Z takes them back).{keys}")
