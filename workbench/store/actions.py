"""User actions: one transaction each, logged, undoable and redoable.

The log is a linear stack kept in the file: actions are ``done``, ``undone``
(available to redo) or ``discarded`` (undone, then overtaken by a new action).
Because it lives in the project file, undo works after closing and reopening.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from workbench.store import recorder, replay, summary
from workbench.store.clock import utc_now
from workbench.store.connection import WriteLane

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


def touched_clusters(conn: sqlite3.Connection, action_id: int) -> tuple[set[int], set[int]]:
    """Clusters whose summary an action's changes affect.

    Returns (clusters whose membership, reference, flags or memos changed;
    current-run clusters of pages whose tags changed).
    """
    direct = conn.execute(
        """
        SELECT json_extract(img, '$.cluster_id') FROM (
            SELECT before AS img FROM changes WHERE action_id = :a
                AND tbl IN ('cluster_members', 'memos')
            UNION ALL SELECT after FROM changes WHERE action_id = :a
                AND tbl IN ('cluster_members', 'memos'))
        UNION SELECT json_extract(coalesce(after, before), '$.id') FROM changes
            WHERE action_id = :a AND tbl = 'clusters'
        """,
        {"a": action_id},
    )
    structure = {r[0] for r in direct if r[0] is not None}
    run = summary.current_run(conn)
    via_pages = conn.execute(
        """
        SELECT DISTINCT m.cluster_id FROM changes ch
        JOIN cluster_members m
            ON m.page_id = json_extract(coalesce(ch.after, ch.before), '$.page_id')
        JOIN clusters c ON c.id = m.cluster_id AND c.run_id = :r
        WHERE ch.action_id = :a AND ch.tbl = 'page_tags'
        """,
        {"a": action_id, "r": run},
    )
    return structure, {r[0] for r in via_pages}


class ActionLog:
    def __init__(self, lane: WriteLane) -> None:
        self._lane = lane

    def perform(
        self, kind: str, description: str, coder_id: int,
        body: Callable[[sqlite3.Connection, int], T],
    ) -> tuple[int | None, T | None]:
        """Run ``body(conn, action_id)`` as one logged, undoable transaction.

        Returns (action id, body's result), or (None, None) when the body
        changed nothing: an empty action would only be a confusing no-op undo
        step, and rolling it back also keeps the redo stack intact.
        """
        try:
            with self._lane.transaction() as conn:
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
                if conn.execute(
                    "SELECT 1 FROM changes WHERE action_id = ? LIMIT 1", (action_id,)
                ).fetchone() is None:
                    raise _NothingChanged
                summary.refresh(conn, *touched_clusters(conn, action_id))
                return action_id, result
        except _NothingChanged:
            return None, None

    def undo(self) -> int | None:
        """Undo the newest done action; return its id, or None if there is none."""
        with self._lane.transaction() as conn:
            row = conn.execute(
                "SELECT id FROM actions WHERE state = 'done' ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            self._flip(conn, row[0], backwards=True)
            return int(row[0])

    def redo(self) -> int | None:
        """Redo the oldest undone action; return its id, or None if there is none."""
        with self._lane.transaction() as conn:
            row = conn.execute(
                "SELECT id FROM actions WHERE state = 'undone' ORDER BY id ASC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            self._flip(conn, row[0], backwards=False)
            return int(row[0])

    @staticmethod
    def _flip(conn: sqlite3.Connection, action_id: int, *, backwards: bool) -> None:
        # Summaries of clusters touched before *and* after replay: an undone
        # split's new cluster must lose its row, the old one regain members.
        structure, tagged = touched_clusters(conn, action_id)
        replay.replay(conn, action_id, backwards=backwards)
        conn.execute(
            "UPDATE actions SET state = ?, state_changed_at = ? WHERE id = ?",
            ("undone" if backwards else "done", utc_now(), action_id),
        )
        if structure:
            # Membership moved: tagged pages may now sit in other clusters.
            structure2, tagged2 = touched_clusters(conn, action_id)
            structure |= structure2
            tagged |= tagged2
        summary.refresh(conn, structure, tagged)


def next_undo(conn: sqlite3.Connection) -> ActionInfo | None:
    return _one(conn, "state = 'done' ORDER BY a.id DESC")


def next_redo(conn: sqlite3.Connection) -> ActionInfo | None:
    return _one(conn, "state = 'undone' ORDER BY a.id ASC")


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
