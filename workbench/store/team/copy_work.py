"""Reading a coder's copy: who it is for, and everything its coder did in it.

The coder's actions are the copy's actions logged after it was handed out and still
done (an undone one is no decision). Their recorded changes say which pages' tags,
which "not this story" marks, which memos and which dismissed related suggestions the
coder touched; the copy's state as it is now says what the coder decided there. What a
coder undid after it was brought in is simply missing here: bring-in takes it back.
Splits and merges come from the copy's own ``splits`` and ``merges`` rows (undo removes
them). Clusters are named by their reference page, which means the same story in the
lead's project and in the copy.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from workbench.store import access, schema
from workbench.store.coding import changelog
from workbench.store.connection import connect_uri
from workbench.store.errors import ProjectError
from workbench.store.runs import summary
from workbench.store.team.blind_copy import clusters_handed_out, handed_out_after
from workbench.store.team.identity import CopyStamp, copy_stamp


@dataclass(frozen=True, slots=True)
class CopyAction:
    id: int
    kind: str
    description: str
    created_at: str


@dataclass(frozen=True, slots=True)
class CopyTag:
    id: int
    guid: str
    name: str
    description: str
    colour: str
    shortcut: str | None
    parent_id: int | None  # the copy's tag id of its parent


@dataclass(frozen=True, slots=True)
class CopyMemo:
    id: int
    cluster_ref: int | None  # the reference page of the memo's cluster (None: page memo)
    page_id: int | None
    created_at: str
    updated_at: str
    text: str


@dataclass(slots=True)
class CopyWork:
    stamp: CopyStamp
    actions: list[CopyAction] = field(default_factory=list)
    tags: dict[int, CopyTag] = field(default_factory=dict)  # copy tag id -> tag
    page_codes: dict[int, dict[int, str]] = field(default_factory=dict)  # page -> tag -> when
    exceptions: dict[int, tuple[int, bool, str]] = field(default_factory=dict)  # page -> ...
    memos: list[CopyMemo] = field(default_factory=list)
    # Related suggestions dismissed (workbench.store.coding.dismissals): the two pages'
    # keys, smaller first -> when
    dismissals: dict[tuple[str, str], str] = field(default_factory=dict)
    # action id -> (the lead's cluster split, None: one made in the copy; the reference
    # page of the cluster split; the pages moved out)
    splits: dict[int, tuple[int | None, int, list[int]]] = field(default_factory=dict)
    merges: dict[int, list[int]] = field(default_factory=dict)  # action id -> ref pages, into 1st
    unit_pages: set[int] = field(default_factory=set)  # a page of each cluster touched


def read_copy(path: Path) -> CopyWork:
    """Everything the coder did in the copy at ``path`` (read-only; nothing written)."""
    if not path.is_file():
        raise ProjectError(f"{path} does not exist or is not a file.")
    try:
        conn = connect_uri(access.readonly_uri(path))
    except sqlite3.Error as exc:
        raise ProjectError(f"Cannot read {path}: {exc}") from exc
    try:
        version = schema.check_openable(conn, str(path))
        if version < schema.CURRENT_VERSION:
            raise ProjectError(f"{path} was saved by an older SpotSigs Workbench; open it once "
                               "in this version, then bring it in.")
        stamp = copy_stamp(conn)
        if stamp is None:
            raise ProjectError(f"{path} is not a coder's copy (File ▸ Hand Out to Coders… "
                               "makes one); only a copy handed out from this project can "
                               "be brought in.")
        if summary.current_run(conn) != stamp.run_id:
            raise ProjectError(f"In {path}, detection was run again after the copy was handed "
                               "out, so its clusters are not the project's. Nothing was "
                               "brought in.")
        return _work(conn, stamp)
    except sqlite3.Error as exc:
        raise ProjectError(f"Cannot read {path}: {exc}") from exc
    finally:
        conn.close()


def _work(conn: sqlite3.Connection, stamp: CopyStamp) -> CopyWork:
    after = handed_out_after(conn)
    coder = conn.execute("SELECT id FROM coders WHERE name = ?", (stamp.coder,)).fetchone()
    work = CopyWork(stamp)
    work.tags = {r[0]: CopyTag(*r) for r in conn.execute(
        "SELECT id, guid, name, description, colour, shortcut, parent_id FROM tags")}
    pages: set[int] = set()
    members: set[tuple[int, int]] = set()
    memo_ids: set[int] = set()
    dismissed: set[tuple[str, str]] = set()
    for action_id, kind, description, created in conn.execute(
            "SELECT id, kind, description, created_at FROM actions WHERE id > ? "
            "AND state = 'done' ORDER BY id", (after,)).fetchall():
        work.actions.append(CopyAction(action_id, kind, description, created))
        for group in changelog.load(conn, action_id):
            if group.table == "page_tags":
                pages.update(img["page_id"] for img in group.images())
            elif group.table == "memos":
                memo_ids.update(img["id"] for img in group.images())
            elif group.table == "cluster_members" and "excluded" in group.columns:
                members.update((img["cluster_id"], img["page_id"]) for img in group.images())
            elif group.table == "related_dismissals":
                dismissed.update((img["key_a"], img["key_b"]) for img in group.images())
    for page in sorted(pages):
        work.page_codes[page] = {t: when for t, when in conn.execute(
            "SELECT tag_id, tagged_at FROM page_tags WHERE page_id = ?", (page,))}
    for cluster, page in sorted(members):
        row = conn.execute("SELECT excluded FROM cluster_members WHERE cluster_id = ? "
                           "AND page_id = ?", (cluster, page)).fetchone()
        if row is not None:
            work.exceptions[page] = (_reference(conn, cluster), bool(row[0]), stamp.handed_out_at)
    if coder is not None and memo_ids:
        marks = ",".join("?" * len(memo_ids))
        for memo_id, cluster, page, created, updated, text in conn.execute(
                "SELECT id, cluster_id, page_id, created_at, updated_at, text FROM memos "
                f"WHERE coder_id = ? AND id IN ({marks}) ORDER BY id", (coder[0], *memo_ids)):
            ref = _reference(conn, cluster) if cluster is not None else None
            work.memos.append(CopyMemo(memo_id, ref, page, created, updated, text))
    for key_a, key_b in sorted(dismissed):
        row = conn.execute("SELECT dismissed_at FROM related_dismissals WHERE key_a = ? "
                           "AND key_b = ?", (key_a, key_b)).fetchone()
        if row is not None:  # else dismissed and taken back (a later action's undo)
            work.dismissals[(key_a, key_b)] = row[0]
    upto = clusters_handed_out(conn)
    for action_id, source, page in conn.execute(
            "SELECT action_id, from_cluster, page_id FROM splits WHERE action_id > ? ORDER BY id",
            (after,)).fetchall():
        split = work.splits.setdefault(
            action_id, (source if source <= upto else None, _reference(conn, source), []))
        split[2].append(page)
    for action_id, into, source in conn.execute(
            "SELECT action_id, into_cluster, from_cluster FROM merges WHERE action_id > ? "
            "ORDER BY id", (after,)):
        refs = work.merges.setdefault(action_id, [_reference(conn, into)])
        refs.append(_reference(conn, source))
    work.unit_pages = pages | set(work.exceptions) | {
        p for m in work.memos for p in (m.cluster_ref, m.page_id) if p is not None}
    return work


def _reference(conn: sqlite3.Connection, cluster_id: int) -> int:
    return int(conn.execute("SELECT reference_page_id FROM clusters WHERE id = ?",
                            (cluster_id,)).fetchone()[0])
