"""The stored form of one action's row changes: compact, and exact to the bit.

An action's changes are a sequence of groups, each a run of consecutive changes of one
kind to one table (:class:`ChangeGroup`). Only what undo and redo need is kept:

* an insert keeps the new row, a delete the old row (all columns: they must come back);
* an update keeps the row's key as it was and, for just the columns that changed, the
  values before and after (a split that takes a cluster's reference out changes the
  similarity of every other member, and nothing else of them).

The groups are written as JSON (Python's float repr is the shortest text that reads
back as the same double, unlike SQLite's 15-digit rendering) and deflated: a change
repeats its table's keys and values (the same cluster, tag, coder and time on every
row of a tag action). Taking the reference out of a 200-page cluster logged 35 KB of
row images; now 4.8 KB, nearly all of it the changed doubles themselves.

One row per action in ``action_changes``; open it with
``json.loads(zlib.decompress(data))``: ``{"v": 1, "groups": [[table, op, columns,
rows], ...]}``.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# The columns that identify a row of each table a user action may change.
KEYS: dict[str, tuple[str, ...]] = {
    "tags": ("id",),
    "page_tags": ("page_id", "tag_id"),
    "clusters": ("id",),
    "cluster_members": ("cluster_id", "page_id"),
    "memos": ("id",),
    "splits": ("id",),
    "merges": ("id",),
    # A re-clustering is an action: it changes which run is current (the ``current_run``
    # row), and what it carried over for review (workbench.store.coding.carry).
    "meta": ("key",),
    "carried": ("id",),
    # Team coding (schema 12, workbench.store.team): bringing a coder's work in, samples
    # and settled disagreements are undoable actions too.
    "coder_codes": ("coder_id", "page_id", "tag_id"),
    "coder_exceptions": ("coder_id", "cluster_id", "page_id"),
    "team_imports": ("copy_id", "kind", "source_id"),
    "samples": ("id",),
    "sample_members": ("sample_id", "cluster_id"),
    "settlements": ("cluster_id",),
    # Related suggestions the coder dismissed (schema 13, workbench.store.coding.dismissals).
    "related_dismissals": ("key_a", "key_b"),
}

FORMAT = 1
_LEVEL = 6  # zlib: 9 saves under 2 % more here at twice the time


@dataclass(slots=True)
class ChangeGroup:
    """Consecutive changes of one kind (``op``: I, U or D) to one table.

    I and D: ``columns`` are all the columns stored, each row their values.
    U: ``columns`` are the columns that changed; each row is the key as it was, then
    those columns' values before, then after.
    """

    table: str
    op: str
    columns: tuple[str, ...]
    rows: list[list[Any]] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, ...]:
        return KEYS[self.table]

    def updates(self) -> Iterator[tuple[list[Any], list[Any], list[Any], list[Any]]]:
        """Of a U group: (key before, values before, key after, values after) per row."""
        k, n = len(self.key), len(self.columns)
        for row in self.rows:
            key_before, before, after = row[:k], row[k:k + n], row[k + n:]
            changed = dict(zip(self.columns, after, strict=True))
            key_after = [changed.get(c, v) for c, v in zip(self.key, key_before, strict=True)]
            yield key_before, before, key_after, after

    def images(self) -> Iterator[dict[str, Any]]:
        """Every value the group holds by column, the key included (old and new key of
        an update), for finding what an action touched."""
        if self.op != "U":
            for row in self.rows:
                yield dict(zip(self.columns, row, strict=True))
            return
        for key_before, before, key_after, after in self.updates():
            yield dict(zip(self.key, key_before, strict=True)) | dict(
                zip(self.columns, before, strict=True))
            yield dict(zip(self.key, key_after, strict=True)) | dict(
                zip(self.columns, after, strict=True))


class Builder:
    """Collects changes in order, one row image at a time, into groups."""

    def __init__(self) -> None:
        self.groups: list[ChangeGroup] = []

    def _group(self, table: str, op: str, columns: tuple[str, ...]) -> ChangeGroup:
        last = self.groups[-1] if self.groups else None
        if last is None or (last.table, last.op, last.columns) != (table, op, columns):
            last = ChangeGroup(table, op, columns)
            self.groups.append(last)
        return last

    def insert(self, table: str, columns: Sequence[str], values: Sequence[Any]) -> None:
        self._group(table, "I", tuple(columns)).rows.append(list(values))

    def delete(self, table: str, columns: Sequence[str], values: Sequence[Any]) -> None:
        self._group(table, "D", tuple(columns)).rows.append(list(values))

    def update(self, table: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        """A row as it was and as it became; nothing is kept when no column differs."""
        changed = tuple(c for c in after if c not in before or not _same(before[c], after[c]))
        if not changed:
            return
        key = [before[k] for k in KEYS[table]]
        self._group(table, "U", changed).rows.append(
            [*key, *(before.get(c) for c in changed), *(after[c] for c in changed)])


def joined(first: Sequence[ChangeGroup], then: Sequence[ChangeGroup]) -> list[ChangeGroup]:
    """The changes of two actions in a row as the changes of one (a memo typed in several
    pauses is one undo step). A change to the row the change just before it made is
    folded into that one: an insert then an update is the insert of the row as it became,
    two updates one, an update then a delete the delete of the row as it was, an insert
    then a delete nothing. So a memo saved forty times logs its text once or twice, and
    every row an action logs is one it inserted, updated or deleted."""
    builder = Builder()
    for group in [*first, *then]:
        for row in group.rows:
            _append(builder, group, list(row))
    return builder.groups


def _key_of(group: ChangeGroup, row: list[Any]) -> list[Any]:
    if group.op == "U":
        return row[:len(group.key)]
    return [row[group.columns.index(c)] for c in group.key]


def _append(builder: Builder, group: ChangeGroup, row: list[Any]) -> None:
    last = builder.groups[-1] if builder.groups else None
    if (last is None or last.table != group.table or not last.rows
            or _key_of(last, last.rows[-1]) != _key_of(group, row)
            or group.op == "I" or set(group.key) & set(group.columns if group.op == "U" else ())
            or set(last.key) & set(last.columns if last.op == "U" else ())):
        builder._group(group.table, group.op, group.columns).rows.append(row)
        return
    prev = last.rows[-1]
    k, n = len(group.key), len(group.columns)
    if group.op == "U" and last.op == "I" and set(group.columns) <= set(last.columns):
        for column, value in zip(group.columns, row[k + n:], strict=True):
            prev[last.columns.index(column)] = value
    elif group.op == "U" and last.op == "U" and last.columns == group.columns:
        last.rows[-1] = [*row[:k], *prev[k:k + n], *row[k + n:]]
    elif group.op == "D" and last.op == "I" and last.columns == group.columns:
        _drop_last(builder, last)
    elif group.op == "D" and last.op == "U" and set(last.columns) <= set(group.columns):
        m = len(last.columns)
        before = dict(zip(last.columns, prev[k:k + m], strict=True))
        _drop_last(builder, last)
        _append(builder, group, [before.get(c, v) for c, v in zip(group.columns, row,
                                                                  strict=True)])
    else:
        builder._group(group.table, group.op, group.columns).rows.append(row)


def _drop_last(builder: Builder, group: ChangeGroup) -> None:
    group.rows.pop()
    if not group.rows:
        builder.groups.remove(group)


def leaves_nothing(groups: Sequence[ChangeGroup]) -> bool:
    """True when there are none, or every row the changes touch was inserted by them first
    and deleted by them last (a memo added, edited, then emptied again): undoing them
    would change nothing, so they are no undo step."""
    first: dict[tuple[str, tuple[Any, ...]], str] = {}
    last: dict[tuple[str, tuple[Any, ...]], str] = {}
    for group in groups:
        if group.op == "U":
            keys = [tuple(before) for before, _b, _k, _a in group.updates()]
        else:
            at = [group.columns.index(c) for c in group.key]
            keys = [tuple(row[i] for i in at) for row in group.rows]
        for key in keys:
            first.setdefault((group.table, key), group.op)
            last[(group.table, key)] = group.op
    return all(op == "I" for op in first.values()) and all(op == "D" for op in last.values())


def _same(a: Any, b: Any) -> bool:
    # 1 and 1.0 are different values to SQLite's typeof(), and to undo.
    return type(a) is type(b) and a == b


def encode(groups: Sequence[ChangeGroup]) -> bytes:
    doc = {"v": FORMAT, "groups": [[g.table, g.op, list(g.columns), g.rows] for g in groups]}
    return zlib.compress(json.dumps(doc, separators=(",", ":")).encode("utf-8"), _LEVEL)


def decode(data: bytes) -> list[ChangeGroup]:
    doc = json.loads(zlib.decompress(data))
    if doc.get("v") != FORMAT:
        raise ValueError(f"undo log entry of unknown format {doc.get('v')!r}")
    return [ChangeGroup(t, op, tuple(cols), rows) for t, op, cols, rows in doc["groups"]]


def store(conn: sqlite3.Connection, action_id: int, groups: Sequence[ChangeGroup]) -> None:
    """Keep an action's changes (replacing what it had: an action folded into)."""
    conn.execute("INSERT OR REPLACE INTO action_changes (action_id, data) VALUES (?, ?)",
                 (action_id, encode(groups)))


def load(conn: sqlite3.Connection, action_id: int) -> list[ChangeGroup]:
    row = conn.execute("SELECT data FROM action_changes WHERE action_id = ?",
                       (action_id,)).fetchone()
    return decode(row[0]) if row else []


def from_json_images(rows: Iterable[tuple[str, str, str | None, str | None]]) -> list[ChangeGroup]:
    """Groups from the row images schema versions 1 to 6 logged (one ``changes`` row
    per changed row: table, op, JSON before, JSON after), for the migration."""
    builder = Builder()
    for table, op, before_json, after_json in rows:
        before = json.loads(before_json) if before_json else {}
        after = json.loads(after_json) if after_json else {}
        if op == "I":
            builder.insert(table, list(after), list(after.values()))
        elif op == "D":
            builder.delete(table, list(before), list(before.values()))
        else:
            builder.update(table, before, after)
    return builder.groups
