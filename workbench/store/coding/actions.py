"""User actions: one transaction each, logged, undoable and redoable.

The log is a linear stack kept in the file: actions are ``done``, ``undone``
(available to redo) or ``discarded`` (undone, then overtaken by a new action).
Because it lives in the project file, undo works after closing and reopening.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from workbench.store.clock import utc_now
from workbench.store.coding import changelog, recorder, replay
from workbench.store.coding.changelog import ChangeGroup
from workbench.store.connection import WriteLane
from workbench.store.runs import summary

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ActionInfo:
    id: int
    kind: str
    description: str
    coder: str | None
    created_at: str
    state: str  # done | undone | discarded


class _NothingChanged(Exception):
    """Raised inside an action's transaction to roll back an empty action."""


def touched_clusters(conn: sqlite3.Connection,
                     groups: Sequence[ChangeGroup]) -> tuple[set[int], set[int]]:
    """Clusters whose summary an action's changes affect.

    Returns (clusters whose membership, reference, flags or memos changed;
    current-run clusters of pages whose tags changed, as they are now).
    An update's images hold its key and changed columns only, which is all the
    summary depends on: a memo whose text changed leaves the summary as it was.
    """
    structure: set[int] = set()
    pages: set[int] = set()
    for group in groups:
        if group.table in ("cluster_members", "memos", "clusters", "page_tags"):
            column = {"clusters": "id", "page_tags": "page_id"}.get(group.table, "cluster_id")
            found = {img[column] for img in group.images() if img.get(column) is not None}
            (pages if group.table == "page_tags" else structure).update(found)
    return structure, summary.clusters_of_pages(conn, pages) if pages else set()


class ActionLog:
    def __init__(self, lane: WriteLane) -> None:
        self._lane = lane

    def perform(
        self, kind: str, description: str, coder_id: int,
        body: Callable[[sqlite3.Connection, int], T],
        fold_into: Callable[[sqlite3.Connection], int | None] | None = None,
    ) -> tuple[int | None, T | None]:
        """Run ``body(conn, action_id)`` as one logged, undoable transaction.

        Returns (action id, body's result), or (None, None) when the body
        changed nothing: an empty action would only be a confusing no-op undo
        step, and rolling it back also keeps the redo stack intact.

        ``fold_into`` may name, inside the transaction, an action to add these changes
        to instead of logging a new one (it must be the newest action, and done): one
        undo step then takes both back. Folded changes that leave nothing changed (a
        memo added, then emptied) drop that action from the log.
        """
        try:
            with self._lane.transaction() as conn:
                target = fold_into(conn) if fold_into is not None else None
                if target is not None:
                    return target, self._fold(conn, target, body)
                # Nothing can redo a discarded action: its changes only take up room.
                conn.execute("DELETE FROM action_changes WHERE action_id IN "
                             "(SELECT id FROM actions WHERE state = 'undone')")
                conn.execute(
                    "UPDATE actions SET state = 'discarded', state_changed_at = ? "
                    "WHERE state = 'undone'",
                    (utc_now(),),
                )
                action_id = conn.execute(
                    "INSERT INTO actions (kind, description, coder_id, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (kind, description, coder_id, utc_now()),
                ).lastrowid
                assert action_id is not None
                with recorder.recording(conn, action_id):
                    result = body(conn, action_id)
                groups = recorder.take(conn)
                if not groups:
                    raise _NothingChanged
                changelog.store(conn, action_id, groups)
                if changes_run(groups):
                    summary.rebuild(conn)
                else:
                    summary.refresh(conn, *touched_clusters(conn, groups))
                return action_id, result
        except _NothingChanged:
            return None, None

    @staticmethod
    def _fold(conn: sqlite3.Connection, action_id: int,
              body: Callable[[sqlite3.Connection, int], T]) -> T:
        with recorder.recording(conn, action_id):
            result = body(conn, action_id)
        groups = recorder.take(conn)
        if not groups:
            raise _NothingChanged
        joined = changelog.joined(changelog.load(conn, action_id), groups)
        if changelog.leaves_nothing(joined):
            conn.execute("DELETE FROM action_changes WHERE action_id = ?", (action_id,))
            conn.execute("DELETE FROM actions WHERE id = ?", (action_id,))
        else:
            changelog.store(conn, action_id, joined)
        summary.refresh(conn, *touched_clusters(conn, groups))
        return result

    def undo(self) -> int | None:
        """Undo the newest done action the coder can see (:func:`undoable`); return its
        id, or None if there is none."""
        with self._lane.transaction() as conn:
            action_id = undoable(conn)
            if action_id is None:
                return None
            self._flip(conn, action_id, backwards=True)
            return action_id

    def redo(self) -> int | None:
        """Redo the oldest undone action the coder can see (:func:`redoable`); return its
        id, or None if there is none."""
        with self._lane.transaction() as conn:
            action_id = redoable(conn)
            if action_id is None:
                return None
            self._flip(conn, action_id, backwards=False)
            return action_id

    @staticmethod
    def _flip(conn: sqlite3.Connection, action_id: int, *, backwards: bool) -> None:
        # Summaries of clusters touched before *and* after replay: an undone
        # split's new cluster must lose its row, the old one regain members.
        groups = changelog.load(conn, action_id)
        if changes_run(groups):  # a re-clustering: another run's clusters are shown
            replay.replay(conn, action_id, groups, backwards=backwards)
            conn.execute("UPDATE actions SET state = ?, state_changed_at = ? WHERE id = ?",
                         ("undone" if backwards else "done", utc_now(), action_id))
            summary.rebuild(conn)
            return
        structure, tagged = touched_clusters(conn, groups)
        replay.replay(conn, action_id, groups, backwards=backwards)
        conn.execute(
            "UPDATE actions SET state = ?, state_changed_at = ? WHERE id = ?",
            ("undone" if backwards else "done", utc_now(), action_id),
        )
        if structure:
            # Membership moved: tagged pages may now sit in other clusters.
            structure2, tagged2 = touched_clusters(conn, groups)
            structure |= structure2
            tagged |= tagged2
        summary.refresh(conn, structure, tagged)


def changes_run(groups: Sequence[ChangeGroup]) -> bool:
    """Whether an action changed which run is current (a re-clustering)."""
    return any(g.table == "meta" for g in groups)


def _ids_in(conn: sqlite3.Connection, sql: str, ids: set[int],
            params: Sequence[object] = ()) -> set[int]:
    """What ``sql`` (``@IDS@``: the list of ``ids``) selects, asked in chunks under
    SQLite's limit of parameters."""
    wanted = sorted(ids)
    found: set[int] = set()
    for start in range(0, len(wanted), 30_000):
        chunk = wanted[start:start + 30_000]
        found.update(r[0] for r in conn.execute(
            sql.replace("@IDS@", ",".join("?" * len(chunk))), (*params, *chunk)))
    return found


def shows(conn: sqlite3.Connection, groups: Sequence[ChangeGroup], run: int | None) -> bool:
    """Whether undoing (or redoing) these changes acts only on what the coder can see: clusters
    of the current run ``run`` and what lies on them (pages, tags and the codebook are
    always seen). A re-clustering counts as seen: undoing it shows the run it replaced."""
    if changes_run(groups):
        return True
    clusters: set[int] = set()
    memos: set[int] = set()
    carried: set[int] = set()
    for group in groups:
        for img in group.images() if group.table in ("clusters", "cluster_members", "memos",
                                                     "carried") else ():
            if group.table == "clusters":
                clusters.add(img["id"])
            elif group.table == "cluster_members":
                clusters.add(img["cluster_id"])
            elif group.table == "carried":
                carried.add(img["id"])
            elif img.get("cluster_id") is not None:
                clusters.add(img["cluster_id"])
            elif "cluster_id" not in img:  # an edit's image names the memo only
                memos.add(img["id"])
    if memos:
        if memos != _ids_in(conn, "SELECT id FROM memos WHERE id IN (@IDS@)", memos):
            return False  # gone, though the action that changed it is done
        clusters |= _ids_in(conn, "SELECT cluster_id FROM memos WHERE cluster_id IS NOT NULL "
                            "AND id IN (@IDS@)", memos)
    # Only rows that exist can be elsewhere: a cluster the action makes (a split's, on
    # redo) exists only once it is replayed, in the run of the cluster it came from.
    return not (_ids_in(conn, "SELECT id FROM carried WHERE run_id IS NOT ? AND id IN (@IDS@)",
                        carried, (run,))
                or _ids_in(conn, "SELECT id FROM clusters WHERE run_id IS NOT ? "
                           "AND id IN (@IDS@)", clusters, (run,)))


def undoable(conn: sqlite3.Connection) -> int | None:
    """The newest done action whose undo acts only on what the coder can see.

    Every re-clustering is an action, so undoing goes back through it before it reaches
    anything done on the run before. A run saved by an older version was no action: the
    coding done on the run it replaced is skipped (left done, never applied to clusters
    no longer shown), and undo goes on to the newest step the coder can see.
    """
    return _first_shown(conn, "state = 'done' ORDER BY id DESC")


def redoable(conn: sqlite3.Connection) -> int | None:
    """The oldest undone action whose redo acts only on what the coder can see (see
    :func:`undoable`)."""
    return _first_shown(conn, "state = 'undone' ORDER BY id ASC")


def _first_shown(conn: sqlite3.Connection, where_order: str) -> int | None:
    run = summary.current_run(conn)
    for (action_id,) in conn.execute(f"SELECT id FROM actions WHERE {where_order}"):
        if shows(conn, changelog.load(conn, action_id), run):
            return int(action_id)
    return None


def settle_unreachable(conn: sqlite3.Connection) -> int:
    """Discard the done and undone actions on clusters of runs no longer current, which
    runs saved outside an action (before schema 11) left behind: nothing can bring their
    clusters back, so undo and redo would only pass them by, each time. Returns how many."""
    run = summary.current_run(conn)
    stale = [action_id for (action_id,) in conn.execute(
        "SELECT id FROM actions WHERE state IN ('done', 'undone') ORDER BY id").fetchall()
        if not shows(conn, changelog.load(conn, action_id), run)]
    for action_id in stale:
        conn.execute("UPDATE actions SET state = 'discarded', state_changed_at = ? WHERE id = ?",
                     (utc_now(), action_id))
        conn.execute("DELETE FROM action_changes WHERE action_id = ?", (action_id,))
    return len(stale)


def clusters_of_action(conn: sqlite3.Connection, action_id: int) -> list[int]:
    """Current-run clusters an action changed, as they are now (for the window to show
    what an undo or redo did); clusters the action's undo removed are left out."""
    structure, tagged = touched_clusters(conn, changelog.load(conn, action_id))
    wanted = sorted(structure | tagged)
    if not wanted:
        return []
    run = summary.current_run(conn)
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(f"SELECT id FROM clusters WHERE run_id = ? AND id IN ({marks})",
                        (run, *wanted))
    return sorted(r[0] for r in rows)


def next_undo(conn: sqlite3.Connection) -> ActionInfo | None:
    """The action :meth:`ActionLog.undo` would revert (see :func:`undoable`)."""
    action_id = undoable(conn)
    return None if action_id is None else _one(conn, f"a.id = {int(action_id)}")


def next_redo(conn: sqlite3.Connection) -> ActionInfo | None:
    """The action :meth:`ActionLog.redo` would repeat (see :func:`redoable`)."""
    action_id = redoable(conn)
    return None if action_id is None else _one(conn, f"a.id = {int(action_id)}")


def history(conn: sqlite3.Connection, limit: int = 100) -> list[ActionInfo]:
    """Newest first, including undone and discarded actions."""
    rows = conn.execute(
        "SELECT a.id, a.kind, a.description, c.name, a.created_at, a.state FROM actions a "
        "LEFT JOIN coders c ON c.id = a.coder_id ORDER BY a.id DESC LIMIT ?",
        (limit,),
    )
    return [ActionInfo(*r) for r in rows]


def _one(conn: sqlite3.Connection, where_order: str) -> ActionInfo | None:
    row = conn.execute(
        "SELECT a.id, a.kind, a.description, c.name, a.created_at, a.state FROM actions a "
        f"LEFT JOIN coders c ON c.id = a.coder_id WHERE {where_order} LIMIT 1"
    ).fetchone()
    return ActionInfo(*row) if row else None
