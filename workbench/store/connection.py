"""SQLite connections: one write lane, many readers.

SQLite allows one writer at a time; funnelling every write through one
connection guarded by a lock means a GUI worker thread and the main thread can
never deadlock on the database lock or see ``database is locked``. Readers get
their own connection per thread and, thanks to WAL, never block the writer.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from workbench.store.errors import ProjectReadOnly

# Long enough that a reader never fails while a big save_run commits.
BUSY_TIMEOUT_MS = 10_000
# UPDATE ... FROM (3.33) and the JSON functions are used by the summary and undo log.
MIN_SQLITE = (3, 33, 0)


def connect(path: Path | str, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection with the pragmas every project connection needs.

    ``isolation_level=None``: we issue BEGIN/COMMIT ourselves so a user action is
    exactly one transaction. ``check_same_thread=False``: the lane lock, not the
    creating thread, decides who may use the write connection.
    """
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
    )
    conn.execute("PRAGMA foreign_keys = ON")
    # FULL: a committed action survives a power cut, not just a process crash.
    conn.execute("PRAGMA synchronous = FULL")
    if readonly:
        conn.execute("PRAGMA query_only = ON")
    return conn


def connect_uri(uri: str) -> sqlite3.Connection:
    """A reading connection to a project opened read-only (``access.readonly_uri``)."""
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute("PRAGMA query_only = ON")
    return conn


class WriteLane:
    """The single write connection; ``transaction()`` is the only way to use it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self._depth = 0

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK if the body raises.

        Re-entrant: a nested call joins the outer transaction, so helpers can
        be composed without committing half an action.
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._depth = 0

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for setup (migrations, triggers) before use."""
        return self._conn

    @contextmanager
    def idle(self) -> Iterator[sqlite3.Connection]:
        """The connection between transactions (waits for a running one to end), to read
        its own state (e.g. what it changed) without a transaction of its own."""
        with self._lock:
            yield self._conn

    def close(self) -> None:
        """Wait for a running transaction, fold the WAL into the file, close.

        Raises the checkpoint's sqlite3.Error (after closing) when the WAL could not
        be folded in, e.g. on a full disk: the last commits then live only in the
        ``-wal`` file, and whoever copies the project file alone would lose them.
        """
        with self._lock:
            problem: sqlite3.Error | None = None
            # A closed project is then one self-contained file to copy or mail. If
            # another process is reading, the checkpoint may stop short (busy): the
            # file is still consistent and that process's connection keeps the WAL.
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error as exc:
                problem = exc
            self._conn.close()
            if problem is not None:
                raise problem


class ReadOnlyLane(WriteLane):
    """Stands in for the write lane of a project opened read-only: every write through
    it (actions, undo, redo, setup) raises ProjectReadOnly with the reason."""

    def __init__(self, message: str) -> None:  # no connection: there is nothing to write
        self.message = message

    def transaction(self) -> NoReturn:  # raises before any block runs: there is no transaction
        raise ProjectReadOnly(self.message)

    @property
    def connection(self) -> sqlite3.Connection:
        raise ProjectReadOnly(self.message)

    def close(self) -> None:
        pass


class Readers:
    """One read-only connection per thread, created on first use."""

    def __init__(self, path: Path, uri: str | None = None) -> None:
        self._path = path
        self._uri = uri  # read-only projects: how to open without writing anything
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def get(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with self._lock:
                if self._closed:
                    raise sqlite3.ProgrammingError("the project is closed")
                conn = (connect_uri(self._uri) if self._uri is not None
                        else connect(self._path, readonly=True))
                self._all.append(conn)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all.clear()
