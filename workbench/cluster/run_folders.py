"""A cluster run's work folder, and the folders of runs that died before removing theirs.

A run removes its folder when it ends, but a run that is killed (SIGKILL, a crash, a
power cut) cannot: its page shards stay, about 1 KB a small page (a gigabyte a million
pages), in the system's temporary folder or on the cluster's scratch space. So each run
holds a lock in its folder while it lives (the operating system's, as a project's:
workbench.store.safety.lock, which dies with its process), and each new run in the same
place removes the folders whose lock is free.

A folder is left alone when it has no lock file (another program's, or an older
version's), when its lock is held (a run still going, in this process or another, on this
machine or another one sharing the folder) or when it is younger than a minute (a run
that has made its folder and is about to lock it).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from workbench.store.errors import ProjectError
from workbench.store.safety.lock import ProjectLock, lock_path_for

PREFIX = "workbench-dask-"
# The lock is ProjectLock's, taken on this name in the folder (its file: run.lock).
_OWNER = "run"
_YOUNGEST = 60.0  # seconds: a folder made this recently may not be locked yet


def new_run_folder(base: Path | None) -> tuple[Path, ProjectLock]:
    """A new work folder in ``base`` (the system's temporary folder when None), locked
    for this run: release the lock before removing the folder."""
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base))
    return folder, ProjectLock.acquire(folder / _OWNER)


def remove_abandoned(base: Path | None, youngest: float = _YOUNGEST) -> list[Path]:
    """Remove the work folders in ``base`` that runs no longer alive left behind; the
    folders removed."""
    where = base if base is not None else Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        folders = [f for f in where.glob(PREFIX + "*") if f.is_dir() and not f.is_symlink()]
    except OSError:  # a folder that cannot be listed has nothing of ours to remove
        return removed
    for folder in folders:
        owner = folder / _OWNER
        try:
            if not lock_path_for(owner).is_file() or time.time() - folder.stat().st_mtime < youngest:
                continue
            lock = ProjectLock.acquire(owner)
        except (ProjectError, OSError):  # held: a run still going (or not ours to judge)
            continue
        lock.release()
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed


__all__ = ["PREFIX", "new_run_folder", "remove_abandoned"]
