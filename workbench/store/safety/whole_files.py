"""Writing a file whole or not at all, and never through a link someone left there.

An output (a CSV, a codebook, a copy of a project) is written to a new temporary file
in the target's folder, made to reach the disk (``fsync``) and only then renamed over
the target (``os.replace``, atomic on one file system). So a full disk, a crash or a
kill leaves the old file as it was and no half file that looks complete; the
temporary file is deleted when the write fails.

The temporary file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under a name
nobody else uses: a symbolic link (or any file) already at that name is never opened
or written through, so a link planted beside an output cannot redirect the write into
another file. A target that is itself a symbolic link is refused (replacing it would
silently write the link's name, not the file it points to), and so is a folder.
"""

from __future__ import annotations

import errno
import io
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import IO, Any, Literal, overload

from workbench.store.errors import ProjectError, storage_error
from workbench.store.safety.portable_names import long_path, name_problem

TEMP_SUFFIX = ".partial"
# Exclusive creation; no following of a link at the last component (POSIX only).
_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class LinkRefused(ProjectError):
    """A file the workbench would write or lock is a symbolic or hard link."""


class OutputRefused(ProjectError):
    """An output path that must not or cannot be written (the message says why): a
    link, a folder, a missing folder, or a file the workbench must not replace."""


def _refuse_link(path: Path, label: str) -> None:
    if not path.is_symlink():
        return
    try:
        target = os.readlink(path)
    except OSError:
        target = "another file"
    raise OutputRefused(f"{label} is a symbolic link (to {target}); the workbench does not "
                        "write through links, so nothing was written. Give the path of a "
                        "real file, or delete the link.")


def create_new(path: Path, mode: int = 0o666) -> int:
    """A descriptor of a new empty file at ``path``: FileExistsError when anything is
    there already, a symbolic link included (never followed)."""
    # Windows: the output's temporary name is longer than the output's, so a path near
    # MAX_PATH is given in its long form (a no-op elsewhere).
    return os.open(long_path(os.path.abspath(path)), _NEW_FILE, mode)


def temp_beside(target: Path) -> tuple[Path, int]:
    """A new empty file in ``target``'s folder, under a name of its own, and its
    descriptor (open for writing)."""
    for _attempt in range(100):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return tmp, create_new(tmp)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target.parent))


def check_target(target: Path, what: str = "") -> None:
    """OutputRefused for a target that is a link or a folder, whose folder is missing, or
    whose name this system cannot store (on Windows: ``CON.csv``, ``a:b.csv``, ``x.``)."""
    label = f"{what} {target}" if what else str(target)
    problem = name_problem(target.name, sys.platform)
    if problem is not None:
        raise OutputRefused(f"Cannot write {label}: {problem}. Choose another file name.")
    _refuse_link(target, label)
    if target.is_dir():
        raise OutputRefused(f"{label} is a folder; give a file name.")
    if not target.parent.is_dir():
        raise OutputRefused(f"Cannot write {label}: there is no folder {target.parent}.")


def _keep_mode(fd: int, target: Path) -> None:
    """The new file gets the permissions of the one it replaces (a private file stays
    private); a new name gets the usual ones (0666 less the umask)."""
    if not hasattr(os, "fchmod"):  # Windows: no Unix permissions to keep
        return
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return
    os.fchmod(fd, mode)


def put_in_place(tmp: Path, target: Path) -> None:
    """Rename the finished ``tmp`` over ``target`` and make the rename durable."""
    os.replace(long_path(os.path.abspath(tmp)), long_path(os.path.abspath(target)))
    sync_folder(target.parent)


def fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; nothing to do elsewhere)."""
    if os.name != "posix":
        return
    with suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_quietly(*paths: Path) -> None:
    for path in paths:
        with suppress(OSError):
            path.unlink(missing_ok=True)


def write_error(exc: OSError, target: Path) -> ProjectError:
    """What to tell the user when writing ``target`` failed (a full disk says so)."""
    return storage_error(exc, target) or ProjectError(
        f"Cannot write {target}: {exc.strerror or exc}.")


# The file a block writes into: text (str) by default, bytes with ``text=False``.
@overload
def whole_file(target: Path | str, *, what: str = "", text: Literal[True] = True,
               encoding: str = "utf-8", newline: str | None = "") -> AbstractContextManager[IO[str]]: ...
@overload
def whole_file(target: Path | str, *, what: str = "", text: Literal[False],
               encoding: str = "utf-8", newline: str | None = "") -> AbstractContextManager[IO[bytes]]: ...


@contextmanager
def whole_file(target: Path | str, *, what: str = "", text: bool = True,
               encoding: str = "utf-8", newline: str | None = "") -> Iterator[IO[Any]]:
    """Write ``target`` whole or not at all: yields a file (text, or binary with
    ``text=False``) on a temporary file that replaces ``target`` when the block ends
    without an error. On any error the temporary file is deleted and ``target`` is
    untouched; an OSError comes out as a ProjectError (StorageError for a full disk)
    that names ``target``. ``what`` names the target in messages (``--pairs``)."""
    target = Path(target)
    check_target(target, what)
    try:
        tmp, fd = temp_beside(target)
    except OSError as exc:
        raise write_error(exc, target) from exc
    done = False
    try:
        _keep_mode(fd, target)
        raw = os.fdopen(fd, "wb")
        with (io.TextIOWrapper(raw, encoding=encoding, newline=newline) if text else raw) as fh:
            yield fh
            fh.flush()
            os.fsync(fd)
        put_in_place(tmp, target)
        done = True
    except OSError as exc:
        raise write_error(exc, target) from exc
    finally:
        if not done:
            remove_quietly(tmp)

