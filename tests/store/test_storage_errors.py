"""describe_storage_error: the words for each storage failure, from real exceptions."""

from __future__ import annotations

import errno
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.store.faults import btree_page_near, flip_bytes, read_only
from workbench.store import ProjectError
from workbench.store.errors import describe_storage_error, storage_error, storage_kind


def _db(path: Path, rows: int = 200) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)")
    conn.execute("CREATE INDEX t_text ON t(text)")
    conn.executemany("INSERT INTO t (text) VALUES (?)", [(f"row {i} " * 20,) for i in range(rows)])
    conn.commit()
    conn.close()
    return path


def _raised(fn) -> BaseException:  # noqa: ANN001 - any callable
    with pytest.raises((sqlite3.Error, OSError)) as caught:
        fn()
    return caught.value


def test_busy(tmp_path: Path) -> None:
    path = _db(tmp_path / "a.db")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    exc = _raised(lambda: other.execute("BEGIN IMMEDIATE"))
    assert storage_kind(exc) == "busy"
    assert "is busy" in (describe_storage_error(exc, path) or "")
    holder.rollback()


def test_full(tmp_path: Path) -> None:
    path = _db(tmp_path / "a.db")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA max_page_count = 10")  # SQLite's own SQLITE_FULL
    exc = _raised(lambda: conn.execute("INSERT INTO t (text) VALUES (?)", ("x" * 100_000,)))
    message = describe_storage_error(exc, path) or ""
    assert "disk is full" in message and str(path) in message


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_full_from_the_os() -> None:
    def write() -> None:
        with open("/dev/full", "w") as fh:
            fh.write("x")
    exc = _raised(write)
    assert isinstance(exc, OSError) and exc.errno == errno.ENOSPC
    assert "disk is full" in (describe_storage_error(exc) or "")


def test_read_only(tmp_path: Path) -> None:
    path = _db(tmp_path / "a.db")
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    exc = _raised(lambda: conn.execute("DELETE FROM t"))
    assert storage_kind(exc) == "readonly"
    assert "read-only" in (describe_storage_error(exc, path) or "")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_read_only_from_the_os(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("x")
    with read_only(target):
        exc = _raised(lambda: target.write_text("y"))
    message = describe_storage_error(exc) or ""
    assert "read-only" in message and str(target) in message


def test_corrupt(tmp_path: Path) -> None:
    path = _db(tmp_path / "a.db", rows=2000)
    page, size = btree_page_near(path, 0.5)
    flip_bytes(path, (page - 1) * size)
    conn = sqlite3.connect(path)

    def read_all() -> None:
        conn.execute("SELECT count(*) FROM t WHERE text > ''").fetchall()
        conn.execute("SELECT sum(length(text)) FROM t").fetchall()
    exc = _raised(read_all)
    assert storage_kind(exc) == "damaged"
    assert "damaged" in (describe_storage_error(exc, path) or "")


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.wbproj"
    path.write_text("plain text, not a database " * 50)
    conn = sqlite3.connect(path)
    exc = _raised(lambda: conn.execute("SELECT * FROM sqlite_schema").fetchall())
    assert "not a SpotSigs Workbench project" in (describe_storage_error(exc, path) or "")


def test_cannot_open(tmp_path: Path) -> None:
    path = tmp_path / "no such folder" / "a.db"
    exc = _raised(lambda: sqlite3.connect(path).execute("SELECT 1").fetchall())
    assert "cannot be opened" in (describe_storage_error(exc, path) or "")


def test_io_error(tmp_path: Path) -> None:
    # Reading a folder as if it were a database file: read() fails with EISDIR,
    # which SQLite reports as SQLITE_IOERR_READ.
    exc = _raised(lambda: sqlite3.connect(tmp_path.as_uri() + "?mode=ro", uri=True)
                  .execute("SELECT * FROM sqlite_schema").fetchall())
    assert storage_kind(exc) == "io"
    assert "I/O error" in (describe_storage_error(exc, tmp_path) or "")
    assert "I/O error" in (describe_storage_error(OSError(errno.EIO, "I/O error")) or "")


def test_not_storage_errors(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (x UNIQUE)")
    conn.execute("INSERT INTO t VALUES (1)")
    integrity = _raised(lambda: conn.execute("INSERT INTO t VALUES (1)"))
    syntax = _raised(lambda: conn.execute("SELEKT 1"))
    missing = _raised(lambda: open(tmp_path / "absent.txt"))  # noqa: SIM115
    for exc in (integrity, syntax, missing, ValueError("x"), KeyError("y")):
        assert describe_storage_error(exc) is None
        assert storage_error(exc) is None


def test_a_wrapped_storage_error_is_found_through_its_cause(tmp_path: Path) -> None:
    path = _db(tmp_path / "a.db")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA max_page_count = 10")
    try:
        try:
            conn.execute("INSERT INTO t (text) VALUES (?)", ("x" * 100_000,))
        except sqlite3.Error as exc:
            raise ProjectError("saving failed") from exc
    except ProjectError as wrapped:
        problem = storage_error(wrapped, path)
        assert problem is not None and problem.kind == "full"
        assert isinstance(problem, ProjectError)
