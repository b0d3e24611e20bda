"""A run's stored pairs and clusters as page indexes, for calibrating τ without re-reading.

Pages are numbered by their position in the run (``run_pages.idx``), which is also how
the pipeline numbered them when it clustered, so the same clustering code sees the same
graph.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from workbench.core.clusters.calibration import PairGraph


def run_page_ids(conn: sqlite3.Connection, run_id: int) -> list[int]:
    """Page ids of the run by page index: what the indexes of the graph and groups mean."""
    return [r[0] for r in conn.execute(
        "SELECT page_id FROM run_pages WHERE run_id = ? ORDER BY idx", (run_id,))]


def run_graph(conn: sqlite3.Connection, run_id: int) -> PairGraph:
    """Every stored pair of the run (similarity ≥ the run's floor) as page indexes."""
    n = conn.execute("SELECT count(*) FROM run_pages WHERE run_id = ?", (run_id,)).fetchone()[0]
    rows = conn.execute(
        """SELECT ra.idx, rb.idx, p.similarity FROM pairs p
           JOIN run_pages ra ON ra.run_id = p.run_id AND ra.page_id = p.a
           JOIN run_pages rb ON rb.run_id = p.run_id AND rb.page_id = p.b
           WHERE p.run_id = ?""",
        (run_id,),
    ).fetchall()
    if not rows:
        return PairGraph.build(n, [], [], [])
    data = np.array(rows, dtype=np.float64)
    return PairGraph.build(n, data[:, 0].astype(np.int64), data[:, 1].astype(np.int64), data[:, 2])


def run_pair_arrays(conn: sqlite3.Connection, run_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every stored pair of the run as page indexes ``a`` and ``b`` and its similarity
    (float64, as stored: to the last digit), in no particular order.

    Read straight from the pairs table and numbered by array look-ups: joining each pair
    to ``run_pages`` twice in SQL, as :func:`run_graph` does, costs two index searches a
    pair (what an addition to a crawl reads: workbench.usecases.grown_pairs)."""
    ids = np.array(run_page_ids(conn, run_id), dtype=np.int64)
    rows = conn.execute("SELECT a, b, similarity FROM pairs WHERE run_id = ?", (run_id,)).fetchall()
    if not rows:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float64)
    a = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    b = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    similarity = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    del rows
    by_id = np.argsort(ids)
    return (by_id[np.searchsorted(ids, a, sorter=by_id)], by_id[np.searchsorted(ids, b, sorter=by_id)],
            similarity)


def run_page_facts(conn: sqlite3.Connection, run_id: int) -> list[tuple[str, str | None, str | None]]:
    """(key, checksum, url) of the run's pages by page index."""
    return conn.execute(
        """SELECT p.key, p.checksum, p.url FROM run_pages r JOIN pages p ON p.id = r.page_id
           WHERE r.run_id = ? ORDER BY r.idx""", (run_id,)).fetchall()


def run_groups(conn: sqlite3.Connection, run_id: int) -> list[list[int]]:
    """The run's clusters as they are now (hand splits and merges included), as lists of
    page indexes, one-page clusters left out."""
    groups: dict[int, list[int]] = {}
    # CROSS JOIN fixes the loop order (clusters, their members, each member's index):
    # left to itself SQLite scanned every run page for every cluster (14 s for 10,000).
    for idx, cluster_id in conn.execute(
        """SELECT r.idx, m.cluster_id FROM clusters c
           CROSS JOIN cluster_members m ON m.cluster_id = c.id
           CROSS JOIN run_pages r ON r.run_id = c.run_id AND r.page_id = m.page_id
           WHERE c.run_id = ? AND c.merged_into IS NULL ORDER BY m.cluster_id, r.idx""",
        (run_id,),
    ):
        groups.setdefault(cluster_id, []).append(idx)
    return [g for g in groups.values() if len(g) >= 2]


def hand_edits(conn: sqlite3.Connection, run_id: int) -> int:
    """Split and merge actions the coder took in the run (a re-clustering keeps the
    clusters they made: workbench.store.coding.carry.hand_clusters)."""
    return int(conn.execute(
        """SELECT (SELECT count(DISTINCT s.action_id) FROM splits s
                   JOIN clusters c ON c.id = s.from_cluster WHERE c.run_id = :r)
                + (SELECT count(DISTINCT m.action_id) FROM merges m
                   JOIN clusters c ON c.id = m.into_cluster WHERE c.run_id = :r)""",
        {"r": run_id},
    ).fetchone()[0])
