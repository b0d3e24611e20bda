"""The codebook: tags with a unique name, description, colour, shortcut, parent."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from workbench.core.formula import is_formula
from workbench.store.errors import ProjectError

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")

# Bounds of one codebook import. Real codebooks hold tens to a few thousand codes in a few
# hundred KB; without bounds a 200 MB CSV made 8,160,000 tags (87 s, 1.7 GB) and a 19 MB
# .qdc of 231,000 codes took 40 s to import and made the project open three times slower.
MAX_IMPORT_TAGS = 5_000
MAX_CODEBOOK_BYTES = 20 * 2**20


def check_file_size(path: Path | str, limit: int = MAX_CODEBOOK_BYTES) -> None:
    """Refuse a codebook file over ``limit`` bytes, or one that is not a regular file (a
    pipe or device would be read without end), before it is read. OSError: no such file."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ProjectError(f"{path} is not a regular file, so it cannot be a codebook.")
    if info.st_size > limit:
        raise ProjectError(f"{path} is {info.st_size / 2**20:,.1f} MB; a codebook file may be at "
                           f"most {limit / 2**20:,.0f} MB (codebooks are usually a few KB). "
                           "Nothing was imported.")


def check_import_size(count: int, source: object) -> None:
    """Refuse, before anything changes, an import of more than MAX_IMPORT_TAGS tags."""
    if count > MAX_IMPORT_TAGS:
        raise ProjectError(f"{source} holds {count:,} tags or more; one codebook import takes at "
                           f"most {MAX_IMPORT_TAGS:,}. Nothing was imported.")


@dataclass(frozen=True, slots=True)
class Tag:
    id: int
    name: str
    description: str = ""
    colour: str = ""
    shortcut: str | None = None
    parent_id: int | None = None
    # Stable identity for codebook exchange (REFI-QDA .qdc): kept through export and
    # import, so a code that travels and comes back is the same tag.
    guid: str | None = None


@dataclass(frozen=True, slots=True)
class TagSpec:
    """A codebook entry as written in a file: the parent by name, not id.

    ``guid``: the code's identity in the file it came from (None: none); importing
    matches it before the name and keeps it.
    """

    name: str
    description: str = ""
    colour: str = ""
    shortcut: str | None = None
    parent: str | None = None
    guid: str | None = None


_GUID = re.compile(r"^\{?([0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})\}?$")


def clean_guid(guid: str | None) -> str | None:
    """A GUID in one spelling (lower case, no braces); None for none or a malformed one."""
    found = _GUID.match((guid or "").strip())
    return found.group(1).lower() if found else None


def specs_of(tags: Sequence[Tag]) -> list[TagSpec]:
    """The codebook as specs (parents by name), parents before their children."""
    by_id = {t.id: t for t in tags}

    def depth(tag: Tag) -> int:
        n, cur, seen = 0, tag, set()
        while cur.parent_id in by_id and cur.id not in seen:
            seen.add(cur.id)
            cur, n = by_id[cur.parent_id], n + 1
        return n

    ordered = sorted(tags, key=lambda t: (depth(t), t.id))
    return [TagSpec(t.name, t.description, t.colour, t.shortcut,
                    by_id[t.parent_id].name if t.parent_id in by_id else None, t.guid)
            for t in ordered]


def clean_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ProjectError("A tag needs a name.")
    # A tag name that a spreadsheet would run is refused, so tag cells in an export
    # never need neutralising and read back exactly as stored.
    if is_formula(name):
        raise ProjectError(
            f"Tag name {name!r} may not start with = + - @ or their full-width forms "
            "(spreadsheets would run it)."
        )
    if ";" in name or "\n" in name or "\r" in name:
        raise ProjectError(f"Tag name {name!r} may not contain ';' or a line break "
                           "(the export joins tags with ';').")
    return name


def clean_colour(colour: str) -> str:
    colour = colour.strip()
    if colour and not _COLOUR.match(colour):
        raise ProjectError(f"Colour {colour!r} is not of the form #rrggbb.")
    return colour.lower()


def clean_shortcut(shortcut: str | None) -> str | None:
    return (shortcut or "").strip() or None


def all_tags(conn: sqlite3.Connection) -> list[Tag]:
    rows = conn.execute(
        "SELECT id, name, description, colour, shortcut, parent_id, guid FROM tags ORDER BY id")
    return [Tag(*r) for r in rows]


def _check_unique(conn: sqlite3.Connection, name: str, shortcut: str | None,
                  exclude: int | None) -> None:
    row = conn.execute("SELECT id FROM tags WHERE name = ? AND id IS NOT ?",
                       (name, exclude)).fetchone()
    if row:
        raise ProjectError(f"The codebook already has a tag named {name!r}.")
    if shortcut:
        row = conn.execute("SELECT name FROM tags WHERE shortcut = ? AND id IS NOT ?",
                           (shortcut, exclude)).fetchone()
        if row:
            raise ProjectError(f"Shortcut {shortcut!r} is already used by tag {row[0]!r}.")


def _check_parent(conn: sqlite3.Connection, tag_id: int | None, parent_id: int | None) -> None:
    if parent_id is None:
        return
    if conn.execute("SELECT 1 FROM tags WHERE id = ?", (parent_id,)).fetchone() is None:
        raise ProjectError(f"No such parent tag: {parent_id}")
    # Walk up from the parent: reaching the tag itself would make a cycle.
    seen, cur = set(), parent_id
    while cur is not None and cur not in seen:
        if cur == tag_id:
            raise ProjectError("A tag cannot be its own ancestor.")
        seen.add(cur)
        cur = conn.execute("SELECT parent_id FROM tags WHERE id = ?", (cur,)).fetchone()[0]


def add_tag(conn: sqlite3.Connection, name: str, description: str = "", colour: str = "",
            shortcut: str | None = None, parent_id: int | None = None,
            guid: str | None = None) -> int:
    name, colour, shortcut = clean_name(name), clean_colour(colour), clean_shortcut(shortcut)
    _check_unique(conn, name, shortcut, None)
    _check_parent(conn, None, parent_id)
    guid = clean_guid(guid)
    if guid is None or conn.execute("SELECT 1 FROM tags WHERE guid = ?", (guid,)).fetchone():
        guid = str(uuid.uuid4())
    tag_id = conn.execute(
        "INSERT INTO tags (name, description, colour, shortcut, parent_id, guid) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (name, description.strip(), colour, shortcut, parent_id, guid),
    ).lastrowid
    assert tag_id is not None
    return tag_id


class _Unset(Enum):
    """edit_tag's "not given" (None is a value there: it clears the field)."""

    UNSET = 0


_UNSET = _Unset.UNSET


def edit_tag(conn: sqlite3.Connection, tag_id: int, *, name: str | None = None,
             description: str | None = None, colour: str | None = None,
             shortcut: str | None | _Unset = _UNSET,
             parent_id: int | None | _Unset = _UNSET) -> None:
    """Change the given fields; ``shortcut=None``/``parent_id=None`` clear them."""
    row = conn.execute("SELECT name, description, colour, shortcut, parent_id FROM tags "
                       "WHERE id = ?", (tag_id,)).fetchone()
    if row is None:
        raise ProjectError(f"No such tag: {tag_id}")
    new_name = clean_name(name) if name is not None else row[0]
    new_desc = description.strip() if description is not None else row[1]
    new_colour = clean_colour(colour) if colour is not None else row[2]
    new_short = clean_shortcut(shortcut) if shortcut is not _UNSET else row[3]
    new_parent = parent_id if parent_id is not _UNSET else row[4]
    _check_unique(conn, new_name, new_short, tag_id)
    _check_parent(conn, tag_id, new_parent)
    conn.execute(
        "UPDATE tags SET name = ?, description = ?, colour = ?, shortcut = ?, parent_id = ? "
        "WHERE id = ? AND (name, description, colour, shortcut, parent_id) "
        "IS NOT (?, ?, ?, ?, ?)",
        (new_name, new_desc, new_colour, new_short, new_parent, tag_id,
         new_name, new_desc, new_colour, new_short, new_parent),
    )


def delete_tag(conn: sqlite3.Connection, tag_id: int) -> None:
    """Remove a tag and its uses (undo brings both back); children move up a level."""
    row = conn.execute("SELECT parent_id FROM tags WHERE id = ?", (tag_id,)).fetchone()
    if row is None:
        raise ProjectError(f"No such tag: {tag_id}")
    conn.execute("DELETE FROM page_tags WHERE tag_id = ?", (tag_id,))
    conn.execute("UPDATE tags SET parent_id = ? WHERE parent_id = ?", (row[0], tag_id))
    conn.execute("DELETE FROM tags WHERE id = ?", (tag_id,))


def import_specs(conn: sqlite3.Connection, specs: Sequence[TagSpec]) -> None:
    """Add or update tags, matched by guid, else by name; parents are resolved after all
    names exist. A matched tag takes the spec's name and fields and keeps its own guid;
    a new tag keeps the spec's guid (when it has a well-formed one not in use)."""
    check_import_size(len(specs), "The codebook")
    names = [clean_name(s.name).casefold() for s in specs]
    if len(set(names)) != len(names):
        twice = next(n for i, n in enumerate(names) if n in names[:i])
        raise ProjectError(f"The codebook file names the tag {twice!r} twice.")
    ids: dict[str, int] = {}
    for spec in specs:
        guid = clean_guid(spec.guid)
        existing = conn.execute("SELECT id FROM tags WHERE guid = ?", (guid,)).fetchone() \
            if guid else None
        existing = existing or conn.execute("SELECT id FROM tags WHERE name = ?",
                                            (clean_name(spec.name),)).fetchone()
        if existing:
            edit_tag(conn, existing[0], name=spec.name, description=spec.description,
                     colour=spec.colour, shortcut=spec.shortcut)
            ids[spec.name.strip().casefold()] = existing[0]
        else:
            ids[spec.name.strip().casefold()] = add_tag(
                conn, spec.name, spec.description, spec.colour, spec.shortcut, guid=guid)
    for spec in specs:
        parent_id = None
        if spec.parent and spec.parent.strip():
            key = spec.parent.strip().casefold()
            if key not in ids:
                row = conn.execute("SELECT id FROM tags WHERE name = ?",
                                   (spec.parent.strip(),)).fetchone()
                if row is None:
                    raise ProjectError(
                        f"Tag {spec.name!r} names parent {spec.parent!r}, which is not in "
                        "the codebook.")
                ids[key] = row[0]
            parent_id = ids[key]
        try:
            edit_tag(conn, ids[spec.name.strip().casefold()], parent_id=parent_id)
        except ProjectError as exc:  # a cycle: say which tag
            raise ProjectError(f"Tag {spec.name!r} cannot have parent {spec.parent!r}: "
                               f"{exc}") from exc
