"""The coder's dismissals of related suggestions: "these two pages are not one story".

A related suggestion (workbench.core.related) rests on links, pairs of pages below τ in two
clusters. Dismissing it keeps every one of its links here, keyed by the two pages' stable
keys (``pages.key``), never by ids of a run: a re-run, a re-clustering, a merge or a crash
leaves the judgement as it was, and the same links are not offered again. The rows are a
user action's (recorded for undo); ANDD's learning reads them as pairs kept apart
(workbench.detect.andd.labels).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from workbench.store.clock import utc_now
from workbench.store.errors import ProjectError


def _keys(conn: sqlite3.Connection, page_ids: Iterable[int]) -> dict[int, str]:
    ids = sorted(set(page_ids))
    return dict(conn.execute("SELECT id, key FROM pages WHERE id IN "
                             "(SELECT value FROM json_each(?))", (json.dumps(ids),)))


def dismiss(conn: sqlite3.Connection, coder_id: int,
            pairs: Sequence[tuple[int, int]]) -> int:
    """Keep the page pairs as dismissed (pairs dismissed before keep their first coder and
    time); return how many are new."""
    keys = _keys(conn, (p for pair in pairs for p in pair))
    missing = sorted({p for pair in pairs for p in pair} - set(keys))
    if missing:
        raise ProjectError(f"No such page: {missing[0]}")
    now = utc_now()
    added = 0
    for a, b in pairs:
        ka, kb = sorted((keys[a], keys[b]))
        if ka == kb:
            continue
        added += conn.execute(
            "INSERT OR IGNORE INTO related_dismissals (key_a, key_b, coder_id, dismissed_at) "
            "VALUES (?, ?, ?, ?)", (ka, kb, coder_id, now)).rowcount
    return added


def dismissed_among(conn: sqlite3.Connection, page_ids: Iterable[int]) -> set[tuple[int, int]]:
    """Dismissed pairs with at least one page among ``page_ids``, as page ids (smaller
    first); pages not in the project are left out."""
    keys = _keys(conn, page_ids)
    if not keys:
        return set()
    rows = conn.execute(
        """WITH k(key) AS (SELECT value FROM json_each(?))
           SELECT pa.id, pb.id FROM related_dismissals d
           JOIN pages pa ON pa.key = d.key_a JOIN pages pb ON pb.key = d.key_b
           WHERE d.key_a IN (SELECT key FROM k) OR d.key_b IN (SELECT key FROM k)""",
        (json.dumps(sorted(keys.values())),))
    return {(min(a, b), max(a, b)) for a, b in rows}


def all_dismissed(conn: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    """Every dismissal: (key_a, key_b, coder, dismissed_at), for the export and learning."""
    return conn.execute(
        "SELECT d.key_a, d.key_b, coalesce(c.name, ''), d.dismissed_at "
        "FROM related_dismissals d LEFT JOIN coders c ON c.id = d.coder_id "
        "ORDER BY d.key_a, d.key_b").fetchall()
