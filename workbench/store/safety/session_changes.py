"""Did this session change the project's data, beyond its own bookkeeping?

The opening backup (:mod:`workbench.store.safety.backup`) is skipped when the newest copy
already holds the project as it is. A session that changed nothing still changes the
file's modification time as it closes, and the window registers its coder on the first
opening after ``workbench dedup`` made the project: one row that would otherwise cost the
next opening a full copy (549 MB for a million pages). This tells such a session apart.

Counted on the write connection: ``total_changes`` (rows it changed, less the rows
written as bookkeeping), ``PRAGMA data_version`` (changes committed by any other
connection) and ``PRAGMA schema_version`` (tables and indexes made or dropped, which
``total_changes`` does not count). Any of them moving means the data changed; when in
doubt it says changed, which only costs a copy.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


class SessionChanges:
    """Counts from the moment the project was opened (after its migrations)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._changes = conn.total_changes
        self._versions = _versions(conn)
        self._bookkeeping = 0

    @contextmanager
    def bookkeeping(self) -> Iterator[None]:
        """Rows written inside this block do not count as a change (e.g. a new coder)."""
        before = self._conn.total_changes
        try:
            yield
        finally:
            self._bookkeeping += self._conn.total_changes - before

    def changed(self) -> bool:
        """True when the data may differ from what it was at the opening. Call with no
        transaction running on the connection."""
        try:
            others = _versions(self._conn) != self._versions
        except sqlite3.Error:
            return True
        own = self._conn.total_changes - self._changes - self._bookkeeping
        return others or own != 0


def _versions(conn: sqlite3.Connection) -> tuple[int, int]:
    return (int(conn.execute("PRAGMA data_version").fetchone()[0]),
            int(conn.execute("PRAGMA schema_version").fetchone()[0]))
