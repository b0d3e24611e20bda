"""Making a handed-out copy blind, before its coder sees it.

On the clusters of a reliability sample every coder codes on their own: the copy must
not show the lead's codes (the final codes), another coder's codes, memos or "not this
story" marks there. They are taken out of the copy only (the lead's file keeps them).
The copy's undo history starts empty: the lead's log holds those codes too, and the
coder's undo must not reach the lead's work. Bring-in reads only the actions logged
after :data:`AFTER_KEY`.
"""

from __future__ import annotations

import sqlite3

from workbench.store.clock import utc_now
from workbench.store.team import samples
from workbench.store.team.identity import set_meta

# meta keys: the newest action id of the copy as handed out (the coder's come after it),
# and its newest cluster id (a cluster above it was made in the copy, by a split).
AFTER_KEY = "team_copy_after_action"
CLUSTERS_KEY = "team_copy_clusters_upto"


def prepare(conn: sqlite3.Connection) -> None:
    """Blind the copy's reliability clusters and start its history afresh (no action:
    the caller's transaction, outside the log)."""
    newest = conn.execute("SELECT coalesce(max(id), 0) FROM actions").fetchone()[0]
    set_meta(conn, AFTER_KEY, str(int(newest)))
    upto = conn.execute("SELECT coalesce(max(id), 0) FROM clusters").fetchone()[0]
    set_meta(conn, CLUSTERS_KEY, str(int(upto)))
    conn.execute("DELETE FROM action_changes")
    conn.execute("UPDATE actions SET state = 'discarded', state_changed_at = ? "
                 "WHERE state != 'discarded'", (utc_now(),))
    clusters = samples.reliability_clusters(conn)
    if not clusters:
        return
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS blind_clusters (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.blind_clusters")
    conn.executemany("INSERT INTO temp.blind_clusters VALUES (?)", [(c,) for c in clusters])
    pages = ("SELECT page_id FROM cluster_members WHERE cluster_id IN "
             "(SELECT id FROM temp.blind_clusters)")
    on_clusters = "cluster_id IN (SELECT id FROM temp.blind_clusters)"
    conn.execute(f"DELETE FROM page_tags WHERE page_id IN ({pages})")
    conn.execute(f"DELETE FROM memos WHERE {on_clusters} OR page_id IN ({pages})")
    conn.execute(f"DELETE FROM coder_codes WHERE page_id IN ({pages})")
    conn.execute(f"DELETE FROM coder_exceptions WHERE {on_clusters} OR page_id IN ({pages})")
    conn.execute(f"DELETE FROM settlements WHERE {on_clusters}")
    conn.execute(f"UPDATE cluster_members SET excluded = 0 WHERE {on_clusters} AND excluded")
    conn.execute("DROP TABLE temp.blind_clusters")


def _number(conn: sqlite3.Connection, key: str) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0


def handed_out_after(conn: sqlite3.Connection) -> int:
    """The newest action id of the copy as handed out: its coder's actions come after."""
    return _number(conn, AFTER_KEY)


def clusters_handed_out(conn: sqlite3.Connection) -> int:
    """The newest cluster id of the copy as handed out: a cluster up to it is the lead's
    cluster of the same id; one above it was made in the copy."""
    return _number(conn, CLUSTERS_KEY)
