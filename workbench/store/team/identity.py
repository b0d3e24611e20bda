"""Who a project is, and the stamp a coder's copy carries.

A lead project gets a UUID (``meta.project_uuid``) the first time it hands out work. A
copy carries, under ``meta.team_copy``, the lead's UUID, the detection run it was made
for, a fingerprint of the codebook, the coder it is for, the clusters assigned (None:
all) and its own UUID, which keys every decision brought in from it (so bringing the
same copy in twice changes nothing).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from workbench.store.errors import ProjectError

if TYPE_CHECKING:
    from workbench.store.project import Project

PROJECT_KEY = "project_uuid"
COPY_KEY = "team_copy"


@dataclass(frozen=True, slots=True)
class CopyStamp:
    """What a coder's copy says about where it came from."""

    copy_id: str
    project_id: str
    run_id: int
    codebook: str  # codebook_fingerprint at hand-out
    coder: str
    handed_out_at: str
    clusters: tuple[int, ...] | None = None  # assigned clusters (None: every cluster)

    def to_json(self) -> str:
        data = asdict(self)
        data["clusters"] = None if self.clusters is None else list(self.clusters)
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> CopyStamp:
        data = json.loads(text)
        clusters = data.get("clusters")
        return cls(copy_id=str(data["copy_id"]), project_id=str(data["project_id"]),
                   run_id=int(data["run_id"]), codebook=str(data["codebook"]),
                   coder=str(data["coder"]), handed_out_at=str(data["handed_out_at"]),
                   clusters=None if clusters is None else tuple(int(c) for c in clusters))


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def project_id(conn: sqlite3.Connection) -> str | None:
    """The project's UUID (None: it never handed out work)."""
    return _meta(conn, PROJECT_KEY)


def ensure_project_id(conn: sqlite3.Connection) -> str:
    """The project's UUID, made now if it has none (inside the caller's transaction)."""
    found = project_id(conn)
    if found is None:
        found = str(uuid.uuid4())
        set_meta(conn, PROJECT_KEY, found)
    return found


def codebook_fingerprint(conn: sqlite3.Connection) -> str:
    """A short hash of the codebook's tag GUIDs: equal for two codebooks with the same
    codes, whatever their names (a tag renamed is still the same code)."""
    guids = sorted(str(r[0]) for r in conn.execute("SELECT guid FROM tags WHERE guid IS NOT NULL"))
    return hashlib.sha256("\n".join(guids).encode()).hexdigest()[:16]


def copy_stamp(conn: sqlite3.Connection) -> CopyStamp | None:
    """The stamp of a coder's copy (None: the file is no coder's copy)."""
    text = _meta(conn, COPY_KEY)
    if text is None:
        return None
    try:
        return CopyStamp.from_json(text)
    except (ValueError, KeyError, TypeError) as exc:
        raise ProjectError(f"The coder's copy has a damaged stamp ({exc}); hand the work "
                           "out again.") from exc


def copy_of(project: Project) -> CopyStamp | None:
    """The stamp of ``project`` when it is a coder's copy (the window opens it with
    ``stamp.coder`` and shows whose copy it is), else None."""
    return copy_stamp(project.reader())
