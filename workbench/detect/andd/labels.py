"""What ANDD can learn from: clusters a person has checked, and pairs they kept apart.

Two sources. A gold folder (the SpotSigs Gold Set's layout): every first-level folder is
one cluster of near duplicates. A project: the coder's judgements in a run, read without
writing anything:

* a cluster is *checked* when a member carries a tag (it is coded) or the coder merged
  clusters into it; its members, less those marked "not this story", are one group;
* a member marked "not this story" is a negative pair with its cluster's reference;
* a page the coder split out of a cluster is a negative pair with that cluster's
  reference (unless the two are in one cluster again);
* a related suggestion the coder dismissed gives its links (pairs below τ across two
  clusters) as negative pairs.

Pages are numbered by their index in the run (or in the list of keys given), and
:meth:`Labelled.reindexed` moves the numbers onto another list of pages, e.g. the pages
``read_texts`` gives when the archive is read again for training.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.store import Project


@dataclass(slots=True)
class Labelled:
    """Pages (by key) with groups of near duplicates and pairs that are not.

    ``clusters`` are the clusters of two or more pages as they stand (a project's
    current clustering, hand edits included; a gold folder's clusters), the "before"
    of a preview of what re-running the detector would change.
    """

    keys: list[str]
    groups: list[list[int]] = field(default_factory=list)
    negatives: list[tuple[int, int]] = field(default_factory=list)
    clusters: list[list[int]] = field(default_factory=list)

    @property
    def positive_pairs(self) -> int:
        return sum(len(g) * (len(g) - 1) // 2 for g in self.groups)

    def describe(self) -> str:
        """One line for the person about to train, e.g. '12 checked clusters (85 pages),
        4 pairs kept apart'."""
        pages = sum(len(g) for g in self.groups)
        clusters = "cluster" if len(self.groups) == 1 else "clusters"
        apart = "pair" if len(self.negatives) == 1 else "pairs"
        return (f"{len(self.groups)} checked {clusters} ({pages} pages), "
                f"{len(self.negatives)} {apart} kept apart")

    def reindexed(self, keys: Sequence[str]) -> Labelled:
        """The same labels over ``keys`` (pages missing there are left out)."""
        where = {key: i for i, key in enumerate(keys)}
        new = [where.get(key) for key in self.keys]

        def moved(group: Sequence[int]) -> list[int]:
            return sorted(i for i in (new[p] for p in group) if i is not None)

        groups = [g for g in (moved(g) for g in self.groups) if g]
        negatives = sorted({(min(a, b), max(a, b)) for a, b in
                            ((new[x], new[y]) for x, y in self.negatives)
                            if a is not None and b is not None and a != b})
        clusters = [c for c in (moved(c) for c in self.clusters) if len(c) >= 2]
        return Labelled(list(keys), groups, negatives, clusters)


def labelled_from_gold(keys: Sequence[str]) -> Labelled:
    """Pages of a gold folder (keys like 'Adobe/a2.htm'): each first-level folder is a
    cluster; pages directly in the folder itself belong to none."""
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        folder, sep, _ = key.replace("\\", "/").partition("/")
        if sep:
            groups.setdefault(folder, []).append(i)
    ordered = [groups[name] for name in sorted(groups)]
    return Labelled(list(keys), ordered, [], [g for g in ordered if len(g) >= 2])


def labelled_from_project(project: Project, run_id: int | None = None) -> Labelled:
    """The coder's judgements in a run of the project (default: the current run).

    Reads the project file on a connection of its own that cannot write.
    """
    from workbench.store.access import readonly_uri
    from workbench.store.connection import connect_uri
    from workbench.store.errors import ProjectError

    if run_id is None:
        run = project.current_run()
        if run is None:
            raise ProjectError(f"{project.path} has no detection run yet: run one, code "
                               "some clusters, then train ANDD.")
        run_id = run.id
    conn = connect_uri(readonly_uri(project.path))
    try:
        return _read_labels(conn, run_id)
    finally:
        conn.close()


def _read_labels(conn: sqlite3.Connection, run_id: int) -> Labelled:
    from workbench.store.errors import ProjectError

    index: dict[int, int] = {}
    keys: list[str] = []
    for page_id, key in conn.execute(
            "SELECT r.page_id, p.key FROM run_pages r JOIN pages p ON p.id = r.page_id "
            "WHERE r.run_id = ? ORDER BY r.idx", (run_id,)):
        index[page_id] = len(keys)
        keys.append(key)
    if not keys:
        raise ProjectError(f"Run {run_id} of the project has no pages (or does not exist).")
    members: dict[int, list[tuple[int, bool, bool]]] = {}
    reference: dict[int, int] = {}
    for cluster_id, ref, page_id, excluded, tagged in conn.execute(
            """SELECT c.id, c.reference_page_id, m.page_id, m.excluded,
                      EXISTS (SELECT 1 FROM page_tags t WHERE t.page_id = m.page_id)
               FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id
               WHERE c.run_id = ? AND c.merged_into IS NULL""", (run_id,)):
        members.setdefault(cluster_id, []).append((page_id, bool(excluded), bool(tagged)))
        reference[cluster_id] = ref
    merged_into = {r[0] for r in conn.execute(
        "SELECT DISTINCT m.into_cluster FROM merges m JOIN clusters c ON c.id = m.into_cluster "
        "WHERE c.run_id = ?", (run_id,))}
    cluster_of = {page: cid for cid, rows in members.items() for page, _, _ in rows}
    groups, clusters, negatives = [], [], set()
    for cid, rows in sorted(members.items()):
        story = [index[page] for page, excluded, _ in rows if not excluded and page in index]
        if len(rows) >= 2:
            clusters.append(sorted(index[page] for page, _, _ in rows if page in index))
        coded = any(tagged and not excluded for _, excluded, tagged in rows)
        if story and (coded or cid in merged_into):
            groups.append(sorted(story))
        for page, excluded, _ in rows:
            if excluded:
                negatives.add((reference[cid], page))
    for from_cluster, page in conn.execute(
            "SELECT s.from_cluster, s.page_id FROM splits s JOIN clusters c "
            "ON c.id = s.from_cluster WHERE c.run_id = ?", (run_id,)):
        ref = conn.execute("SELECT reference_page_id FROM clusters WHERE id = ?",
                           (from_cluster,)).fetchone()[0]
        if cluster_of.get(ref) is None or cluster_of.get(ref) != cluster_of.get(page):
            negatives.add((ref, page))
    # Related suggestions the coder dismissed (workbench.store.coding.dismissals): pages of
    # one run kept apart by judgement, whatever clusters they are in now. Files from before
    # schema 13 have no such table (this connection never migrates).
    if conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'related_dismissals'").fetchone():
        negatives.update(conn.execute(
            "SELECT pa.id, pb.id FROM related_dismissals d JOIN pages pa ON pa.key = d.key_a "
            "JOIN pages pb ON pb.key = d.key_b"))
    pairs = sorted({(min(index[a], index[b]), max(index[a], index[b])) for a, b in negatives
                    if a in index and b in index and a != b})
    return Labelled(keys, groups, pairs, clusters)
