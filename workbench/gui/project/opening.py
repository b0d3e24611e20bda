"""Opening a project file the way a coder needs it (no Qt).

A project may be open in another window (one writer per project: offer to read it
instead), damaged (offer to put the newest good backup in place), read-only (say
so, and that coding is off), or left with a detection run that never finished
(offer to run it again with the settings it was started with), or on a network
drive, where SQLite's write-ahead log is not safe (offer to copy it to this computer
and code in the copy). The window asks through its prompter; this module decides what
to ask and what follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from workbench.gui.project.locations import PROJECT_SUFFIX, projects_dir
from workbench.store import Project
from workbench.store.errors import ProjectDamaged, ProjectInUse
from workbench.store.safety import network_drive
from workbench.store.safety.recovery import restore_backup

READ_ONLY = "Open Read-Only"
RESTORE = "Restore Backup"
CANCEL = "Cancel"
RUN_AGAIN = "Run Again"
NOT_NOW = "Not Now"
FORGET = "Forget It"
COPY_HERE = "Copy to This Computer…"
OPEN_ANYWAY = "Open Anyway"


class Asker(Protocol):
    def choose(self, title: str, text: str, buttons: list[str]) -> int | None: ...

    def error(self, title: str, text: str, details: str = "") -> None: ...

    def save_project(self, start: str = "") -> str | None: ...


@dataclass(frozen=True, slots=True)
class Opened:
    """An opened project and what the coder should be told about how it was opened."""

    project: Project
    note: str = ""  # e.g. that a backup was restored
    note_title: str = "Backup restored"


def open_existing(path: Path, ask: Asker, local_folder: Path | None = None) -> Opened | None:
    """Open ``path`` for coding; None when the coder chose not to open it.

    On a network drive the coder is warned first, and may copy the project into a
    folder on this computer (``local_folder`` is offered first; default: the projects
    folder) and code in the copy.

    Errors other than "in use" and "damaged" propagate as ProjectError for the
    caller's usual message.
    """
    place = network_drive.network_place(path)
    if place is not None:
        answer = ask.choose("Project on a network drive",
                            network_drive.network_warning(path, place),
                            [COPY_HERE, OPEN_ANYWAY, CANCEL])
        if answer == 0:
            return copy_here(path, ask, local_folder or projects_dir())
        if answer != 1:
            return None
    try:
        return Opened(Project.open(path))
    except ProjectInUse as exc:
        answer = ask.choose(
            "Project in use",
            f"{exc}\n\nOnly one window at a time can change a project, so that no one's "
            "coding is lost or undone by someone else.", [READ_ONLY, CANCEL])
        if answer != 0:
            return None
        who = exc.holder.describe() if exc.holder is not None else "another session"
        return Opened(Project.open(path, readonly=True, why=f"open for coding by {who}"))
    except ProjectDamaged as exc:
        if not exc.good_backups:
            ask.error("Project damaged", str(exc))
            return None
        newest = exc.good_backups[-1]
        answer = ask.choose(
            "Project damaged",
            f"{exc}\n\nRestoring brings the project back as it was when {newest.name} was "
            "made; coding done after that is not in it (the damaged file stays beside it "
            "for a specialist).", [RESTORE, CANCEL])
        if answer != 0:
            return None
        kept = restore_backup(path, newest)
        return Opened(Project.open(path),
                      note=f"Restored {newest.name}; the damaged file was kept as {kept.name}.")


def copy_here(path: Path, ask: Asker, local_folder: Path) -> Opened | None:
    """Save a copy of the project on the network drive into a local folder the coder
    chooses, and open the copy (None: the coder cancelled or chose no local folder).
    The file on the network drive is only read."""
    local_folder.mkdir(parents=True, exist_ok=True)
    chosen = ask.save_project(str(local_folder / path.name))
    if not chosen:
        return None
    target = Path(chosen)
    if target.suffix != PROJECT_SUFFIX:
        target = target.with_suffix(PROJECT_SUFFIX)
    place = network_drive.network_place(target.parent)
    if place is not None:
        ask.error("Not copied", f"{target.parent} is on a network drive too ({place}). "
                  "Choose a folder on this computer (Documents, say); nothing was copied.")
        return None
    # Read-only: the copy is made beside anyone coding in the file on the share.
    with Project.open(path, backups=0, readonly=True, why="being copied") as source:
        source.save_copy(target)
    return Opened(Project.open(target), note_title="Copied to this computer",
                  note=f"{path.name} was copied from the network drive to {target}; you "
                       f"are coding in this copy. The file on the network drive is "
                       "unchanged: to share your coding, save a copy back (File ▸ Save "
                       "Project As…) or hand out copies to coders.")


def read_only_banner(project: Project) -> str:
    """The status bar's standing note for a read-only project ('' when it can be written)."""
    if not project.readonly:
        return ""
    return f"Read-only ({project.readonly_reason}): coding is off; reading and export work."


def pending_run_question(pending: dict, current: dict | None) -> str:
    """What to ask about a detection run that was started and never finished."""
    def name(key: str) -> str:
        return "τ" if key == "tau" else key.replace("_", " ")

    changed = [f"{name(key)} {pending[key]} (the current run: {current.get(key)})"
               for key in sorted(pending)
               if current is not None and key in current and current[key] != pending[key]]
    if current is None:
        settings, before = (f"τ {pending.get('tau', '?')}",
                            "The project has no finished run yet.")
    else:
        settings = ", ".join(changed) or "the same settings as the current run"
        before = "The project still shows the run before it."
    return ("The last detection run of this project did not finish (the window was closed "
            f"or the program stopped while it ran). It was started with {settings}.\n\n"
            f"{before} Run it again now with those settings?")


def offer_pending_run(project: Project, ask: Asker) -> dict | None:
    """The settings of an unfinished run to start again, if the coder wants that.

    "Forget It" drops them; "Not Now" keeps them for the next opening. A read-only
    project is never asked (it cannot run).
    """
    if project.readonly:
        return None
    pending = project.pending_run()
    if pending is None:
        return None
    run = project.current_run()
    answer = ask.choose("Last run did not finish",
                        pending_run_question(pending, run.params if run else None),
                        [RUN_AGAIN, NOT_NOW, FORGET])
    if answer == 0:
        return pending
    if answer == 2:
        project.forget_pending_run()
    return None
