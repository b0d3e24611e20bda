"""Where project files go, and how an opened archive finds its project (no Qt)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import platformdirs

from workbench.store import Project, ProjectError
from workbench.store.safety.portable_names import collision_key, portable_name

APP_NAME = "SpotSigs Workbench"
ORG_NAME = "SpotSigs"
PROJECT_SUFFIX = ".wbproj"
DATA_DIR_ENV = "WORKBENCH_DATA_DIR"


def data_dir() -> Path:
    """The user data directory (``$WORKBENCH_DATA_DIR`` overrides the system's place)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    return user_data_folder(sys.platform)


def user_data_folder(platform: str) -> Path:
    """Where the projects, their backups and the error logs go on ``platform``.

    macOS: ``~/Library/Application Support/SpotSigs Workbench``, whatever the environment.
    platformdirs' MacOS gives that too, but takes ``$XDG_DATA_HOME`` first when it is set:
    a shell may set it, an app started from Finder never has it, and the same coder would
    find a different projects folder depending on how the app was started.

    Windows: ``%LOCALAPPDATA%\\SpotSigs\\SpotSigs Workbench`` (local, not roaming). Project
    files are SQLite databases written while the app runs; a roaming profile copies its
    folder to a server at sign-out and back at sign-in, which for a large, busy database
    is slow, can overrun the profile's quota, and can bring an older copy back over a
    newer one. The settings (coder, window layout, recent projects) roam: QSettings keeps
    them in the registry under HKEY_CURRENT_USER, which the roaming profile carries.

    Linux: ``$XDG_DATA_HOME/SpotSigs Workbench`` (``~/.local/share`` without it).
    """
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    dirs: type[platformdirs.PlatformDirsABC]
    if platform == "win32":
        from platformdirs.windows import Windows as dirs
    else:
        from platformdirs.unix import Unix as dirs
    return Path(dirs(APP_NAME, ORG_NAME, roaming=False).user_data_dir)


def projects_dir() -> Path:
    return data_dir() / "projects"


def _safe_name(name: str) -> str:
    """The archive folder's name as a project file's: valid on Windows and macOS too
    (a crawl copied from a Linux disk may be called ``aux``) and short."""
    name = re.sub(r"[^\w.-]+", "-", name, flags=re.UNICODE).strip("-.")
    return portable_name(name, fallback="archive")


def archive_root_of(path: Path) -> str | None:
    """The archive an existing project file belongs to (None: not a readable project)."""
    try:
        # Read-only: a project open in another window (locked for writing) is still found.
        with Project.open(path, backups=0, readonly=True) as project:
            return project.archive_root
    except (ProjectError, OSError):
        return None


def project_for_archive(root: Path | str, folder: Path | None = None) -> tuple[Path, bool]:
    """The project file for an archive folder, and whether it exists already.

    Named after the archive folder; if that name is taken by a project of another
    archive, ``name-2``, ``name-3``... are tried.
    """
    root = Path(root).resolve()
    folder = folder or projects_dir()
    base = _safe_name(root.name if root.name else "archive")
    # Names as Windows and macOS compare them: Crawl.wbproj takes crawl.wbproj's place.
    present = {collision_key(p.name): p for p in folder.iterdir()} if folder.is_dir() else {}
    for n in range(1, 1000):
        candidate = folder / f"{base}{'' if n == 1 else f'-{n}'}{PROJECT_SUFFIX}"
        there = present.get(collision_key(candidate.name))
        if there is None and not candidate.exists():
            return candidate, False
        if archive_root_of(there or candidate) == str(root):
            return there or candidate, True
    raise ProjectError(f"Too many projects named {base} in {folder}.")
