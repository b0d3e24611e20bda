"""Memos: a coder's free-text notes on a cluster."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from workbench.store.clock import utc_now
from workbench.store.errors import ProjectError


@dataclass(frozen=True, slots=True)
class Memo:
    id: int
    cluster_id: int
    coder: str
    created_at: str
    updated_at: str
    text: str


def add_memo(conn: sqlite3.Connection, coder_id: int, cluster_id: int, text: str) -> int:
    if conn.execute("SELECT 1 FROM clusters WHERE id = ?", (cluster_id,)).fetchone() is None:
        raise ProjectError(f"No such cluster: {cluster_id}")
    now = utc_now()
    memo_id = conn.execute(
        "INSERT INTO memos (cluster_id, coder_id, created_at, updated_at, text) "
        "VALUES (?, ?, ?, ?, ?)",
        (cluster_id, coder_id, now, now, text),
    ).lastrowid
    assert memo_id is not None
    return memo_id


def edit_memo(conn: sqlite3.Connection, memo_id: int, text: str) -> None:
    cur = conn.execute("UPDATE memos SET text = ?, updated_at = ? WHERE id = ? AND text != ?",
                       (text, utc_now(), memo_id, text))
    if cur.rowcount == 0 and conn.execute(
            "SELECT 1 FROM memos WHERE id = ?", (memo_id,)).fetchone() is None:
        raise ProjectError(f"No such memo: {memo_id}")


def delete_memo(conn: sqlite3.Connection, memo_id: int) -> None:
    if conn.execute("DELETE FROM memos WHERE id = ?", (memo_id,)).rowcount == 0:
        raise ProjectError(f"No such memo: {memo_id}")


def memos_of(conn: sqlite3.Connection, cluster_id: int) -> list[Memo]:
    rows = conn.execute(
        "SELECT m.id, m.cluster_id, c.name, m.created_at, m.updated_at, m.text FROM memos m "
        "JOIN coders c ON c.id = m.coder_id WHERE m.cluster_id = ? ORDER BY m.id",
        (cluster_id,),
    )
    return [Memo(*r) for r in rows]
