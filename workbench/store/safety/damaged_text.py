"""Text cells whose bytes are not UTF-8: read what can be read, and name the damaged cells.

A damaged sector, a tool that wrote raw bytes or a crash of another program can leave a
text cell holding bytes that are not UTF-8. SQLite does not look inside text, so the file
passes its integrity check, but Python's sqlite3 refuses to hand over such a cell
("Could not decode to UTF-8 column ...") and whatever was reading stops. The export must
not stop: it reads again with the bad bytes replaced by U+FFFD (:func:`tolerating`) and
names every damaged cell (:func:`damaged_cells`), so that the coder knows which rows to
check. Reading tolerantly costs a Python call per text cell, so it is only done once a
normal read has met damage (:func:`is_decode_error`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

# sqlite3's message for a cell it could not decode (CPython's Modules/_sqlite/cursor.c).
_DECODE_ERROR = "Could not decode to UTF-8"


@dataclass(frozen=True, slots=True)
class DamagedCell:
    """One text cell that is not valid UTF-8: its table, its row and its column."""

    table: str
    row: str  # "12" (rowid), or "run_id=1, page_id=3" in a table without rowids
    column: str

    def __str__(self) -> str:
        return f"{self.table} row {self.row}, column {self.column}"


def is_decode_error(exc: BaseException) -> bool:
    """Whether ``exc`` is sqlite3's refusal of a text cell that is not UTF-8."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(_DECODE_ERROR)


@contextmanager
def tolerating(conn: sqlite3.Connection) -> Iterator[None]:
    """Read text on ``conn`` with undecodable bytes replaced by U+FFFD, then as before."""
    before = conn.text_factory
    conn.text_factory = partial(str, encoding="utf-8", errors="replace")
    try:
        yield
    finally:
        conn.text_factory = before


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _table_cells(conn: sqlite3.Connection, table: str) -> Iterator[DamagedCell]:
    info = conn.execute(f"PRAGMA table_info({_quoted(table)})").fetchall()
    columns = [row[1] for row in info]
    keys = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
    has_rowid = not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND sql LIKE '%WITHOUT ROWID%'",
        (table,)).fetchone()
    if has_rowid:
        keys = ["rowid"]
    if not columns or not keys:
        return
    # Text only, and as bytes, so that sqlite3 never decodes (or refuses) anything here.
    picks = ", ".join(f"CASE WHEN typeof({_quoted(c)}) = 'text' THEN CAST({_quoted(c)} AS BLOB) END"
                      for c in columns)
    where = " OR ".join(f"typeof({_quoted(c)}) = 'text'" for c in columns)
    key_list = ", ".join(k if k == "rowid" else _quoted(k) for k in keys)
    for row in conn.execute(f"SELECT {key_list}, {picks} FROM {_quoted(table)} WHERE {where}"):
        key, values = row[:len(keys)], row[len(keys):]
        for column, value in zip(columns, values, strict=True):
            if value is None:
                continue
            try:
                bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                label = (str(key[0]) if has_rowid
                         else ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"
                                        for k, v in zip(keys, key, strict=True)))
                yield DamagedCell(table, label, column)


def damaged_cells(conn: sqlite3.Connection) -> list[DamagedCell]:
    """Every text cell of the project's tables that is not valid UTF-8, table by table.

    Reads every table once (text cells as bytes): call it only once damage was met.
    """
    tables = [name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]
    with tolerating(conn):  # a key column that is damaged text itself is still named
        return [cell for table in tables for cell in _table_cells(conn, table)]
