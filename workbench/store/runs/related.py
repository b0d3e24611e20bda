"""A cluster's related clusters in its run: the stored pairs below τ that leave it.

The ranking is workbench.core.related's; this module only reads what it needs from the
project: the run's pairs between its floor and τ, the clusters pages are in now (hand
merges and splits included), the pages' sites (``pages.site``, as the cluster list shows
them) and the links the coder dismissed
(workbench.store.coding.dismissals).

A run's pairs never change once saved, and a member may be either end of a pair (the
primary key finds only the pairs whose smaller page is a member). Rather than an index on
the other end (it made saving a million pairs three times slower and the file half as
large again), the run's pairs below τ are read once into :class:`RunLinks`, which the
project keeps per run.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.core.clusters.calibration import run_floor
from workbench.core.related import Related, related_clusters
from workbench.store.coding.dismissals import dismissed_among


@dataclass(frozen=True, slots=True)
class RunLinks:
    """A run's pairs with ``floor <= similarity < tau``, from either end, by page id."""

    tau: float
    floor: float
    pages: np.ndarray  # int64, sorted: the pages with a link
    start: np.ndarray  # int64, len(pages) + 1: page k's links are start[k]:start[k + 1]
    other: np.ndarray  # int64: the page at the link's other end
    similarity: np.ndarray  # float64

    def touching(self, page_ids: Sequence[int]) -> Iterator[tuple[int, int, float]]:
        """(page, other page, similarity) of every link of the given pages."""
        ids = np.asarray(page_ids, dtype=np.int64)
        at = np.searchsorted(self.pages, ids)
        for page, k in zip(ids.tolist(), at.tolist(), strict=True):
            if k < len(self.pages) and self.pages[k] == page:
                lo, hi = self.start[k], self.start[k + 1]
                for other, sim in zip(self.other[lo:hi].tolist(),
                                      self.similarity[lo:hi].tolist(), strict=True):
                    yield page, other, sim


def run_links(conn: sqlite3.Connection, run_id: int) -> RunLinks:
    """Read a run's pairs between its floor and τ (none when it stored none below τ)."""
    row = conn.execute("SELECT params FROM runs WHERE id = ?", (run_id,)).fetchone()
    params = json.loads(row[0]) if row else {}
    tau, floor = float(params.get("tau", 0.4)), run_floor(params)
    rows = conn.execute(
        "SELECT a, b, similarity FROM pairs WHERE run_id = ? AND similarity >= ? "
        "AND similarity < ?", (run_id, floor, tau)).fetchall() if floor < tau else []
    data = np.array(rows, dtype=np.float64).reshape(-1, 3)
    a, b = data[:, 0].astype(np.int64), data[:, 1].astype(np.int64)
    src, dst = np.concatenate([a, b]), np.concatenate([b, a])
    sim = np.concatenate([data[:, 2], data[:, 2]])
    order = np.argsort(src, kind="stable")
    pages, counts = np.unique(src[order], return_counts=True)
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return RunLinks(tau, floor, pages, start, dst[order], sim[order])


def cluster_run(conn: sqlite3.Connection, cluster_id: int) -> int | None:
    """The run of a live cluster (None: no such cluster, or merged away)."""
    row = conn.execute("SELECT run_id FROM clusters WHERE id = ? AND merged_into IS NULL",
                       (cluster_id,)).fetchone()
    return row[0] if row else None


def related_of(conn: sqlite3.Connection, cluster_id: int, links: RunLinks) -> list[Related]:
    """Ranked related clusters of a live cluster of the run ``links`` were read from."""
    run_id = cluster_run(conn, cluster_id)
    if run_id is None:
        return []
    members = [r[0] for r in conn.execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (cluster_id,))]
    pairs = list(links.touching(members))
    if not pairs:
        return []
    others = {other for _, other, _ in pairs} - set(members)
    # From the few pages to their clusters (CROSS JOIN keeps that order): left to itself
    # SQLite began with every cluster of the run (by its run_id index), 0.23 s a cluster
    # on a run of 20,000 pages, on the GUI thread each time a cluster was shown.
    cluster_of = dict(conn.execute(
        """SELECT m.page_id, m.cluster_id FROM json_each(?) j
           CROSS JOIN cluster_members m ON m.page_id = j.value
           CROSS JOIN clusters c ON c.id = m.cluster_id
           WHERE c.run_id = ? AND c.merged_into IS NULL""",
        (json.dumps(sorted(others)), run_id)))
    cluster_of.update((p, cluster_id) for p in members)
    sites = dict(conn.execute("SELECT id, site FROM pages WHERE id IN "
                              "(SELECT value FROM json_each(?))",
                              (json.dumps(sorted(others | set(members))),)))
    return related_clusters(members, pairs, cluster_of, tau=links.tau, floor=links.floor,
                            dismissed=dismissed_among(conn, members),
                            site_of=lambda page: sites.get(page, ""))
