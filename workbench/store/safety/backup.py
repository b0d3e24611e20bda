"""Rotating copies of the project, one per session, made on open.

Copies are made with SQLite's online backup API from an open connection:
copying the file (and maybe missing its -wal) could capture a torn state. A
copy is written under a temporary name and renamed into place, so a crash
during the backup never leaves a half file that looks like a good backup; a
copy that fails (a full disk) is deleted at once, and leftovers of a killed
session are deleted before the next copy is made.

A copy is only ever made of a file that has just passed the integrity check
(:mod:`workbench.store.safety.integrity`), and old copies are pruned only after a new
one is in place, so rotation never replaces good backups with copies of a
damaged file, and the newest good one is never pruned.

Copying a project of a million pages takes seconds, so when the file needs no
migration the copy is made on a thread (:func:`start_backup`) from a snapshot
taken as the project opens: the window does not wait for it, and the copy is
still the file as it was when opened. A file too big to check before opening
returns is checked on that thread, from the same snapshot, before the copy.

A session that changed nothing must not rotate a distinct older copy out for a
duplicate of the newest one (five such openings would leave five copies of one
state), nor spend seconds copying. The project file's size and modification time
when the newest copy was taken are noted beside it; an opening that finds them
unchanged, with no changes waiting in the ``-wal``, keeps that copy as its own.

Nor may a session whose only write was the window registering its coder (the first
opening after ``workbench dedup`` made the project): that made a second full copy of a
549 MB project for one row. Such a session carries the note over to the file as it
closes (:func:`carry_note`), so the newest copy stays the copy of the project's data.

Copies are bounded in number (``keep``) and in bytes: together they take at most
``BUDGET_TIMES`` the newest copy's size (or ``BUDGET_FLOOR_BYTES``, for small projects,
whichever is more); older copies beyond that are pruned, the newest never.

A backups folder that is a symbolic link is refused (no copy is made, and the
window says why): copies must not land wherever a planted link points. The copy's
temporary file is created new (never opened through a link left at its name).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from workbench.store.errors import ProjectError
from workbench.store.safety import integrity
from workbench.store.safety.portable_names import collision_key
from workbench.store.safety.whole_files import create_new, fsync_path, sync_folder, whole_file

DEFAULT_KEEP = 5
# All copies together take at most this many times the newest copy's size (a project
# of a million pages is 549 MB: two copies, not five) ...
BUDGET_TIMES = 2
# ... or this much, when that is more: small projects keep all ``keep`` copies.
BUDGET_FLOOR_BYTES = 256 * 1024 * 1024
_PARTIAL = ".partial"
# A copy is <project's stem>-<UTC time to the microsecond><project's suffix>.
_STAMP = "%Y%m%dT%H%M%S%fZ"
_BACKUP_NAME = re.compile(r"(?P<stem>.*)-(?P<stamp>\d{8}T\d{12}Z)(?P<suffix>.*)", re.S)
# SQLite's side files of a database named X: X-journal, X-wal, X-shm.
_SIDE_FILES = ("-journal", "-wal", "-shm")
# Which copy holds the project file as it is while the file keeps its size and mtime.
COPY_NOTE = "newest-copy.json"

# The project file's {"size": ..., "mtime_ns": ...} (file_state): a copy taken of the file
# in one state is still the newest copy while the file is in that state.
FileState = dict[str, int]


def backup_dir_for(project_path: Path) -> Path:
    """``study.wbproj`` keeps its copies in ``study.wbproj.backups/`` beside it."""
    return project_path.with_name(project_path.name + ".backups")


def make_backup(
    conn: sqlite3.Connection, project_path: Path, keep: int = DEFAULT_KEEP,
    directory: Path | None = None, state: FileState | None = None,
) -> Path | None:
    """Copy the database behind ``conn`` and keep only the newest ``keep`` copies.

    ``state``: :func:`file_state` of the project when ``conn``'s snapshot was taken
    (default: now). When the newest copy was taken of the file in that same state,
    it is returned and nothing is copied or pruned.

    The caller has checked the database. On failure nothing of the new copy is left
    and the existing copies are untouched; the sqlite3.Error or OSError is raised.
    """
    if keep <= 0:
        return None
    directory = directory or backup_dir_for(project_path)
    _refuse_link(directory)
    if state is None:
        state = file_state(project_path)
    same = _copy_of(project_path, directory, state)
    if same is not None:
        remove_partials(directory)  # a killed copy's leftovers go even when none is made
        return same
    directory.mkdir(parents=True, exist_ok=True)
    _refuse_link(directory)  # made by someone else between the check and mkdir
    remove_partials(directory)
    stamp = datetime.now(UTC).strftime(_STAMP)
    final = directory / f"{project_path.stem}-{stamp}{project_path.suffix or '.db'}"
    tmp = final.with_name(final.name + _PARTIAL)
    try:
        _copy(conn, tmp)
        os.replace(tmp, final)
    except BaseException:
        _remove_with_side_files(tmp)
        raise
    sync_folder(directory)
    _note_copy(directory, final, state)
    prune(directory, project_path, keep)
    return final


def _refuse_link(directory: Path) -> None:
    if directory.is_symlink():
        raise ProjectError(
            f"The backups folder {directory} is a symbolic link (to "
            f"{os.readlink(directory)}), so no backup copy was written there: copies "
            "are only written into a real folder beside the project. Delete the link "
            "(and move the copies it points to back, if they are yours).")


def file_state(project_path: Path) -> FileState | None:
    """The project file's size and modification time, or None when its ``-wal`` holds
    changes (the file alone then does not say what a copy would hold)."""
    try:
        wal = project_path.with_name(project_path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return None
        st = project_path.stat()
    except OSError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _copy_of(project_path: Path, directory: Path, state: FileState | None) -> Path | None:
    """The newest copy, if it was taken of the file in ``state``."""
    if state is None:
        return None
    try:
        note = json.loads((directory / COPY_NOTE).read_text(encoding="utf-8"))
        copy = directory / str(note["backup"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    newest = list_backups(project_path, directory)
    if note.get("state") == state and newest and newest[-1] == copy:
        return copy
    return None


def _note_copy(directory: Path, copy: Path, state: FileState | None) -> None:
    note = directory / COPY_NOTE
    with suppress(OSError, ProjectError):
        if state is None:
            note.unlink(missing_ok=True)
        else:
            with whole_file(note) as fh:
                fh.write(json.dumps({"backup": copy.name, "state": state}))


def carry_note(project_path: Path, directory: Path | None, copy: Path,
               was: FileState | None) -> bool:
    """Note ``copy`` as the copy of the project file as it is now, when it was noted as
    the copy of the file in state ``was`` and is still the newest: for a session that
    changed nothing of the project's data (its closing checkpoint changed the file's
    modification time, the window may have added its coder). Returns whether it did."""
    directory = directory or backup_dir_for(project_path)
    if was is None or _copy_of(project_path, directory, was) != copy:
        return False
    now = file_state(project_path)
    if now is None:
        return False
    if now != was:  # else the note says so already (and is not written again)
        _note_copy(directory, copy, now)
    return True


def _copy(conn: sqlite3.Connection, tmp: Path) -> None:
    os.close(create_new(tmp))  # new: never written through a link left at the name
    target = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        # A half copy is deleted, never used, so the copy needs no rollback journal:
        # none is written, and a killed session leaves no "-journal" behind.
        target.execute("PRAGMA journal_mode = OFF")
        target.execute("PRAGMA synchronous = OFF")
        conn.backup(target)
    finally:
        target.close()
    # Durable before the rename makes it a backup (synchronous = OFF skipped that).
    fsync_path(tmp)


def _remove_with_side_files(path: Path) -> None:
    for name in (path.name, *(path.name + side for side in _SIDE_FILES)):
        with suppress(OSError):
            (path.parent / name).unlink(missing_ok=True)


def list_backups(project_path: Path, directory: Path | None = None) -> list[Path]:
    """Finished backups, oldest first (by the time in their names).

    Matched by name, not by a glob: a project called ``study [v2]`` would make ``[v2]``
    a pattern, and none of its copies would be found. The project's name is compared
    as Windows and macOS compare names (a project renamed only in case there keeps
    its copies).
    """
    directory = directory or backup_dir_for(project_path)
    if not directory.is_dir():
        return []
    stem = collision_key(project_path.stem)
    suffix = collision_key(project_path.suffix or ".db")
    found = []
    for path in directory.iterdir():
        match = _BACKUP_NAME.fullmatch(path.name)
        if (match and collision_key(match["stem"]) == stem
                and collision_key(match["suffix"]) == suffix and path.is_file()):
            found.append((match["stamp"], path))
    return [path for _, path in sorted(found)]


def good_backups(project_path: Path, directory: Path | None = None) -> list[Path]:
    """Finished backups that pass the integrity check, oldest first.

    Each copy is read in full (about 3 s per million pages), so this is for the
    moment a damaged project needs one, not for every open.
    """
    return [p for p in list_backups(project_path, directory)
            if not integrity.file_problems(p)]


def prune(directory: Path, project_path: Path, keep: int) -> None:
    """Keep the newest ``keep`` copies, and of those only as many as fit in the byte
    budget (:func:`byte_budget`). Called only right after a checked copy was written,
    which is the newest and so is never pruned."""
    copies = list_backups(project_path, directory)
    kept = copies[-keep:] if keep > 0 else copies[-1:]
    if kept:
        budget = byte_budget(kept[-1])
        total = 0
        for i in range(len(kept) - 1, -1, -1):
            total += _size(kept[i])
            if total > budget and i < len(kept) - 1:  # the newest stays, whatever its size
                kept = kept[i + 1:]
                break
    for old in copies:
        if old not in kept:
            old.unlink(missing_ok=True)
    remove_partials(directory)


def byte_budget(newest: Path) -> int:
    """How many bytes all copies may take together, given the newest copy."""
    return max(BUDGET_TIMES * _size(newest), BUDGET_FLOOR_BYTES)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def remove_partials(directory: Path) -> None:
    """Delete leftovers of copies interrupted by a crash or a kill (``X.partial`` and
    the ``X.partial-journal`` older versions wrote). Only the session holding the
    project's write lock makes copies, so none of these is being written now."""
    if not directory.is_dir():
        return
    for leftover in directory.iterdir():
        name = leftover.name
        if name.endswith(_PARTIAL) or any(name.endswith(_PARTIAL + s) for s in _SIDE_FILES):
            with suppress(OSError):
                leftover.unlink()


class BackgroundBackup:
    """A check and/or backup made on its own thread from a read snapshot already held.

    After ``wait()``: ``problems`` lists what the integrity check found (then no copy
    was made), ``path`` is the copy, ``error`` what stopped the copy.
    """

    def __init__(self, source: sqlite3.Connection, project_path: Path, keep: int,
                 directory: Path | None, *, check: bool = False,
                 state: FileState | None = None) -> None:
        self._source = source
        self._args = (project_path, keep, directory, state)
        self._check = check
        self.state = state  # the file as the snapshot saw it (None: changes in its -wal)
        self.path: Path | None = None
        self.problems: list[str] = []
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="project-backup", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            if self._check:
                try:
                    self.problems = integrity.problems(self._source)
                except integrity.NotADatabase as exc:
                    self.problems = [str(exc)]
                if self.problems:
                    return  # never copy a damaged file over the rotation of good ones
            self.path = make_backup(self._source, *self._args)
        except BaseException as exc:  # kept for wait(): a thread has nobody to raise to
            self.error = exc
        finally:
            self._source.close()

    def wait(self) -> Path | None:
        """Block until done; return the copy's path or raise what stopped it."""
        self._thread.join()
        if self.error is not None:
            raise self.error
        return self.path

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()


def start_backup(project_path: Path, keep: int = DEFAULT_KEEP,
                 directory: Path | None = None, *, check: bool = False,
                 uri: str | None = None) -> BackgroundBackup | None:
    """Begin a backup (and with ``check``, first an integrity check) of the project
    file as it is now, finished on a thread. ``uri``: how to open the file when the
    project is open read-only (no copy is made then: ``keep`` is 0).

    The read transaction is opened here, before returning, so writes made after this
    call (in WAL mode they never wait for a reader) do not reach the copy.
    """
    if keep <= 0 and not check:
        return None
    source = (sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
              if uri is not None else
              sqlite3.connect(str(project_path), isolation_level=None, check_same_thread=False))
    try:
        source.execute("BEGIN")
        source.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # pins the snapshot
        # The file as the snapshot sees it (later writes go to the -wal, not the file).
        state = file_state(project_path)
    except BaseException:
        source.close()
        raise
    return BackgroundBackup(source, project_path, keep, directory, check=check, state=state)
