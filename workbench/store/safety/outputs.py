"""Outputs that would destroy what is being worked on, refused before anything is written.

An export, a codebook, a pairs or clusters CSV or a copy of a project must never
replace the open project, its SQLite side files (``-wal``, ``-shm``, ``-journal``), its
lock file or a backup copy, nor a file of the crawl being read: a CSV renamed over the
project leaves the open session writing into a file nobody can reach, and over a page
it silently changes the crawl.

Files are compared by identity (device and inode), so another name of the same file
(a hard link, a symbolic link to a folder on the way, ``..``) is caught; a file that
does not exist yet is compared by its path with the folders' links resolved.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.store.safety.backup import backup_dir_for
from workbench.store.safety.lock import lock_path_for
from workbench.store.safety.whole_files import OutputRefused, check_target

if TYPE_CHECKING:
    from workbench.store.project import Project

_SIDE_FILES = {"-wal": "SQLite write-ahead log", "-shm": "SQLite shared-memory file",
               "-journal": "SQLite journal"}


def check_output(target: Path | str, *, project: Path | str | None = None,
                 crawl: Path | str | None = None, what: str = "") -> Path:
    """Refuse (OutputRefused, saying why) a link, a folder, a path in a missing folder,
    and an output ``target`` that is ``project``, one of its side files, lock or backups,
    or the ``crawl`` (a folder or an archive file) or a file inside it; return
    ``target`` as a Path when it may be written. ``what`` names it in the message."""
    target = Path(target)
    check_target(target, what)
    label = f"{what} {target}" if what else str(target)
    here = _Place(target)
    if project:
        project = Path(project)
        for path, role in _project_files(project):
            if here.is_file(path):
                raise OutputRefused(f"{label} is {role}: writing it would destroy the "
                                    "project. Choose another file name.")
        for folder in {backup_dir_for(project), backup_dir_for(_real(project))}:
            if here.is_inside(folder):
                raise OutputRefused(f"{label} is inside {folder}, the backup copies of "
                                    f"{project.name}: writing there could replace one. "
                                    "Choose a file outside that folder.")
    if crawl:
        crawl = Path(crawl)
        if here.is_file(crawl):
            raise OutputRefused(f"{label} is the crawl being read ({crawl}): writing it "
                                "would destroy it. Choose another file name.")
        if crawl.is_dir() and here.is_inside(crawl):
            raise OutputRefused(f"{label} is inside the crawl being read ({crawl}): an "
                                "output there would replace a page or become one. Choose "
                                "a file outside that folder.")
    return target


def check_project_output(project: Project, target: Path | str, what: str = "") -> Path:
    """:func:`check_output` for an output of the open ``project``: not the project or its
    files, nor a file of the crawl it reads (its archive root)."""
    return check_output(target, project=project.path, crawl=project.archive_root or None,
                        what=what)


def _project_files(project: Path) -> Iterator[tuple[Path, str]]:
    yield project, f"the project {project} itself"
    for base in dict.fromkeys((project, _real(project))):
        for side, role in _SIDE_FILES.items():
            yield base.with_name(base.name + side), f"the {role} of the project {project}"
    yield lock_path_for(project), f"the lock file of the project {project}"


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links: compare the name as given
        return path.absolute()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


class _Place:
    """Where an output would go: its file's identity (when it exists), its path with
    the folders' links resolved, and the identities of the folders above it."""

    def __init__(self, target: Path) -> None:
        self.identity = _identity(target)
        folder = _real(target.parent)
        self.path = folder / target.name
        self.folders = {i for i in map(_identity, (folder, *folder.parents)) if i}

    def is_file(self, other: Path) -> bool:
        if self.identity is not None and self.identity == _identity(other):
            return True
        return self.path == _real(other.parent) / other.name or self.path == _real(other)

    def is_inside(self, folder: Path) -> bool:
        identity = _identity(folder)
        return identity is not None and identity in self.folders
