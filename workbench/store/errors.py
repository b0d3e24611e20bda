"""The exceptions the store raises for problems a user can act on, and the words for
storage failures (full disk, read-only file, busy or damaged database, I/O error).

Every message is written for the person at the keyboard: it names the file and says
what to do, so the GUI and CLI can show it as it is.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.store.safety.lock import LockHolder


class ProjectError(Exception):
    """A project file cannot be opened, migrated or changed as asked.

    The message is written for the person at the keyboard (it names the file
    and says what to do), so the GUI and CLI can show it as it is.
    """


class ProjectInUse(ProjectError):
    """Another session has the project open for writing (one writer per project).

    ``holder``: who (pid, host, user, since), or None when the lock's owner wrote no
    details yet. The project can still be opened with ``readonly=True``.
    """

    def __init__(self, message: str, path: Path, holder: LockHolder | None) -> None:
        super().__init__(message)
        self.path = path
        self.holder = holder


class ProjectReadOnly(ProjectError):
    """A change was asked of a project that is open read-only."""


class ProjectDamaged(ProjectError):
    """The project file fails SQLite's integrity check.

    ``problems``: what the check reported (first few lines). ``good_backups``: the
    backups that pass the check, oldest first; ``store.safety.recovery.restore_backup`` puts
    one in place and keeps the damaged file aside.
    """

    def __init__(self, path: Path, problems: Sequence[str], good_backups: Sequence[Path]) -> None:
        self.path = path
        self.problems = list(problems)
        self.good_backups = list(good_backups)
        if self.good_backups:
            newest = self.good_backups[-1]
            advice = (f"Restore the newest good backup ({newest.name}; "
                      f"{_backups_passing(path, self.good_backups)}); the damaged file will be "
                      "kept aside, not deleted.")
        else:
            advice = ("No good backup of it was found. Keep the file: a specialist may still "
                      "recover most of it (sqlite3 .recover).")
        shown = "; ".join(self.problems[:3]) + (" ..." if len(self.problems) > 3 else "")
        super().__init__(f"{path} is damaged (SQLite reports: {shown}). {advice}")


def _backups_passing(path: Path, good: Sequence[Path]) -> str:
    """How many of the backups beside the newest good one pass the integrity check: 'the
    only backup in DIR', '1 of the 2 backups in DIR pass ...' (counting only the good ones
    said 'one of 1' when a damaged one lay beside it)."""
    # Imported here: backup.py raises this module's errors, so a module-level import of it
    # would make the two import each other.
    from workbench.store.safety.backup import list_backups

    folder = good[-1].parent
    total = max(len(list_backups(path, folder)), len(good))
    if total == 1:
        return f"the only backup in {folder}"
    if len(good) == total:
        return f"all {total} backups in {folder} pass the integrity check"
    verb = "passes" if len(good) == 1 else "pass"
    return f"{len(good)} of the {total} backups in {folder} {verb} the integrity check"


class StorageError(ProjectError):
    """The disk, the file system or SQLite refused to read or write the project.

    ``kind`` is one of ``full``, ``readonly``, ``busy``, ``damaged``, ``io``,
    ``cantopen``, ``nolock``; the message comes from :func:`describe_storage_error`.
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_KINDS: dict[int, str] = {
    sqlite3.SQLITE_BUSY: "busy",
    sqlite3.SQLITE_LOCKED: "busy",
    sqlite3.SQLITE_PROTOCOL: "busy",
    sqlite3.SQLITE_READONLY: "readonly",
    sqlite3.SQLITE_PERM: "readonly",
    sqlite3.SQLITE_FULL: "full",
    sqlite3.SQLITE_CORRUPT: "damaged",
    sqlite3.SQLITE_NOTADB: "notadb",
    sqlite3.SQLITE_IOERR: "io",
    sqlite3.SQLITE_CANTOPEN: "cantopen",
    sqlite3.SQLITE_NOLFS: "toobig",
}

_ERRNO_KINDS: dict[int, str] = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "quota",
    errno.EFBIG: "toobig",
    errno.EROFS: "readonly",
    errno.EACCES: "readonly",
    errno.EPERM: "readonly",
    errno.EIO: "io",
    errno.ENOLCK: "nolock",
    errno.ESTALE: "gone",
    errno.ENOTCONN: "gone",
}

# Below this much free space an unexplained write error is almost surely a full disk.
_NEARLY_FULL_BYTES = 4 * 2**20


def storage_kind(exc: BaseException, path: Path | str | None = None) -> str | None:
    """What kind of storage failure ``exc`` (or what it was raised from) is, or None."""
    for link in _chain(exc):
        kind = _kind_of(link)
        if kind == "io" and _is_write_error(link):
            # A write past RLIMIT_FSIZE fails with EFBIG, which SQLite reports as a plain
            # I/O error; so may a write refused by a full disk.
            if _file_size_limited():
                return "toobig"
            if path is not None and _nearly_full(Path(path)):
                return "full"
        if kind is not None:
            return kind
    return None


def describe_storage_error(exc: BaseException, path: Path | str | None = None) -> str | None:
    """A message for the user when ``exc`` is a storage failure; None when it is not.

    Looks at ``exc`` and the exceptions it was raised from (``__cause__``/``__context__``):
    sqlite3 errors by their SQLite result code, OSErrors by errno. ``path``: the file
    concerned, named in the message (an OSError's own filename is used otherwise).
    """
    kind = storage_kind(exc, path)
    if kind is None:
        return None
    name = str(path) if path is not None else _filename(exc) or "the project file"
    return _MESSAGES[kind].format(file=name)


def storage_error(exc: BaseException, path: Path | str | None = None) -> StorageError | None:
    """``exc`` as a StorageError (to raise ``from exc``), or None when it is no storage failure."""
    kind = storage_kind(exc, path)
    message = describe_storage_error(exc, path)
    if kind is None or message is None:
        return None
    return StorageError(message, kind)


_MESSAGES: dict[str, str] = {
    "full": ("The disk is full: {file} could not be written. Free some space on that disk "
             "(or move the project to a disk with room) and try again; what was saved "
             "before is not lost."),
    "quota": ("Your disk quota is used up: {file} could not be written. Delete some files "
              "or ask for a larger quota, then try again; what was saved before is not lost."),
    "toobig": ("{file} could not grow: the disk is full or the file reached the largest "
               "size this disk (or your account's file size limit) allows. Free some space "
               "or move the project to another disk, then try again."),
    "readonly": ("{file} is read-only (the file, its folder or the whole disk cannot be "
                 "written by you): changes cannot be saved. Open it read-only, or copy it "
                 "to a folder you can write to."),
    "busy": ("{file} is busy: another program (perhaps another SpotSigs Workbench window) "
             "is writing to it. Wait a moment and try again, or close the other program."),
    "damaged": ("{file} is damaged (SQLite says the database file is malformed). Close it "
                "and restore the newest good backup; the damaged file will be kept aside."),
    "notadb": ("{file} is not a SpotSigs Workbench project (it is not an SQLite database, "
               "or its first page is damaged). If it was a project, restore a backup."),
    "io": ("The disk reported an error while reading or writing {file} (I/O error). Check "
           "the disk or network drive; if it happens again, copy the project and its "
           "backups to another disk."),
    "cantopen": ("{file} cannot be opened: the file or its folder may be missing, or you "
                 "may not have permission to use them."),
    "nolock": ("{file} cannot be locked: this file system (often a network drive) does not "
               "support file locks. Copy the project to a local disk to work on it."),
    "gone": ("{file} is no longer reachable: the network drive or removable disk holding it "
             "was disconnected. Reconnect it and open the project again."),
}


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in seen and len(seen) < 8:
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


def _kind_of(exc: BaseException) -> str | None:
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is None:
            return None
        return _SQLITE_KINDS.get(code & 0xFF)
    if isinstance(exc, OSError) and exc.errno is not None:
        return _ERRNO_KINDS.get(exc.errno)
    return None


def _filename(exc: BaseException) -> str | None:
    for link in _chain(exc):
        if isinstance(link, OSError) and link.filename:
            return str(link.filename)
    return None


def _is_write_error(exc: BaseException) -> bool:
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) in (
            sqlite3.SQLITE_IOERR_WRITE, sqlite3.SQLITE_IOERR_FSYNC, sqlite3.SQLITE_IOERR_TRUNCATE)
    return True


def _file_size_limited() -> bool:
    if sys.platform == "win32":
        return False  # no such limit (and no resource module)
    import resource
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return soft != resource.RLIM_INFINITY


def _nearly_full(path: Path) -> bool:
    folder = path if path.is_dir() else path.parent
    try:
        return shutil.disk_usage(folder).free < _NEARLY_FULL_BYTES
    except OSError:
        return False
