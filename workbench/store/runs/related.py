"""A cluster's related clusters in its run: the stored pairs below τ that leave it.

The ranking is workbench.core.related's; this module only reads what it needs from the
project: the cluster's members, their stored pairs (from either end: ``pairs_by_b``), the
clusters the other pages are in now (hand merges and splits included) and the links the
coder dismissed (workbench.store.coding.dismissals).
"""

from __future__ import annotations

import json
import sqlite3

from workbench.core.clusters.calibration import run_floor
from workbench.core.related import Related, related_clusters
from workbench.store.coding.dismissals import dismissed_among


def related_of(conn: sqlite3.Connection, cluster_id: int) -> list[Related]:
    """Ranked related clusters of a (live) cluster; empty for a cluster merged away or
    a run that stored no pairs below τ."""
    row = conn.execute(
        "SELECT c.run_id, r.params FROM clusters c JOIN runs r ON r.id = c.run_id "
        "WHERE c.id = ? AND c.merged_into IS NULL", (cluster_id,)).fetchone()
    if row is None:
        return []
    run_id, params = row[0], json.loads(row[1])
    tau, floor = float(params.get("tau", 0.4)), run_floor(params)
    if floor >= tau:
        return []
    members = [r[0] for r in conn.execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (cluster_id,))]
    ids = json.dumps(members)
    pairs = conn.execute(
        """SELECT a, b, similarity FROM pairs WHERE run_id = :run
               AND a IN (SELECT value FROM json_each(:ids))
               AND similarity >= :floor AND similarity < :tau
           UNION ALL
           SELECT a, b, similarity FROM pairs INDEXED BY pairs_by_b WHERE run_id = :run
               AND b IN (SELECT value FROM json_each(:ids))
               AND similarity >= :floor AND similarity < :tau""",
        {"run": run_id, "ids": ids, "floor": floor, "tau": tau}).fetchall()
    others = {p for a, b, _ in pairs for p in (a, b)} - set(members)
    cluster_of = dict(conn.execute(
        """SELECT m.page_id, m.cluster_id FROM cluster_members m
           JOIN clusters c ON c.id = m.cluster_id
           WHERE m.page_id IN (SELECT value FROM json_each(?))
             AND c.run_id = ? AND c.merged_into IS NULL""",
        (json.dumps(sorted(others)), run_id)))
    cluster_of.update((p, cluster_id) for p in members)
    # A pair counted from both ends (both pages members) is no link and drops out there.
    return related_clusters(members, pairs, cluster_of, tau=tau, floor=floor,
                            dismissed=dismissed_among(conn, members) if pairs else ())
