"""Replay an action's recorded changes backwards (undo) or forwards (redo)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from workbench.store.coding.changelog import ChangeGroup
from workbench.store.errors import ProjectError


def _insert(conn: sqlite3.Connection, table: str, columns: Sequence[str],
            rows: list[list[Any]]) -> None:
    sql = (f"INSERT INTO {table} ({', '.join(columns)}) "
           f"VALUES ({', '.join('?' for _ in columns)})")
    conn.executemany(sql, rows)


def _delete(conn: sqlite3.Connection, group: ChangeGroup, rows: list[list[Any]]) -> None:
    at = [group.columns.index(k) for k in group.key]
    sql = f"DELETE FROM {group.table} WHERE " + " AND ".join(f"{k} = ?" for k in group.key)
    conn.executemany(sql, [[row[i] for i in at] for row in rows])


def _update(conn: sqlite3.Connection, group: ChangeGroup, *, backwards: bool) -> None:
    """Set the changed columns to their values before (undo) or after (redo).

    Only the columns that changed are set: setting a cluster's id, even to itself, makes
    SQLite's foreign key check look for rows that refer to the old id in every table
    that refers to clusters (a scan of 660,000 clusters for undoing a review flag).
    """
    sql = (f"UPDATE {group.table} SET {', '.join(f'{c} = ?' for c in group.columns)} WHERE "
           + " AND ".join(f"{k} = ?" for k in group.key))
    steps = [(*before, *key_after) if backwards else (*after, *key_before)
             for key_before, before, key_after, after in group.updates()]
    if backwards:
        steps.reverse()
    conn.executemany(sql, steps)


def replay(conn: sqlite3.Connection, action_id: int, groups: Sequence[ChangeGroup], *,
           backwards: bool) -> None:
    """Undo (``backwards``) or redo the changes of one action.

    Changes are applied in reverse order for undo so foreign keys hold at every step
    (a split's new cluster row is deleted after its members). A group is one
    executemany: undoing a tag on a 10,000-page cluster is not 10,000 round trips.
    """
    ordered = list(reversed(groups)) if backwards else list(groups)
    try:
        for group in ordered:
            rows = list(reversed(group.rows)) if backwards else group.rows
            if group.op == "U":
                _update(conn, group, backwards=backwards)
            elif (group.op == "I") != backwards:  # redo an insert, undo a delete
                _insert(conn, group.table, group.columns, rows)
            else:
                _delete(conn, group, rows)
    except sqlite3.IntegrityError as exc:
        verb = "undo" if backwards else "redo"
        raise ProjectError(
            f"Cannot {verb} action {action_id}: the project has changed in a way that "
            f"conflicts with it ({exc}). Nothing was changed."
        ) from exc

