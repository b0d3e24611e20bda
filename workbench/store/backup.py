"""Rotating copies of the project, one per session, made on open.

Copies are made with SQLite's online backup API from an open connection:
copying the file (and maybe missing its -wal) could capture a torn state. A
copy is written under a temporary name and renamed into place, so a crash
during the backup never leaves a half file that looks like a good backup.
"""

from __future__ import annotations

import os
import sqlite3
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
