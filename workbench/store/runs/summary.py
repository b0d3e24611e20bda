"""The materialised per-cluster summary behind the cluster list.

``cluster_summary`` holds one row per cluster of the current run with the
numbers the list shows (size, similarity, reference title, sites, tag counts,
coded state). It is derived data: every write path calls :func:`refresh` for
the clusters it touched, inside the same transaction, so the list is never
stale and reading 200 rows never aggregates members or tags. ``cluster_totals``
sums it up (the status bar's figures) and follows every refresh the same way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# Coded state of a cluster: how many of its pages carry at least one tag.
NONE, SOME, ALL = 0, 1, 2
STATE_NAMES = {NONE: "none", SOME: "some", ALL: "all"}
MAX_SITES = 5

_SELECT = f"""
SELECT c.id, c.run_id, c.merged_into IS NULL,
    s.size, s.min_sim, s.mean_sim, c.reference_page_id,
    (SELECT title FROM pages WHERE id = c.reference_page_id),
    -- A page whose site is unknown ('') is no site: the list shows no folder name.
    (SELECT coalesce(group_concat(site, char(10)), '') FROM (
        SELECT DISTINCT p.site FROM cluster_members m JOIN pages p ON p.id = m.page_id
        WHERE m.cluster_id = c.id AND p.site != '' ORDER BY p.site LIMIT {MAX_SITES})),
    (SELECT count(DISTINCT p.site) FROM cluster_members m JOIN pages p ON p.id = m.page_id
        WHERE m.cluster_id = c.id AND p.site != ''),
    t.coded,
    CASE WHEN t.coded = 0 THEN {NONE} WHEN t.coded >= s.size - t.excluded THEN {ALL}
         ELSE {SOME} END,
    -- Members marked "not this story" count for neither the tags nor the coded state.
    (SELECT coalesce(json_group_object(tag_id, n), '{{}}') FROM (
        SELECT pt.tag_id, count(*) AS n FROM cluster_members m
        JOIN page_tags pt ON pt.page_id = m.page_id
        WHERE m.cluster_id = c.id AND NOT @EXCL@ GROUP BY pt.tag_id)),
    (SELECT count(*) FROM memos WHERE cluster_id = c.id),
    c.needs_review@EXCOUNT@@SEEN@
FROM clusters c
JOIN (SELECT m.cluster_id AS cid, count(*) AS size,
        -- A member whose similarity to the reference is unknown (below the run's pair
        -- floor) is the least similar one: the minimum is then unknown (NULL) too.
        CASE WHEN count(CASE WHEN m.page_id != c2.reference_page_id AND m.similarity IS NULL
                             THEN 1 END) > 0 THEN NULL
             ELSE min(CASE WHEN m.page_id != c2.reference_page_id THEN m.similarity END)
        END AS min_sim,
        avg(CASE WHEN m.page_id != c2.reference_page_id THEN m.similarity END) AS mean_sim
      FROM cluster_members m JOIN clusters c2 ON c2.id = m.cluster_id
      WHERE m.cluster_id IN (@IDS@) GROUP BY m.cluster_id) s ON s.cid = c.id
JOIN (SELECT m.cluster_id AS cid,
        count(*) FILTER (WHERE NOT @EXCL@ AND EXISTS
            (SELECT 1 FROM page_tags pt WHERE pt.page_id = m.page_id)) AS coded,
        count(*) FILTER (WHERE @EXCL@) AS excluded
      FROM cluster_members m WHERE m.cluster_id IN (@IDS@) GROUP BY m.cluster_id) t
    ON t.cid = c.id
WHERE c.id IN (@IDS@)
"""

_INSERT = """INSERT OR REPLACE INTO cluster_summary (cluster_id, run_id, active, size,
    min_similarity, mean_similarity, reference_page_id, reference_title, sites, site_count,
    coded_pages, coded_state, tag_counts, memo_count, needs_review@EXCOUNT@@SEENCOLS@) """

# When a cluster's pages were first and last seen: each page's publication date, else
# its capture date (ISO text sorts as time); members marked "not this story" left out.
_SEEN = """,
    (SELECT min(coalesce(p.published, p.capture_date)) FROM cluster_members m
        JOIN pages p ON p.id = m.page_id WHERE m.cluster_id = c.id AND NOT @EXCL@),
    (SELECT max(coalesce(p.published, p.capture_date)) FROM cluster_members m
        JOIN pages p ON p.id = m.page_id WHERE m.cluster_id = c.id AND NOT @EXCL@)"""


def _fill(conn: sqlite3.Connection, ids_sql: str) -> None:
    """Insert the summary rows of the clusters ``ids_sql`` selects."""
    # Migration steps 2 and 5 rebuild the summary of a file that has no exclusions yet
    # (step 8 adds them): every member then counts.
    current = "excluded" in {r[1] for r in conn.execute("PRAGMA table_info(cluster_members)")}
    # Steps before 13 have no dates to summarise.
    dated = "first_seen" in {r[1] for r in conn.execute("PRAGMA table_info(cluster_summary)")}
    sql = (_INSERT + _SELECT).replace("@SEENCOLS@", ", first_seen, last_seen" if dated else "")
    sql = sql.replace("@SEEN@", _SEEN if dated else "").replace("@IDS@", ids_sql)
    sql = sql.replace("@EXCL@", "m.excluded" if current else "0")
    conn.execute(sql.replace("@EXCOUNT@", ", excluded_count" if current else "", 1)
                 .replace("@EXCOUNT@", ", t.excluded" if current else "", 1))


def current_run(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'current_run'").fetchone()
    return int(row[0]) if row else None


def rebuild(conn: sqlite3.Connection) -> None:
    """Recompute the whole table for the current run (after save_run, migration)."""
    conn.execute("DELETE FROM cluster_summary")
    run = current_run(conn)
    if run is not None:
        ids = f"SELECT id FROM clusters WHERE run_id = {int(run)}"
        _fill(conn, ids)
    # Migration steps 2 and 5 rebuild the summary before step 6 creates the totals.
    if conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'cluster_totals'").fetchone():
        rebuild_totals(conn)


# The figures of Counts over summary rows; ``@WHERE@`` picks the rows.
_TOTALS = f"""SELECT count(*), coalesce(sum(coded_state = {ALL}), 0),
    coalesce(sum(coded_state = {SOME}), 0), coalesce(sum(needs_review), 0),
    coalesce(sum(size), 0), coalesce(sum(coded_pages), 0)
FROM cluster_summary WHERE active = 1 AND @WHERE@"""
TOTAL_COLUMNS = ("clusters", "all_coded", "some_coded", "need_review", "pages", "pages_coded")


def rebuild_totals(conn: sqlite3.Connection) -> None:
    """Count cluster_totals afresh from the whole summary."""
    row = conn.execute(_TOTALS.replace("@WHERE@", "1")).fetchone()
    conn.execute(f"INSERT OR REPLACE INTO cluster_totals (id, {', '.join(TOTAL_COLUMNS)}) "
                 "VALUES (1, ?, ?, ?, ?, ?, ?)", row)


def _shift_totals(conn: sqlite3.Connection, sign: int) -> None:
    """Add (1) or take away (-1) the summary rows of temp.refresh_ids from the totals.

    Called around every change of those rows, so the totals follow the summary
    without counting the whole of it.
    """
    row = conn.execute(
        _TOTALS.replace("@WHERE@", "cluster_id IN (SELECT id FROM temp.refresh_ids)")).fetchone()
    if row[0]:
        sets = ", ".join(f"{c} = {c} + ?" for c in TOTAL_COLUMNS)
        conn.execute(f"UPDATE cluster_totals SET {sets} WHERE id = 1", [sign * v for v in row])


def _load_ids(conn: sqlite3.Connection, run: int, cluster_ids: Iterable[int]) -> bool:
    """Fill temp.refresh_ids with those of ``cluster_ids`` in ``run``; any left?"""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS refresh_ids (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.refresh_ids")
    conn.executemany("INSERT OR IGNORE INTO temp.refresh_ids VALUES (?)",
                     [(int(i),) for i in cluster_ids])
    return conn.execute("SELECT 1 FROM temp.refresh_ids LIMIT 1").fetchone() is not None


def refresh(conn: sqlite3.Connection, cluster_ids: Iterable[int],
            tags_only: Iterable[int] = ()) -> None:
    """Bring the summary rows of ``cluster_ids`` up to date.

    ``tags_only``: clusters whose membership did not change, only their pages'
    tags; just the tag columns are recomputed (two passes over the members
    instead of five, which matters for a 10,000-page cluster).
    Clusters of older runs are ignored (the table holds the current run only);
    clusters that no longer exist (an undone split) lose their row.
    """
    run = current_run(conn)
    if run is None:
        return
    full = set(cluster_ids)
    if _load_ids(conn, run, full):
        _shift_totals(conn, -1)
        conn.execute(
            "DELETE FROM cluster_summary WHERE cluster_id IN (SELECT id FROM temp.refresh_ids)"
        )
        # Filter by run here, not in the IN-list: SQLite would otherwise scan
        # the whole run's clusters for every refresh.
        conn.execute(
            "DELETE FROM temp.refresh_ids "
            "WHERE (SELECT run_id FROM clusters WHERE id = refresh_ids.id) IS NOT ?",
            (run,),
        )
        _fill(conn, "SELECT id FROM temp.refresh_ids")
        _shift_totals(conn, 1)
    if _load_ids(conn, run, set(tags_only) - full):
        _shift_totals(conn, -1)
        conn.execute(_UPDATE_TAGS)
        _shift_totals(conn, 1)


_UPDATE_TAGS = f"""
UPDATE cluster_summary SET
    coded_pages = t.coded,
    coded_state = CASE WHEN t.coded = 0 THEN {NONE} WHEN t.coded >= size - excluded_count
                       THEN {ALL} ELSE {SOME} END,
    tag_counts = (SELECT coalesce(json_group_object(tag_id, n), '{{}}') FROM (
        SELECT pt.tag_id, count(*) AS n FROM cluster_members m
        JOIN page_tags pt ON pt.page_id = m.page_id
        WHERE m.cluster_id = cluster_summary.cluster_id AND NOT m.excluded
        GROUP BY pt.tag_id))
FROM (SELECT m.cluster_id AS cid,
        count(*) FILTER (WHERE NOT m.excluded AND EXISTS
            (SELECT 1 FROM page_tags pt WHERE pt.page_id = m.page_id)) AS coded
      FROM cluster_members m WHERE m.cluster_id IN (SELECT id FROM temp.refresh_ids)
      GROUP BY m.cluster_id) AS t
WHERE cluster_summary.cluster_id = t.cid
"""


def clusters_of_pages(conn: sqlite3.Connection, page_ids: Iterable[int]) -> set[int]:
    """The current run's clusters that contain any of ``page_ids``."""
    run = current_run(conn)
    if run is None:
        return set()
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS page_ids (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.page_ids")
    conn.executemany("INSERT OR IGNORE INTO temp.page_ids VALUES (?)", [(i,) for i in page_ids])
    rows = conn.execute(
        "SELECT DISTINCT m.cluster_id FROM temp.page_ids p "
        "JOIN cluster_members m ON m.page_id = p.id "
        "JOIN clusters c ON c.id = m.cluster_id WHERE c.run_id = ?",
        (run,),
    )
    return {r[0] for r in rows}
