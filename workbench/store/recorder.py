"""Capture every row a user action changes, for undo and redo.

TEMP triggers on the write connection copy the before/after image of each
inserted, updated or deleted row of the user-editable tables into ``changes``
while an action is open. Doing it in triggers rather than in each Python
mutation means a new kind of action is undoable without writing its inverse
by hand, and a forgotten inverse cannot silently corrupt the undo stack.
TEMP triggers live only on this connection, so migrations and other tools
write without recording; a detection run takes them away while it writes
(:func:`paused`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

# Tables a user action may change, with the columns that identify a row.
RECORDED: dict[str, tuple[str, ...]] = {
    "tags": ("id",),
    "page_tags": ("page_id", "tag_id"),
    "clusters": ("id",),
    "cluster_members": ("cluster_id", "page_id"),
    "memos": ("id",),
    "splits": ("id",),
    "merges": ("id",),
}


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]


def _image(alias: str, cols: list[str]) -> str:
    """SQL for a JSON object of a row's columns (the format replay.py reads)."""
    return "json_object(" + ", ".join(f"'{c}', {alias}.\"{c}\"" for c in cols) + ")"


def install(conn: sqlite3.Connection) -> None:
    """Create the recording context and triggers on this connection."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS undo_ctx (action_id INTEGER)")
    if conn.execute("SELECT count(*) FROM temp.undo_ctx").fetchone()[0] == 0:
        conn.execute("INSERT INTO temp.undo_ctx VALUES (NULL)")
    active = "(SELECT action_id FROM undo_ctx) IS NOT NULL"
    for table in RECORDED:
        cols = columns(conn, table)
        bodies = {
            "INSERT": ("I", "NULL", _image("NEW", cols)),
            "UPDATE": ("U", _image("OLD", cols), _image("NEW", cols)),
            "DELETE": ("D", _image("OLD", cols), "NULL"),
        }
        for event, (op, before, after) in bodies.items():
            conn.execute(
                f"CREATE TEMP TRIGGER IF NOT EXISTS record_{table}_{op} "
                f"AFTER {event} ON main.{table} WHEN {active} BEGIN "
                f"INSERT INTO changes (action_id, tbl, op, before, after) VALUES "
                f"((SELECT action_id FROM undo_ctx), '{table}', '{op}', {before}, {after}); END"
            )


@contextmanager
def paused(conn: sqlite3.Connection) -> Iterator[None]:
    """Take the triggers away for a bulk write that is no user action (a detection run).

    Even idle, a trigger costs a sub-program per row: half the time of storing a
    million-page run's clusters. Dropping TEMP triggers is part of the transaction, so
    a rolled-back write gets them back as well.
    """
    names = [r[0] for r in conn.execute(
        "SELECT name FROM temp.sqlite_schema WHERE type = 'trigger' AND name LIKE 'record%'")]
    for name in names:
        conn.execute(f"DROP TRIGGER temp.{name}")
    try:
        yield
    finally:
        install(conn)


@contextmanager
def recording(conn: sqlite3.Connection, action_id: int) -> Iterator[None]:
    """Record changes made inside the block as belonging to ``action_id``."""
    conn.execute("UPDATE temp.undo_ctx SET action_id = ?", (action_id,))
    try:
        yield
    finally:
        conn.execute("UPDATE temp.undo_ctx SET action_id = NULL")


# Bulk paths. A row trigger costs several microseconds per row; tagging a
# 10,000-page cluster through triggers alone would miss the 300 ms target.
# These write the same change images set-wise, then change the table with the
# triggers idle, so undo and redo cannot tell the difference.

def _current(conn: sqlite3.Connection) -> int:
    action_id = conn.execute("SELECT action_id FROM temp.undo_ctx").fetchone()[0]
    if action_id is None:
        raise RuntimeError("bulk changes must run inside an action")
    return int(action_id)


@contextmanager
def _idle(conn: sqlite3.Connection, action_id: int) -> Iterator[None]:
    conn.execute("UPDATE temp.undo_ctx SET action_id = NULL")
    try:
        yield
    finally:
        conn.execute("UPDATE temp.undo_ctx SET action_id = ?", (action_id,))


def insert_rows(conn: sqlite3.Connection, table: str, select_sql: str,
                params: Sequence[object]) -> int:
    """``INSERT INTO table SELECT ...`` recorded for undo; returns rows inserted.

    ``select_sql`` must yield all of the table's columns, in table order, and
    only rows that do not exist yet (the caller filters, e.g. NOT EXISTS).
    """
    action_id = _current(conn)
    cols = columns(conn, table)
    conn.execute("DROP TABLE IF EXISTS temp.bulk_rows")
    conn.execute(f"CREATE TEMP TABLE bulk_rows AS {select_sql}", params)
    names = [r[1] for r in conn.execute("PRAGMA temp.table_info(bulk_rows)")]
    renamed = ", ".join(f'"{n}" AS "{c}"' for n, c in zip(names, cols, strict=True))
    rows = f"(SELECT {renamed} FROM temp.bulk_rows) AS r"
    conn.execute(
        "INSERT INTO changes (action_id, tbl, op, before, after) "
        f"SELECT ?, '{table}', 'I', NULL, {_image('r', cols)} FROM {rows}",
        (action_id,),
    )
    with _idle(conn, action_id):
        n = conn.execute(f"INSERT INTO {table} SELECT * FROM temp.bulk_rows").rowcount
    conn.execute("DROP TABLE temp.bulk_rows")
    return n


def delete_rows(conn: sqlite3.Connection, table: str, where_sql: str,
                params: Sequence[object]) -> int:
    """``DELETE FROM table WHERE ...`` recorded for undo; returns rows deleted."""
    action_id = _current(conn)
    cols = columns(conn, table)
    conn.execute(
        "INSERT INTO changes (action_id, tbl, op, before, after) "
        f"SELECT ?, '{table}', 'D', {_image(table, cols)}, NULL FROM {table} WHERE {where_sql}",
        (action_id, *params),
    )
    with _idle(conn, action_id):
        return conn.execute(f"DELETE FROM {table} WHERE {where_sql}", params).rowcount
