"""Replay recorded row changes backwards (undo) or forwards (redo)."""

from __future__ import annotations

import json
import sqlite3
from itertools import groupby

from workbench.store.errors import ProjectError
from workbench.store.recorder import RECORDED


def _insert(conn: sqlite3.Connection, table: str, images: list[dict]) -> None:
    cols = list(images[0])
    sql = (
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})"
    )
    conn.executemany(sql, [[img[c] for c in cols] for img in images])


def _delete(conn: sqlite3.Connection, table: str, images: list[dict]) -> None:
    key = RECORDED[table]
    sql = f"DELETE FROM {table} WHERE " + " AND ".join(f"{k} = ?" for k in key)
    conn.executemany(sql, [[img[k] for k in key] for img in images])


def _update(conn: sqlite3.Connection, table: str, pairs: list[tuple[dict, dict]]) -> None:
    """Each pair is (row as it is now, row as it must become).

    Only the columns that differ are set: setting a cluster's id, even to itself, makes
    SQLite's foreign key check look for rows that refer to the old id in every table
    that refers to clusters (a scan of 660,000 clusters for undoing a review flag).
    """
    key = RECORDED[table]
    for now, target in pairs:
        cols = [c for c in target if c not in now or now[c] != target[c]]
        if not cols:
            continue
        conn.execute(
            f"UPDATE {table} SET {', '.join(f'{c} = ?' for c in cols)} WHERE "
            + " AND ".join(f"{k} = ?" for k in key),
            [target[c] for c in cols] + [now[k] for k in key],
        )


def replay(conn: sqlite3.Connection, action_id: int, *, backwards: bool) -> None:
    """Undo (``backwards``) or redo the changes of one action.

    Changes are applied in reverse order for undo so foreign keys hold at
    every step (a split's new cluster row is deleted after its members).
    Consecutive changes of the same kind are batched for speed: undoing a tag
    on a 10,000-page cluster is one executemany, not 10,000 round trips.
    """
    order = "DESC" if backwards else "ASC"
    rows = conn.execute(
        f"SELECT tbl, op, before, after FROM changes WHERE action_id = ? ORDER BY id {order}",
        (action_id,),
    ).fetchall()
    try:
        for (table, op), group in groupby(rows, key=lambda r: (r[0], r[1])):
            items = [(json.loads(b) if b else None, json.loads(a) if a else None)
                     for _, _, b, a in group]
            if op == "I":
                if backwards:
                    _delete(conn, table, [a for _, a in items])
                else:
                    _insert(conn, table, [a for _, a in items])
            elif op == "D":
                if backwards:
                    _insert(conn, table, [b for b, _ in items])
                else:
                    _delete(conn, table, [b for b, _ in items])
            elif backwards:
                _update(conn, table, [(a, b) for b, a in items])
            else:
                _update(conn, table, [(b, a) for b, a in items])
    except sqlite3.IntegrityError as exc:
        verb = "undo" if backwards else "redo"
        raise ProjectError(
            f"Cannot {verb} action {action_id}: the project has changed in a way that "
            f"conflicts with it ({exc}). Nothing was changed."
        ) from exc
