"""Capture every row a user action changes, for undo and redo.

TEMP triggers on the write connection copy the before/after values of each
inserted, updated or deleted row of the user-editable tables into the TEMP table
``staged_changes`` while an action is open; when the action ends, :func:`take`
turns them into the compact form kept in the file (see changelog.py). Doing it in
triggers rather than in each Python mutation means a new kind of action is undoable
without writing its inverse by hand, and a forgotten inverse cannot silently
corrupt the undo stack.

The staging table is TEMP so a row image never touches the project file, and its
value columns have no declared type so SQLite keeps each value exactly as it was
(a REAL stays the same double; no text rendering in between). An update that sets
every column to what it was is not staged at all. TEMP triggers live only on this
connection, so migrations and other tools write without recording; a detection run
takes them away while it writes (:func:`paused`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from workbench.store.coding.changelog import KEYS, Builder, ChangeGroup

# Tables a user action may change, with the columns that identify a row.
RECORDED: dict[str, tuple[str, ...]] = KEYS


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]


def _slots(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def install(conn: sqlite3.Connection) -> None:
    """Create the recording context, staging table and triggers on this connection."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS undo_ctx (action_id INTEGER)")
    if conn.execute("SELECT count(*) FROM temp.undo_ctx").fetchone()[0] == 0:
        conn.execute("INSERT INTO temp.undo_ctx VALUES (NULL)")
    # A table a migration has not made yet (a test that stops at an older version)
    # has no columns and gets no triggers.
    table_columns = {table: cols for table in RECORDED if (cols := columns(conn, table))}
    width = max(len(cols) for cols in table_columns.values())
    values = ", ".join(_slots("b", width) + _slots("a", width))
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS staged_changes "
                 f"(id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, op TEXT NOT NULL, {values})")
    active = "(SELECT action_id FROM undo_ctx) IS NOT NULL"
    for table, cols in table_columns.items():
        old = ", ".join(f'OLD."{c}"' for c in cols)
        new = ", ".join(f'NEW."{c}"' for c in cols)
        b, a = ", ".join(_slots("b", len(cols))), ", ".join(_slots("a", len(cols)))
        differs = " OR ".join(f'OLD."{c}" IS NOT NEW."{c}"' for c in cols)
        bodies = {
            "INSERT": ("I", active, f"(tbl, op, {a}) VALUES ('{table}', 'I', {new})"),
            "UPDATE": ("U", f"{active} AND ({differs})",
                       f"(tbl, op, {b}, {a}) VALUES ('{table}', 'U', {old}, {new})"),
            "DELETE": ("D", active, f"(tbl, op, {b}) VALUES ('{table}', 'D', {old})"),
        }
        for event, (op, when, insert) in bodies.items():
            conn.execute(
                f"CREATE TEMP TRIGGER IF NOT EXISTS record_{table}_{op} "
                f"AFTER {event} ON main.{table} WHEN {when} BEGIN "
                f"INSERT INTO staged_changes {insert}; END"
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
    conn.execute("DELETE FROM temp.staged_changes")
    conn.execute("UPDATE temp.undo_ctx SET action_id = ?", (action_id,))
    try:
        yield
    finally:
        conn.execute("UPDATE temp.undo_ctx SET action_id = NULL")


def take(conn: sqlite3.Connection) -> list[ChangeGroup]:
    """The changes staged since :func:`recording` began, in order, as compact groups;
    the staging table is left empty."""
    table_columns: dict[str, list[str]] = {}
    builder = Builder()
    for row in conn.execute("SELECT * FROM temp.staged_changes ORDER BY id"):
        table, op = row[1], row[2]
        cols = table_columns.get(table)
        if cols is None:
            cols = table_columns[table] = columns(conn, table)
        half = (len(row) - 3) // 2
        before, after = row[3:3 + len(cols)], row[3 + half:3 + half + len(cols)]
        if op == "I":
            builder.insert(table, cols, after)
        elif op == "D":
            builder.delete(table, cols, before)
        else:
            builder.update(table, dict(zip(cols, before, strict=True)),
                           dict(zip(cols, after, strict=True)))
    conn.execute("DELETE FROM temp.staged_changes")
    return builder.groups


# Bulk paths. A row trigger costs several microseconds per row; tagging a
# 10,000-page cluster through triggers alone would miss the 300 ms target.
# These stage the same rows set-wise, then change the table with the triggers
# idle, so undo and redo cannot tell the difference.

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
    slots = ", ".join(_slots("a", len(columns(conn, table))))
    conn.execute("DROP TABLE IF EXISTS temp.bulk_rows")
    conn.execute(f"CREATE TEMP TABLE bulk_rows AS {select_sql}", params)
    conn.execute(f"INSERT INTO temp.staged_changes (tbl, op, {slots}) "
                 f"SELECT '{table}', 'I', * FROM temp.bulk_rows")
    with _idle(conn, action_id):
        n = conn.execute(f"INSERT INTO {table} SELECT * FROM temp.bulk_rows").rowcount
    conn.execute("DROP TABLE temp.bulk_rows")
    return n


def delete_rows(conn: sqlite3.Connection, table: str, where_sql: str,
                params: Sequence[object]) -> int:
    """``DELETE FROM table WHERE ...`` recorded for undo; returns rows deleted."""
    action_id = _current(conn)
    cols = columns(conn, table)
    slots = ", ".join(_slots("b", len(cols)))
    values = ", ".join(f'"{c}"' for c in cols)
    conn.execute(f"INSERT INTO temp.staged_changes (tbl, op, {slots}) "
                 f"SELECT '{table}', 'D', {values} FROM {table} WHERE {where_sql}", params)
    with _idle(conn, action_id):
        return conn.execute(f"DELETE FROM {table} WHERE {where_sql}", params).rowcount
