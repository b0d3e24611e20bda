"""Rotating copies of the project, one per session, made on open.

Copies are made with SQLite's online backup API from an open connection:
copying the file (and maybe missing its -wal) could capture a torn state. A
copy is written under a temporary name and renamed into place, so a crash
during the backup never leaves a half file that looks like a good backup.

Copying a project of a million pages takes seconds, so when the file needs no
migration the copy is made on a thread (:func:`start_backup`) from a snapshot
taken as the project opens: the window does not wait for it, and the copy is
still the file as it was when opened.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_KEEP = 5


def backup_dir_for(project_path: Path) -> Path:
    """``study.wbproj`` keeps its copies in ``study.wbproj.backups/`` beside it."""
    return project_path.with_name(project_path.name + ".backups")


def make_backup(
    conn: sqlite3.Connection, project_path: Path, keep: int = DEFAULT_KEEP,
    directory: Path | None = None,
) -> Path | None:
    """Copy the database behind ``conn`` and keep only the newest ``keep`` copies."""
    if keep <= 0:
        return None
    directory = directory or backup_dir_for(project_path)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    final = directory / f"{project_path.stem}-{stamp}{project_path.suffix or '.db'}"
    tmp = final.with_name(final.name + ".partial")
    target = sqlite3.connect(str(tmp))
    try:
        conn.backup(target)
    finally:
        target.close()
    os.replace(tmp, final)
    prune(directory, project_path, keep)
    return final


def list_backups(project_path: Path, directory: Path | None = None) -> list[Path]:
    """Finished backups, oldest first (names sort by time)."""
    directory = directory or backup_dir_for(project_path)
    if not directory.is_dir():
        return []
    suffix = project_path.suffix or ".db"
    return sorted(
        p for p in directory.glob(f"{project_path.stem}-*{suffix}") if p.is_file()
    )


def prune(directory: Path, project_path: Path, keep: int) -> None:
    for old in list_backups(project_path, directory)[:-keep]:
        old.unlink(missing_ok=True)
    # Leftovers of a backup interrupted by a crash.
    for partial in directory.glob("*.partial"):
        partial.unlink(missing_ok=True)


class BackgroundBackup:
    """A backup made on its own thread from a read snapshot that is already held."""

    def __init__(self, source: sqlite3.Connection, project_path: Path, keep: int,
                 directory: Path | None) -> None:
        self._source = source
        self._args = (project_path, keep, directory)
        self.path: Path | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="project-backup", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.path = make_backup(self._source, *self._args)
        except BaseException as exc:  # kept for wait(): a thread has nobody to raise to
            self.error = exc
        finally:
            self._source.close()

    def wait(self) -> Path | None:
        """Block until the copy is written; return its path or raise what went wrong."""
        self._thread.join()
        if self.error is not None:
            raise self.error
        return self.path

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()


def start_backup(project_path: Path, keep: int = DEFAULT_KEEP,
                 directory: Path | None = None) -> BackgroundBackup | None:
    """Begin a backup of the project file as it is now, finished on a thread.

    The read transaction is opened here, before returning, so writes made after this
    call (in WAL mode they never wait for a reader) do not reach the copy.
    """
    if keep <= 0:
        return None
    source = sqlite3.connect(str(project_path), isolation_level=None, check_same_thread=False)
    try:
        source.execute("BEGIN")
        source.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # pins the snapshot
    except BaseException:
        source.close()
        raise
    return BackgroundBackup(source, project_path, keep, directory)
