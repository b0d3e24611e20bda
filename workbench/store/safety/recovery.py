"""Putting a good backup in place of a damaged project file.

The damaged file is renamed, never deleted (``study.wbproj`` becomes
``study.wbproj.damaged-<time>``, its ``-wal`` moving along with it so the pair
stays readable by a recovery tool); the backup is copied, not moved, so the
backups folder keeps every good copy.
"""

from __future__ import annotations

import os
import shutil
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from workbench.store.errors import ProjectError, storage_error
from workbench.store.safety import integrity
from workbench.store.safety.backup import good_backups
from workbench.store.safety.lock import ProjectLock
from workbench.store.safety.whole_files import temp_beside


def restore_backup(project_path: Path | str, backup_path: Path | str | None = None, *,
                   backup_dir: Path | None = None) -> Path:
    """Replace the project file by ``backup_path`` (default: the newest good backup).

    Returns where the damaged file was kept. Takes the project's write lock first
    (ProjectInUse if it is open elsewhere); raises ProjectError when there is no
    good backup or the chosen one fails the integrity check.
    """
    project_path = Path(project_path)
    if backup_path is None:
        candidates = good_backups(project_path, backup_dir)
        if not candidates:
            raise ProjectError(f"There is no good backup of {project_path} to restore.")
        source = candidates[-1]
    else:
        source = Path(backup_path)
        found = integrity.file_problems(source)
        if found:
            raise ProjectError(f"The backup {source} is damaged too ({found[0]}); "
                               "choose another one.")
    lock = ProjectLock.acquire(project_path)
    try:
        return _swap_in(project_path, source)
    except OSError as exc:
        problem = storage_error(exc, project_path)
        raise (problem or ProjectError(f"Could not restore {source}: {exc}")) from exc
    finally:
        lock.release()


def _swap_in(project_path: Path, source: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = project_path.with_name(f"{project_path.name}.damaged-{stamp}")
    # Copy first: if the disk is full, the damaged file is still where it was. The copy
    # goes to a new file of our own (never through a link left beside the project).
    incoming, fd = temp_beside(project_path)
    os.close(fd)
    try:
        shutil.copyfile(source, incoming)
        with open(incoming, "rb+") as fh:
            os.fsync(fh.fileno())
    except BaseException:
        with suppress(OSError):
            incoming.unlink(missing_ok=True)
        raise
    if project_path.exists():
        os.replace(project_path, aside)
        for side in ("-wal", "-shm"):
            old = project_path.with_name(project_path.name + side)
            if old.exists():
                # The -wal belongs to the damaged file (it must not be replayed into
                # the backup); -shm is only an index of it.
                os.replace(old, aside.with_name(aside.name + side))
    os.replace(incoming, project_path)
    return aside
