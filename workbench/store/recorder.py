"""Capture every row a user action changes, for undo and redo.

TEMP triggers on the write connection copy the before/after image of each
inserted, updated or deleted row of the user-editable tables into ``changes``
while an action is open. Doing it in triggers rather than in each Python
mutation means a new kind of action is undoable without writing its inverse
by hand, and a forgotten inverse cannot silently corrupt the undo stack.
TEMP triggers live only on this connection, so migrations, save_run and other
tools write without recording.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
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


def install(conn: sqlite3.Connection) -> None:
    """Create the recording context and triggers on this connection."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS undo_ctx (action_id INTEGER)")
    if conn.execute("SELECT count(*) FROM temp.undo_ctx").fetchone()[0] == 0:
        conn.execute("INSERT INTO temp.undo_ctx VALUES (NULL)")
    active = "(SELECT action_id FROM undo_ctx) IS NOT NULL"
    for table in RECORDED:
        cols = columns(conn, table)

        def image(alias: str, cols: list[str] = cols) -> str:
            return "json_object(" + ", ".join(f"'{c}', {alias}.\"{c}\"" for c in cols) + ")"

        bodies = {
            "INSERT": ("I", "NULL", image("NEW")),
            "UPDATE": ("U", image("OLD"), image("NEW")),
            "DELETE": ("D", image("OLD"), "NULL"),
        }
        for event, (op, before, after) in bodies.items():
            conn.execute(
                f"CREATE TEMP TRIGGER IF NOT EXISTS record_{table}_{op} "
                f"AFTER {event} ON main.{table} WHEN {active} BEGIN "
                f"INSERT INTO changes (action_id, tbl, op, before, after) VALUES "
                f"((SELECT action_id FROM undo_ctx), '{table}', '{op}', {before}, {after}); END"
            )


@contextmanager
def recording(conn: sqlite3.Connection, action_id: int) -> Iterator[None]:
    """Record changes made inside the block as belonging to ``action_id``."""
    conn.execute("UPDATE temp.undo_ctx SET action_id = ?", (action_id,))
    try:
        yield
    finally:
        conn.execute("UPDATE temp.undo_ctx SET action_id = NULL")
