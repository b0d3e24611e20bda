"""Each coder's own codes per cluster, as brought in from their copies.

A coder's codes live on pages (``coder_codes``, like the final codes in ``page_tags``);
a cluster's codes for a coder are the tags the coder put on any of its pages. A cluster
is a unit the coder coded when bring-in recorded it as one (``team_imports`` kind
``unit``: the coder tagged, untagged, marked or wrote a memo on it in their copy), so a
cluster the coder looked at and left without a tag counts as coded with no tag, and a
cluster the coder never touched is absent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.store.coding.tagging import surviving

if TYPE_CHECKING:
    from workbench.store.project import Project

UNIT = "unit"


@dataclass(frozen=True, slots=True)
class CoderCluster:
    """What one coder decided on one cluster."""

    tags: frozenset[str]  # tag GUIDs
    excluded: frozenset[int]  # pages the coder marked "not this story"
    memos: tuple[str, ...]  # the coder's memos on the cluster and its pages, oldest first


def _marks(n: int) -> str:
    return ",".join("?" * n)


def coded_units(conn: sqlite3.Connection, cluster_ids: Sequence[int]) -> dict[int, set[int]]:
    """coder id -> the clusters (of ``cluster_ids``, as they are now) the coder coded."""
    wanted = set(cluster_ids)
    found: dict[int, set[int]] = {}
    for coder, target in conn.execute(
            "SELECT coder_id, target_id FROM team_imports WHERE kind = ? "
            "AND target_id IS NOT NULL", (UNIT,)):
        cluster = surviving(conn, target)
        if cluster in wanted:
            found.setdefault(coder, set()).add(cluster)
    return found


def _tags_by_cluster(conn: sqlite3.Connection,
                     cluster_ids: Sequence[int]) -> dict[tuple[int, int], set[str]]:
    """(coder id, cluster) -> tag GUIDs the coder put on the cluster's pages."""
    found: dict[tuple[int, int], set[str]] = {}
    ids = list(cluster_ids)
    for start in range(0, len(ids), 10_000):
        chunk = ids[start:start + 10_000]
        rows = conn.execute(
            "SELECT cc.coder_id, m.cluster_id, t.guid FROM cluster_members m "
            "JOIN coder_codes cc ON cc.page_id = m.page_id JOIN tags t ON t.id = cc.tag_id "
            f"WHERE m.cluster_id IN ({_marks(len(chunk))})", chunk)
        for coder, cluster, guid in rows:
            found.setdefault((coder, cluster), set()).add(guid)
    return found


def coder_names(conn: sqlite3.Connection) -> dict[int, str]:
    return {r[0]: r[1] for r in conn.execute("SELECT id, name FROM coders")}


def codes_by_coder_id(conn: sqlite3.Connection,
                      cluster_ids: Iterable[int]) -> dict[int, dict[int, frozenset[str]]]:
    """Like :func:`coder_codes`, keyed by coder id."""
    ids = sorted(set(cluster_ids))
    units = coded_units(conn, ids)
    tags = _tags_by_cluster(conn, ids)
    for coder, cluster in tags:  # a coded page is a coded unit, however it came
        units.setdefault(coder, set()).add(cluster)
    return {coder: {c: frozenset(tags.get((coder, c), ())) for c in sorted(clusters)}
            for coder, clusters in units.items()}


def coder_codes(project: Project,
                cluster_ids: Iterable[int]) -> dict[str, dict[int, frozenset[str]]]:
    """Each coder's own codes per unit, for the agreement statistics.

    Returns ``{coder name: {cluster id: frozenset of tag GUIDs}}``: for every coder who
    coded at least one of ``cluster_ids`` (clusters as they are now in the current run),
    one entry per cluster that coder coded, holding the GUIDs of the tags the coder put
    on any of its pages (an empty frozenset: coded, with no tag). A cluster the coder did
    not code is absent from that coder's dict (missing data, not "no tag"). Only the
    coders' own codes brought in from their copies count, never the final (settled)
    codes. Tag GUIDs are ``Tag.guid`` of ``project.codebook()``.
    """
    conn = project.reader()
    names = coder_names(conn)
    return {names[coder]: units
            for coder, units in codes_by_coder_id(conn, cluster_ids).items()}


def decisions(conn: sqlite3.Connection, cluster_id: int) -> dict[int, CoderCluster]:
    """coder id -> their tags, "not this story" marks and memos on one cluster, for
    every coder who coded it (see :func:`coded_units`)."""
    units = codes_by_coder_id(conn, [cluster_id])
    pages = [r[0] for r in conn.execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (cluster_id,))]
    excluded: dict[int, set[int]] = {}
    for coder, page in conn.execute(
            "SELECT coder_id, page_id FROM coder_exceptions WHERE cluster_id = ? AND excluded",
            (cluster_id,)):
        excluded.setdefault(coder, set()).add(page)
    memo_rows = conn.execute(
        f"SELECT coder_id, text FROM memos WHERE cluster_id = ? OR page_id IN "
        f"({_marks(len(pages))}) ORDER BY id", (cluster_id, *pages)).fetchall()
    coders = {c for c, u in units.items() if cluster_id in u} | set(excluded)
    return {coder: CoderCluster(
        tags=units.get(coder, {}).get(cluster_id, frozenset()),
        excluded=frozenset(excluded.get(coder, ())),
        memos=tuple(t for c, t in memo_rows if c == coder)) for coder in sorted(coders)}


def page_codes_by_coder(conn: sqlite3.Connection) -> dict[int, dict[str, tuple[str, ...]]]:
    """page id -> {coder name: names of the tags the coder put on it, sorted}: for the
    export's one column of tags per coder (the final tags are the page's own)."""
    found: dict[int, dict[str, list[str]]] = {}
    for page, coder, tag in conn.execute(
            "SELECT cc.page_id, c.name, t.name FROM coder_codes cc JOIN coders c "
            "ON c.id = cc.coder_id JOIN tags t ON t.id = cc.tag_id ORDER BY t.name"):
        found.setdefault(page, {}).setdefault(coder, []).append(tag)
    return {p: {c: tuple(t) for c, t in by.items()} for p, by in found.items()}
