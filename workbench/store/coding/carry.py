"""Carrying the coder's decisions from the current run to a run that replaces it.

Every re-clustering (Calibrate ▸ Apply, Run Again, Use This Method, applying learned
weights) makes a new run whose clusters have new ids. What the coder decided is carried
over by page, the one identity both runs share:

* tags (given to a cluster or to a page) and page memos live on pages: they stay put;
* a cluster the coder split or merged by hand is kept as the coder left it: its pages
  leave the new clusters they fell into and form that cluster again (by the same split
  and merge steps, recorded under the re-clustering's action);
* a "not this story" mark goes with its page to the page's new cluster when that
  cluster holds pages of the story the mark was made against (elsewhere the clustering
  itself already keeps the page apart from that story);
* a cluster memo goes to the new cluster that holds the cluster's pages. When those
  pages are no longer exactly one cluster (the cluster split, or its pages were joined
  with others) a copy goes to each cluster holding them, and each copy is listed for
  the coder to review.

Anything that could not be carried one to one gets a row in ``carried`` (unreviewed)
until the coder marks it reviewed; a hand-kept cluster gets a reviewed row, so the next
re-clustering knows to keep it too. The run being replaced is not changed at all, so
undoing the re-clustering (one action) makes it current again with everything on it.

The lookups are by the pages of decided clusters only: a re-clustering of a million
pages with a few hundred memos and marks reads a few hundred clusters here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.store.coding import tagging
from workbench.store.errors import ProjectError
from workbench.store.runs import runs, summary


@dataclass(frozen=True, slots=True)
class CarriedItem:
    """One thing a re-clustering carried that the coder should look at again."""

    id: int
    kind: str  # memo | exception | hand
    cluster_id: int | None  # where it is now (None: nowhere in this run)
    from_cluster: int | None  # the cluster of the run before it was on
    note: str  # what happened, in the coder's words
    memo_text: str = ""  # a memo's text (kind memo)
    page_id: int | None = None  # the page a "not this story" mark is on (kind exception)


@dataclass(slots=True)
class CarryReport:
    """What one re-clustering carried (counts, for the window's status line)."""

    memos: int = 0
    exceptions: int = 0
    hand_clusters: int = 0


def replace_run(conn: sqlite3.Connection, action_id: int, old_run: int | None,
                new_run: int) -> CarryReport:
    """Carry the decisions made on ``old_run`` to ``new_run`` and make ``new_run`` current.

    Runs inside the re-clustering's action (``ActionLog.perform``), so every row it
    changes is recorded and the whole re-clustering is one undo step. The action log
    rebuilds the cluster summary of an action that changes the current run.
    """
    report = CarryReport()
    if old_run is not None and old_run != new_run:
        _keep_hand_clusters(conn, action_id, old_run, new_run, report)
        _carry_exceptions(conn, old_run, new_run, report)
        _carry_memos(conn, old_run, new_run, report)
    runs.make_current(conn, new_run, rebuild=False)
    return report


# ------------------------------------------------------------------ lookups
def _clusters_of(conn: sqlite3.Connection, run_id: int, pages: Iterable[int]) -> dict[int, int]:
    """page id -> the run's cluster holding it, for those of ``pages`` in one."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS carry_pages (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.carry_pages")
    conn.executemany("INSERT OR IGNORE INTO temp.carry_pages VALUES (?)", [(p,) for p in pages])
    # CROSS JOIN keeps SQLite to this order (the pages, their memberships, each one's
    # cluster): left to itself it read every cluster of the run first, 7 ms a call on
    # 20,000 pages and 60 s for Apply with 500 memos on 100,000.
    return dict(conn.execute(
        "SELECT m.page_id, m.cluster_id FROM temp.carry_pages p "
        "CROSS JOIN cluster_members m ON m.page_id = p.id "
        "CROSS JOIN clusters c ON c.id = m.cluster_id "
        "WHERE c.run_id = ? AND c.merged_into IS NULL", (run_id,)))


def _members(conn: sqlite3.Connection, cluster_id: int) -> list[tuple[int, bool]]:
    """(page id, marked "not this story") of each member, the reference first."""
    rows = conn.execute(
        "SELECT m.page_id, m.excluded FROM cluster_members m JOIN clusters c ON c.id = m.cluster_id "
        "WHERE m.cluster_id = ? ORDER BY m.page_id != c.reference_page_id, m.page_id",
        (cluster_id,))
    return [(page, bool(excluded)) for page, excluded in rows]


def _reference(conn: sqlite3.Connection, cluster_id: int) -> int:
    return int(conn.execute("SELECT reference_page_id FROM clusters WHERE id = ?",
                            (cluster_id,)).fetchone()[0])


def _note(conn: sqlite3.Connection, run_id: int, kind: str, note: str, *,
          cluster_id: int | None = None, from_cluster: int | None = None,
          memo_id: int | None = None, page_id: int | None = None,
          reviewed: bool = False) -> None:
    conn.execute(
        "INSERT INTO carried (run_id, kind, cluster_id, from_cluster, memo_id, page_id, note, "
        "reviewed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (run_id, kind, cluster_id, from_cluster, memo_id, page_id, note, int(reviewed)))


def _pages(n: int) -> str:
    return "1 page" if n == 1 else f"{n:,} pages"


# -------------------------------------------------------- hand splits, merges
def hand_clusters(conn: sqlite3.Connection, run_id: int) -> list[int]:
    """The run's clusters the coder split or merged by hand (or that were kept as such
    from the run before): a re-clustering keeps each as it is."""
    rows = conn.execute(
        """SELECT id FROM clusters WHERE run_id = :r AND merged_into IS NULL AND id IN (
               SELECT from_cluster FROM splits UNION SELECT to_cluster FROM splits
               UNION SELECT into_cluster FROM merges
               UNION SELECT cluster_id FROM carried WHERE run_id = :r AND kind = 'hand')
           ORDER BY id""", {"r": run_id})
    return [r[0] for r in rows]


def _keep_hand_clusters(conn: sqlite3.Connection, action_id: int, old_run: int, new_run: int,
                        report: CarryReport) -> None:
    # Hand clusters are disjoint, and each one ends as a cluster of its own pages only,
    # so keeping one never disturbs one kept before it.
    for hand in hand_clusters(conn, old_run):
        pages = [page for page, _ in _members(conn, hand)]  # the reference first
        where = _clusters_of(conn, new_run, pages)
        present = [p for p in pages if p in where]
        if not present:
            _note(conn, new_run, "hand", f"None of the {_pages(len(pages))} of cluster {hand}, "
                  "which you split or merged by hand, is in a cluster of this run.",
                  from_cluster=hand)
            continue
        pieces = []
        for container in dict.fromkeys(where[p] for p in present):
            part = [p for p in present if where[p] == container]
            if len(_members(conn, container)) > len(part):
                container = tagging.split(conn, action_id, container, part)
            pieces.append(container)
        kept = pieces[0] if len(pieces) == 1 else tagging.merge(conn, action_id, pieces, pieces[0])
        whole = len(present) == len(pages)
        note = (f"Cluster {hand}, which you split or merged by hand, is kept as you made it."
                if whole else
                f"Cluster {hand}, which you split or merged by hand, is kept as you made it, "
                f"but {_pages(len(pages) - len(present))} of it are in no cluster of this run.")
        _note(conn, new_run, "hand", note, cluster_id=kept, from_cluster=hand, reviewed=whole)
        report.hand_clusters += 1


# ------------------------------------------------------------- exceptions
def _carry_exceptions(conn: sqlite3.Connection, old_run: int, new_run: int,
                      report: CarryReport) -> None:
    marked: dict[int, list[int]] = {}
    for cluster_id, page in conn.execute(
            "SELECT m.cluster_id, m.page_id FROM cluster_members m CROSS JOIN clusters c "
            "ON c.id = m.cluster_id WHERE m.excluded AND c.run_id = ? ORDER BY 1, 2", (old_run,)):
        marked.setdefault(cluster_id, []).append(page)
    for old_cluster, excluded in marked.items():
        story = [p for p, out in _members(conn, old_cluster) if not out]
        where = _clusters_of(conn, new_run, [*story, *excluded])
        story_clusters = {where[p] for p in story if p in where}
        for page in excluded:
            cluster = where.get(page)
            if cluster is None or cluster not in story_clusters:
                continue  # the new clustering keeps the page apart from that story itself
            if _reference(conn, cluster) == page:
                _note(conn, new_run, "exception",
                      f"Page {page} was marked \"not this story\" in cluster {old_cluster}, but "
                      f"it is the reference of cluster {cluster} now, which holds pages of "
                      "that story: split it out or mark the other pages.",
                      cluster_id=cluster, from_cluster=old_cluster, page_id=page)
                continue
            conn.execute("UPDATE cluster_members SET excluded = 1 WHERE cluster_id = ? "
                         "AND page_id = ?", (cluster, page))
            report.exceptions += 1


# ------------------------------------------------------------------ memos
def _carry_memos(conn: sqlite3.Connection, old_run: int, new_run: int,
                 report: CarryReport) -> None:
    still_to_review = {r[0] for r in conn.execute(
        "SELECT memo_id FROM carried WHERE run_id = ? AND kind = 'memo' AND NOT reviewed "
        "AND memo_id IS NOT NULL", (old_run,))}
    memo_rows = conn.execute(
        "SELECT m.id, m.cluster_id, m.coder_id, m.created_at, m.updated_at, m.text FROM memos m "
        "CROSS JOIN clusters c ON c.id = m.cluster_id WHERE c.run_id = ? ORDER BY m.id",
        (old_run,)).fetchall()
    for memo_id, written_on, coder_id, created_at, updated_at, text in memo_rows:
        # A merged-away cluster's memo is the surviving cluster's (as in the export).
        old_cluster = tagging.surviving(conn, written_on)
        members = _members(conn, old_cluster)
        story = [p for p, out in members if not out] or [p for p, _ in members]
        where = _clusters_of(conn, new_run, [p for p, _ in members])
        targets = list(dict.fromkeys(where[p] for p in story if p in where))
        if not targets:
            _note(conn, new_run, "memo", f"The pages of cluster {old_cluster} are in no cluster "
                  "of this run, so its memo stays with the run before.",
                  from_cluster=old_cluster, memo_id=memo_id)
            continue
        old_pages = {p for p, _ in members}
        for target in targets:
            copy = conn.execute(
                "INSERT INTO memos (cluster_id, page_id, coder_id, created_at, updated_at, text) "
                "VALUES (?, NULL, ?, ?, ?, ?)",
                (target, coder_id, created_at, updated_at, text)).lastrowid
            report.memos += 1
            why = _why_not_one_to_one(conn, old_cluster, old_pages, target, len(targets))
            if why is None and memo_id in still_to_review:
                why = f"Carried from cluster {old_cluster}, and not reviewed there yet."
            if why is not None:
                _note(conn, new_run, "memo", why, cluster_id=target, from_cluster=old_cluster,
                      memo_id=copy)


def _why_not_one_to_one(conn: sqlite3.Connection, old_cluster: int, old_pages: set[int],
                        target: int, n_targets: int) -> str | None:
    """Why a memo's copy on ``target`` needs a look (None: the cluster is the same pages)."""
    if n_targets > 1:
        return (f"Cluster {old_cluster}'s pages now lie in {n_targets} clusters; "
                "its memo is on each of them.")
    new_pages = {p for p, _ in _members(conn, target)}
    if new_pages == old_pages:
        return None
    extra, gone = len(new_pages - old_pages), len(old_pages - new_pages)
    parts = ([f"{_pages(extra)} joined it"] if extra else []) + \
        ([f"{_pages(gone)} of it are elsewhere"] if gone else [])
    return f"Cluster {old_cluster}'s memo is on cluster {target}: {' and '.join(parts)}."


# ----------------------------------------------------------------- review
def review_list(conn: sqlite3.Connection) -> list[CarriedItem]:
    """What the re-clusterings that made the current run carried and the coder has not
    reviewed yet, oldest first (a memo copy deleted since drops off)."""
    run = summary.current_run(conn)
    if run is None:
        return []
    rows = conn.execute(
        "SELECT c.id, c.kind, c.cluster_id, c.from_cluster, c.note, coalesce(m.text, ''), "
        "c.page_id FROM carried c LEFT JOIN memos m ON m.id = c.memo_id "
        "WHERE c.run_id = ? AND NOT c.reviewed AND (c.memo_id IS NULL OR m.id IS NOT NULL) "
        "ORDER BY c.id", (run,))
    return [CarriedItem(*r) for r in rows]


def mark_reviewed(conn: sqlite3.Connection, item_ids: Sequence[int]) -> None:
    """The coder has looked at these items: they leave the review list."""
    ids = list(dict.fromkeys(item_ids))
    if not ids:
        raise ProjectError("Choose at least one carried item to mark as reviewed.")
    marks = ", ".join("?" * len(ids))
    found = {r[0] for r in conn.execute(f"SELECT id FROM carried WHERE id IN ({marks})", ids)}
    missing = sorted(set(ids) - found)
    if missing:
        raise ProjectError(f"No such carried item: {missing[0]}")
    conn.execute(f"UPDATE carried SET reviewed = 1 WHERE id IN ({marks}) AND NOT reviewed", ids)
