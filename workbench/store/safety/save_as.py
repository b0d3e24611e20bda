"""Save Project As: a copy of the open project under a new name, safe to put over another.

Copying the file with ``cp`` misses what is still in its ``-wal``; copying it over an
existing project ignores that project's own ``-wal`` (SQLite would then replay that
old log into the new file and damage it) and its lock (a session writing it would go
on writing into a file that is no longer the one it opened). So:

* the target is refused when it is the open project or one of its files
  (:mod:`workbench.store.safety.outputs`), a link, or a project open for writing elsewhere:
  its lock is taken, and held until the copy is in place;
* the copy is made with SQLite's online backup API from the open project (the ``-wal``
  included), into a new temporary file in the target's folder, made durable, and only
  then renamed over the target;
* the target's ``-wal``, ``-shm`` and ``-journal`` are deleted just before the rename,
  so none of them is ever left beside the new file.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from workbench.store.errors import ProjectError, storage_error
from workbench.store.safety.lock import ProjectLock
from workbench.store.safety.outputs import check_output
from workbench.store.safety.whole_files import fsync_path, put_in_place, remove_quietly, temp_beside

_SIDE_FILES = ("-wal", "-shm", "-journal")


def side_files(path: Path) -> list[Path]:
    return [path.with_name(path.name + side) for side in _SIDE_FILES]


def save_copy(source: sqlite3.Connection, source_path: Path, target: Path | str) -> Path:
    """Write the database behind ``source`` (the project at ``source_path``) to
    ``target``, replacing a project there that nobody has open for writing.

    ProjectInUse when the target is open for writing elsewhere; ProjectError (a
    StorageError for a full disk) naming what is wrong otherwise, and then the target
    and its side files are as they were."""
    target = check_output(target, project=source_path, what="Save As target")
    try:
        lock = ProjectLock.acquire(target)
    except OSError as exc:
        raise _error(exc, target) from exc
    try:
        tmp, fd = _new_temp(target)
        os.close(fd)
        try:
            _backup_into(source, tmp)
            fsync_path(tmp)
            # Nobody can open the target for writing while we hold its lock; its old
            # log must go before the new file takes its name, never after.
            remove_quietly(*side_files(target))
            put_in_place(tmp, target)
        except BaseException:
            remove_quietly(tmp, *side_files(tmp))
            raise
    except (OSError, sqlite3.Error) as exc:
        raise _error(exc, target) from exc
    finally:
        lock.release()
    return target


def _new_temp(target: Path) -> tuple[Path, int]:
    try:
        return temp_beside(target)
    except OSError as exc:
        raise _error(exc, target) from exc


def _backup_into(source: sqlite3.Connection, tmp: Path) -> None:
    copy = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        # A half copy is deleted, never used: no journal (none is left behind either).
        copy.execute("PRAGMA journal_mode = OFF")
        copy.execute("PRAGMA synchronous = OFF")
        source.backup(copy)
    finally:
        copy.close()
    remove_quietly(*side_files(tmp))


def _error(exc: BaseException, target: Path) -> ProjectError:
    return storage_error(exc, target) or ProjectError(
        f"Cannot save the project as {target}: {exc}. Nothing was changed there.")
