"""Reading a project that cannot or must not be written.

A project opened read-only must not change anything on disk it may not change. For
a WAL database that takes care: SQLite's ordinary read-only mode (``mode=ro``) still
needs the ``-wal`` and ``-shm`` files, and creates them when they are missing, which
fails in a read-only folder ("unable to open database file") and would litter a
folder that is writable. ``immutable=1`` reads the main file alone, with no files
and no locks, but must not be used on a file someone may be writing.

So (see https://sqlite.org/wal.html, "Read-Only Databases"):

* the project may be written by someone, i.e. it and its folder are writable, or
  a ``-wal`` file exists (a writer is or was at work): ``mode=ro``, which shares the
  writer's ``-wal``/``-shm`` and sees each of its commits;
* otherwise (a read-only file or folder with no ``-wal``: nobody can be writing it):
  ``immutable=1``.
"""

from __future__ import annotations

import os
from pathlib import Path


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def write_problem(path: Path) -> str | None:
    """Why this process cannot write the project file itself (None: it can).

    ``os.access`` rather than opening the file: closing any descriptor of a database
    file drops every POSIX lock this process's SQLite connections hold on it.
    """
    if _writable(path):
        return None
    if not _writable(path.parent):
        return f"{path} is on a read-only disk or in a folder you cannot write to"
    return f"the file {path} is read-only"


def readonly_uri(path: Path) -> str:
    """The URI to read ``path`` without writing anything (see the module notes)."""
    uri = path.resolve().as_uri()
    someone_may_write = _writable(path) and _writable(path.parent)
    if someone_may_write or wal_path(path).exists():
        return uri + "?mode=ro"
    return uri + "?immutable=1"


def _writable(path: Path) -> bool:
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK, effective_ids=effective)
