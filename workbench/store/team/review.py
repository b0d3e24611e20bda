"""Disagreements of a sample, and the lead settling them.

A disagreement is a cluster of the sample that two or more coders coded with different
tag sets. Settling it sets the cluster's final codes (``page_tags``, what the window and
the export show) and records the settlement; the coders' own codes stay as they were.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.store.clock import utc_now
from workbench.store.coding import tagging
from workbench.store.errors import ProjectError
from workbench.store.team import samples
from workbench.store.team.codes import CoderCluster, coder_names, decisions

if TYPE_CHECKING:
    from workbench.store.project import ActionResult, Project


@dataclass(frozen=True, slots=True)
class Disagreement:
    cluster_id: int
    coders: dict[str, CoderCluster]  # coder name -> tags, exceptions and memos
    settled: bool  # the lead settled it already


def disagreements(project: Project, sample_id: int) -> list[Disagreement]:
    """The sample's clusters (as they are now) on which coders' tag sets differ, by id."""
    conn = project.reader()
    if samples.get_sample(conn, sample_id) is None:
        raise ProjectError(f"No such sample: {sample_id}")
    names = coder_names(conn)
    settled = {r[0] for r in conn.execute("SELECT cluster_id FROM settlements")}
    found = []
    for cluster in samples.sample_clusters(conn, sample_id):
        by_coder = decisions(conn, cluster)
        if len({d.tags for d in by_coder.values()}) > 1:
            found.append(Disagreement(cluster, {names[c]: d for c, d in by_coder.items()},
                                      cluster in settled))
    return found


def settle(project: Project, cluster_id: int, tags: Sequence[int] | None = None,
           taken_from: str | None = None) -> ActionResult:
    """Set the cluster's final codes: the tags ``tags`` (ids), or with ``taken_from``
    and no ``tags`` that coder's codes on it. One undoable action."""
    conn = project.reader()
    coder_id = None
    if taken_from is not None:
        row = conn.execute("SELECT id FROM coders WHERE name = ?", (taken_from,)).fetchone()
        if row is None:
            raise ProjectError(f"No coder called {taken_from} has coded in this project.")
        coder_id = int(row[0])
    if tags is None:
        if coder_id is None:
            raise ProjectError("Say which tags to keep, or whose codes to take.")
        mine = decisions(conn, cluster_id).get(coder_id)
        if mine is None:
            raise ProjectError(f"{taken_from} did not code cluster {cluster_id}.")
        guids = mine.tags
        wanted = [r[0] for r in conn.execute("SELECT id, guid FROM tags") if r[1] in guids]
    else:
        wanted = list(dict.fromkeys(tags))
    who = f" from {taken_from}" if taken_from else ""

    def body(c: sqlite3.Connection, _action: int) -> None:
        _set_final(c, project.coder_id, cluster_id, wanted)
        c.execute(
            "INSERT INTO settlements (cluster_id, tags, taken_from, settled_by, settled_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET tags = excluded.tags, "
            "taken_from = excluded.taken_from, settled_by = excluded.settled_by, "
            "settled_at = excluded.settled_at",
            (cluster_id, json.dumps(sorted(wanted)), coder_id, project.coder_id, utc_now()))

    return project.perform("settle", f"Settle the codes of cluster {cluster_id}{who}", body)


def _set_final(conn: sqlite3.Connection, coder_id: int, cluster_id: int,
               wanted: Sequence[int]) -> None:
    tagging.check_clusters(conn, [cluster_id])
    if wanted:
        tagging.check_tags(conn, wanted)
    present = {r[0] for r in conn.execute(
        "SELECT DISTINCT pt.tag_id FROM cluster_members m JOIN page_tags pt "
        "ON pt.page_id = m.page_id WHERE m.cluster_id = ? AND NOT m.excluded", (cluster_id,))}
    extra = sorted(present - set(wanted))
    if extra:
        tagging.untag_clusters(conn, [cluster_id], extra)
    if wanted:
        tagging.tag_clusters(conn, coder_id, [cluster_id], wanted)
