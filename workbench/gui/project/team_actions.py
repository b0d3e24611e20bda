"""File ▸ Hand Out to Coders… and File ▸ Bring In Coders' Work…: the lead's side of
team coding. The work is the store's (:mod:`workbench.store.team`); these ask, call and
say what happened, each refusal in a dialog."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from workbench.gui.coding.feedback import count_of
from workbench.gui.host import CodingWindow
from workbench.gui.project.locations import PROJECT_SUFFIX
from workbench.gui.project.team_text import bring_in_all
from workbench.store import ProjectError
from workbench.store.team import copy_of, hand_out

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings


class _Flushes(Protocol):
    def flush(self) -> None: ...


@runtime_checkable
class TeamWindow(CodingWindow, Protocol):
    """What handing out and bringing in use of the window: the folder used last, the
    selected clusters, the memo pane (a memo typed just now goes out too), no run."""

    settings: QSettings
    job: object | None
    memo_pane: _Flushes

    def selected_ids(self) -> list[int]: ...


def _ready(window: TeamWindow, what: str) -> bool:
    project = window.project
    if project is None or window.job is not None:
        return False
    if project.readonly:
        window.prompter.error(what, "The project is open read-only: only the coder who has "
                              "it open for writing can do this.")
        return False
    if copy_of(project) is not None:
        window.prompter.error(what, "This is a coder's copy. Hand out and bring in work "
                              "from the lead's project, which the copies were made from.")
        return False
    return True


def hand_out_dialog(window: TeamWindow) -> list[Path] | None:
    """Ask for the coders and the folder, then write one copy per coder."""
    if not _ready(window, "Cannot hand out"):
        return None
    project = window.project
    assert project is not None
    start = window.settings.value("team/handOutFolder", "") or str(project.path.parent)
    selected = window.selected_ids()
    options = window.prompter.hand_out_options(str(start), len(selected))
    if options is None:
        return None
    window.memo_pane.flush()
    clusters = selected if options.only_selected else None
    try:
        made = hand_out(project, options.coders, options.folder, clusters)
    except (ProjectError, OSError) as exc:
        window.prompter.error("Cannot hand out", str(exc))
        return None
    window.settings.setValue("team/handOutFolder", str(options.folder))
    window.prompter.info("Handed out", f"{count_of(len(made), 'copy', 'copies')} written "
                         f"into {options.folder}:\n" + "\n".join(p.name for p in made)
                         + "\n\nGive each coder their file; bring the files back with "
                         "File ▸ Bring In Coders' Work….")
    window.statusBar().showMessage(f"Handed out {count_of(len(made), 'copy', 'copies')} "
                                   f"to {', '.join(options.coders)}", 8000)
    return made


def bring_in_dialog(window: TeamWindow) -> None:
    """Choose coders' copies, bring each in (one undoable step each), then show what
    came in and every copy refused."""
    if not _ready(window, "Cannot bring in"):
        return
    project = window.project
    assert project is not None
    start = window.settings.value("team/bringInFolder", "") or \
        window.settings.value("team/handOutFolder", "") or str(project.path.parent)
    paths = window.prompter.open_files(
        "Bring In Coders' Work", str(start),
        f"Coders' copies (*{PROJECT_SUFFIX});;All files (*)")
    if not paths:
        return
    window.settings.setValue("team/bringInFolder", str(Path(paths[0]).parent))
    window.memo_pane.flush()
    outcome = bring_in_all(project, [Path(p) for p in paths])
    window.refresh()
    if outcome.reports:
        window.prompter.info("Coders' work brought in", outcome.reports_text())
    if outcome.refused:
        window.prompter.error("Some copies were not brought in" if outcome.reports
                              else "Nothing brought in", outcome.refusals_text())
    new = sum(r.new_actions for r in outcome.reports)
    window.statusBar().showMessage(
        f"Brought in {count_of(len(outcome.reports), 'copy', 'copies')} "
        f"({count_of(new, 'new action', 'new actions')}); "
        f"{count_of(len(outcome.refused), 'refused', 'refused')}", 8000)
