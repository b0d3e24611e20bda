"""Is a project file (or a backup) whole? SQLite's ``PRAGMA quick_check``.

``quick_check`` walks every b-tree page (page types, cell pointers, key order,
free list) without cross-checking indexes against tables, which makes it about
four times faster than ``integrity_check`` (with the file in the OS cache: 0.3 s for a
100,000-page project of 52 MiB, 3 s for a million pages, 531 MiB; see ``prefetch`` for
a cold cache). Damage inside a row's text that leaves the page structure intact is
invisible to both: SQLite keeps no checksums of its pages.

Opening checks the file before anything else touches it when it is at most
``SYNC_CHECK_MAX_BYTES``; a bigger file is checked on the backup thread, before any
copy is written (see ``backup.BackgroundBackup``), so opening stays quick.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

# Files up to this size are checked before Project.open returns (0.35 s with the file
# cached, about 1 s from a cold cache after ``prefetch`` on a slow virtual disk).
SYNC_CHECK_MAX_BYTES = 64 * 2**20
# Problems listed at most: the first few say enough and a wrecked file has thousands.
MAX_PROBLEMS = 20


class NotADatabase(Exception):
    """The file is not an SQLite database at all (or its first page is destroyed)."""


def problems(conn: sqlite3.Connection) -> list[str]:
    """What ``quick_check`` finds wrong in the database behind ``conn`` ([]: whole).

    Damage bad enough that SQLite refuses to run the check (a wrecked schema page)
    comes back as one problem; a file that is no database raises NotADatabase.
    """
    try:
        found = [row[0] for row in conn.execute(f"PRAGMA quick_check({MAX_PROBLEMS})")]
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:
            raise NotADatabase(str(exc)) from exc
        if _is_corruption(exc):
            return [str(exc)]
        raise
    if found == ["ok"]:
        return []
    # One row may hold several lines under a "*** in database main ***" heading.
    lines = [ln.strip() for row in found for ln in str(row).splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("***")][:MAX_PROBLEMS]


def prefetch(path: Path) -> None:
    """Ask the OS to read the file ahead, in order, in the background.

    ``quick_check`` reads pages in b-tree order, which on a cold cache is random I/O:
    on a slow disk 20 s for a 52 MiB project, 1 s after this hint (92 s and 15 s for
    531 MiB). The caller must make sure no connection of this process has the file
    open: closing any descriptor of a database file drops the POSIX locks this
    process's SQLite connections hold on it (sqlite.org/howtocorrupt.html, 2.2).
    """
    if sys.platform == "win32" or sys.platform == "darwin":
        return  # no such hint there (and on Windows no such lock problem)
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return  # opening will say what is wrong
    try:
        advise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    except OSError:
        pass  # only a hint
    finally:
        os.close(fd)


def file_problems(path: Path) -> list[str]:
    """``problems`` of a file nobody is writing (a backup), read without locks or side
    files, so checking a backup never leaves a ``-wal`` beside it."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        return problems(conn)
    except NotADatabase as exc:
        return [f"not an SQLite database ({exc})"]
    except sqlite3.Error as exc:
        return [str(exc)]
    finally:
        conn.close()


def _is_corruption(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_CORRUPT
