"""Memos: a coder's free-text notes on a cluster or on a page.

A cluster memo belongs to the cluster it was written on; a page memo belongs to the
page, so like the page's tags it stays with it across splits, merges and re-runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from workbench.store.clock import utc_now
from workbench.store.coding import changelog
from workbench.store.errors import ProjectError

# Several memos of one cluster or page in one export cell, oldest first.
JOIN = " | "


@dataclass(frozen=True, slots=True)
class Memo:
    id: int
    cluster_id: int | None  # None: a page memo
    coder: str
    created_at: str
    updated_at: str
    text: str
    page_id: int | None = None  # None: a cluster memo


def _insert(conn: sqlite3.Connection, coder_id: int, cluster_id: int | None,
            page_id: int | None, text: str) -> int:
    now = utc_now()
    memo_id = conn.execute(
        "INSERT INTO memos (cluster_id, page_id, coder_id, created_at, updated_at, text) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (cluster_id, page_id, coder_id, now, now, text),
    ).lastrowid
    assert memo_id is not None
    return memo_id


def _check_target(conn: sqlite3.Connection, cluster_id: int | None,
                  page_id: int | None) -> None:
    if (cluster_id is None) == (page_id is None):
        raise ProjectError("A memo belongs to one cluster or to one page.")
    table, key = ("clusters", cluster_id) if cluster_id is not None else ("pages", page_id)
    if conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (key,)).fetchone() is None:
        raise ProjectError(f"No such {table[:-1]}: {key}")


def add_memo(conn: sqlite3.Connection, coder_id: int, cluster_id: int, text: str) -> int:
    _check_target(conn, cluster_id, None)
    return _insert(conn, coder_id, cluster_id, None, text)


def add_page_memo(conn: sqlite3.Connection, coder_id: int, page_id: int, text: str) -> int:
    _check_target(conn, None, page_id)
    return _insert(conn, coder_id, None, page_id, text)


def edit_memo(conn: sqlite3.Connection, memo_id: int, text: str) -> None:
    cur = conn.execute("UPDATE memos SET text = ?, updated_at = ? WHERE id = ? AND text != ?",
                       (text, utc_now(), memo_id, text))
    if cur.rowcount == 0 and conn.execute(
            "SELECT 1 FROM memos WHERE id = ?", (memo_id,)).fetchone() is None:
        raise ProjectError(f"No such memo: {memo_id}")


def delete_memo(conn: sqlite3.Connection, memo_id: int) -> None:
    if conn.execute("DELETE FROM memos WHERE id = ?", (memo_id,)).rowcount == 0:
        raise ProjectError(f"No such memo: {memo_id}")


def own_memo(conn: sqlite3.Connection, coder_id: int, cluster_id: int | None,
             page_id: int | None) -> tuple[int, str] | None:
    """(id, text) of the coder's memo on the cluster or page (the newest if several)."""
    column, key = ("cluster_id", cluster_id) if cluster_id is not None else ("page_id", page_id)
    row = conn.execute(f"SELECT id, text FROM memos WHERE {column} = ? AND coder_id = ? "
                       "ORDER BY id DESC LIMIT 1", (key, coder_id)).fetchone()
    return (row[0], row[1]) if row else None


def set_memo(conn: sqlite3.Connection, coder_id: int, cluster_id: int | None,
             page_id: int | None, text: str) -> int | None:
    """Create, edit or (blank ``text``) delete the coder's memo on a cluster or page;
    return its id (None: deleted or never made). Unchanged text changes nothing."""
    _check_target(conn, cluster_id, page_id)
    own = own_memo(conn, coder_id, cluster_id, page_id)
    if not text.strip():
        if own is not None:
            delete_memo(conn, own[0])
        return None
    if own is None:
        return _insert(conn, coder_id, cluster_id, page_id, text)
    edit_memo(conn, own[0], text)
    return own[0]


def last_edit_of(conn: sqlite3.Connection, coder_id: int, cluster_id: int | None,
                 page_id: int | None) -> int | None:
    """The newest logged action, when it is this coder's edit of their memo on this
    cluster or page and nothing came after it (not even an undo); else None.

    A memo pane saves on every pause in typing; a save that goes into this action keeps
    one memo's typing one undo step, and any other action in between starts a new one.
    """
    row = conn.execute("SELECT id, kind, coder_id, state FROM actions "
                       "ORDER BY id DESC LIMIT 1").fetchone()
    if row is None or (row[1], row[2], row[3]) != ("memo", coder_id, "done"):
        return None
    groups = changelog.load(conn, row[0])
    own = own_memo(conn, coder_id, cluster_id, page_id)
    # The memo's row may have been made or deleted by that action: recognise it by place.
    ids = {own[0]} if own is not None else set()
    for group in groups:
        if group.op != "U":
            ids.update(img["id"] for img in group.images()
                       if (img["cluster_id"], img["page_id"], img["coder_id"])
                       == (cluster_id, page_id, coder_id))
    touched = {img.get("id") for group in groups for img in group.images()}
    if not groups or any(g.table != "memos" for g in groups) or not touched <= ids:
        return None
    return int(row[0])


_SELECT = ("SELECT m.id, m.cluster_id, c.name, m.created_at, m.updated_at, m.text, m.page_id "
           "FROM memos m JOIN coders c ON c.id = m.coder_id ")


def memos_of(conn: sqlite3.Connection, cluster_id: int) -> list[Memo]:
    rows = conn.execute(_SELECT + "WHERE m.cluster_id = ? ORDER BY m.id", (cluster_id,))
    return [Memo(*r) for r in rows]


def page_memos_of(conn: sqlite3.Connection, page_id: int) -> list[Memo]:
    rows = conn.execute(_SELECT + "WHERE m.page_id = ? ORDER BY m.id", (page_id,))
    return [Memo(*r) for r in rows]


def _joined(pairs: Iterable[tuple[int, str]]) -> dict[int, str]:
    texts: dict[int, list[str]] = {}
    for key, text in pairs:
        texts.setdefault(key, []).append(text)
    return {key: JOIN.join(t) for key, t in texts.items()}


def export_texts(conn: sqlite3.Connection) -> tuple[dict[int, str], dict[int, str]]:
    """(cluster id -> its memos, page id -> its memos), each joined with :data:`JOIN`,
    oldest first. A merged-away cluster's memos are the surviving cluster's."""
    merged = dict(conn.execute(
        "SELECT id, merged_into FROM clusters WHERE merged_into IS NOT NULL"))

    def surviving(cluster_id: int) -> int:
        seen: set[int] = set()
        while cluster_id in merged and cluster_id not in seen:
            seen.add(cluster_id)
            cluster_id = merged[cluster_id]
        return cluster_id

    rows = conn.execute("SELECT cluster_id, page_id, text FROM memos ORDER BY id").fetchall()
    return (_joined((surviving(c), t) for c, _, t in rows if c is not None),
            _joined((p, t) for _, p, t in rows if p is not None))
