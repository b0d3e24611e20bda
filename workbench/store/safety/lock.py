"""One writer per project: an OS lock on a sidecar ``<name>.wbproj.lock`` file.

SQLite lets two processes write the same file in turns, which is not what two
coders want: each window's undo log would undo the other's work, and one waits on
the other's long transactions. So the process that opens a project for writing
holds an exclusive lock on ``study.wbproj.lock`` for as long as it has the project
open; a second one is told at once who holds it (:class:`ProjectInUse`) and may open
the project read-only instead.

The lock is the operating system's (``flock`` on POSIX, ``msvcrt.locking`` on
Windows), so it dies with its process: a lock left by a crashed or killed session
is simply free, and the next opener overwrites the dead holder's details. The file
itself only carries those details (pid, host, user, since) for the message.

The lock file is opened without following a symbolic link and must be a regular file
with one name: a link planted at ``study.wbproj.lock`` would otherwise have the opener
overwrite whatever it points to. A project file with more than one name (a hard link,
``ln study.wbproj copy.wbproj``) is refused for writing (``Project.open`` opens it
read-only and says why): the lock, like SQLite's
``-wal``, lives beside a name, so two writers could each hold "their" name's lock and
write one file at once, and a ``-wal`` left beside one name is never seen through the
other (https://sqlite.org/howtocorrupt.html, "multiple links to the same file").
Refusing is simpler and safer than a lock by the file's identity, which would still
leave one ``-wal`` per name.

File systems without working locks (some NFS set-ups without a lock daemon, some
FUSE mounts) raise ENOLCK/EOPNOTSUPP; there the file's details become the lock:
a holder on this host whose process is gone is taken over, any other holder is
reported as in use (its host and pid say which machine to check; deleting the
``.lock`` file by hand releases it).
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import json
import os
import socket
import stat
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from workbench.store.clock import utc_now
from workbench.store.errors import ProjectError, ProjectInUse
from workbench.store.safety.whole_files import LinkRefused

# Errors meaning "this file system cannot lock", not "someone else holds it".
_NO_LOCKING = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}
# Errors meaning "you may not create or write the lock file here".
_NOT_WRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS}
# Windows locks a byte range; one far past the details leaves them readable by others.
_WINDOWS_LOCK_OFFSET = 1 << 30


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds a project open for writing."""

    pid: int
    host: str
    user: str
    since: str  # UTC, ISO 8601

    def describe(self) -> str:
        return f"{self.user} on {self.host} (process {self.pid}, since {self.since})"


class LockFolderReadOnly(ProjectError):
    """The lock file cannot be created: the project's folder is not writable."""


def lock_path_for(project_path: Path) -> Path:
    """``study.wbproj`` is locked through ``study.wbproj.lock`` beside it (beside the
    file itself when ``project_path`` is a symbolic link, so two links to one project
    share one lock)."""
    real = project_path.resolve()
    return real.with_name(real.name + ".lock")


def current_holder() -> LockHolder:
    try:
        user = getpass.getuser()
    except Exception:  # no login name in some containers and services
        user = "unknown user"
    return LockHolder(os.getpid(), socket.gethostname(), user, utc_now())


def read_holder(project_path: Path) -> LockHolder | None:
    """The details in the lock file (None: no file or none written). They name the
    holder only while its lock is held: a dead session leaves its details behind."""
    try:
        return _parse(lock_path_for(project_path).read_bytes())
    except OSError:
        return None


class ProjectLock:
    """The write lock of one project, held from :meth:`acquire` until :meth:`release`."""

    def __init__(self, path: Path, fd: int, holder: LockHolder, *, os_lock: bool) -> None:
        self.path = path
        self.holder = holder
        self._fd: int | None = fd
        self._os_lock = os_lock

    @classmethod
    def acquire(cls, project_path: Path) -> ProjectLock:
        """Take the lock at once or raise ProjectInUse (never waits).

        Raises LockFolderReadOnly when the lock file cannot be created.
        """
        _refuse_hard_links(project_path)
        lock_path = lock_path_for(project_path)
        # A releasing holder deletes the file; if we locked a file that is no longer
        # the one at the path, someone else may lock the new one: start again.
        for _attempt in range(20):
            fd = _open_lock_file(lock_path, project_path)
            try:
                locked = _try_os_lock(fd)
            except OSError as exc:
                if exc.errno not in _NO_LOCKING:
                    os.close(fd)
                    raise
                return cls._acquire_by_details(lock_path, project_path, fd)
            if not locked:
                holder = _read_fd(fd)
                os.close(fd)
                raise _in_use(project_path, holder)
            if not _still_at_path(fd, lock_path):
                os.close(fd)
                continue
            holder = current_holder()
            _write_details(fd, holder)
            return cls(lock_path, fd, holder, os_lock=True)
        raise ProjectError(f"Could not lock {project_path}: its lock file {lock_path.name} "
                           "keeps being replaced. Try again.")

    @classmethod
    def _acquire_by_details(cls, lock_path: Path, project_path: Path, fd: int) -> ProjectLock:
        """No OS locks here: the details in the file are the lock."""
        previous = _read_fd(fd)
        if previous is not None and not _is_dead(previous):
            os.close(fd)
            raise _in_use(project_path, previous, hint=(
                f" This disk cannot lock files, so if that session has ended, delete "
                f"{lock_path} by hand and try again."))
        holder = current_holder()
        _write_details(fd, holder)
        return cls(lock_path, fd, holder, os_lock=False)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and drop the lock (harmless when already released)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if sys.platform != "win32":
                # Unlinked while still locked, so nobody can lock this file after us
                # and believe they hold the project (see acquire's retry).
                with contextlib.suppress(OSError):
                    if _still_at_path(fd, self.path):
                        self.path.unlink()
            elif not self._os_lock:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
        finally:
            if self._os_lock:
                with contextlib.suppress(OSError):
                    _os_unlock(fd)
            os.close(fd)


def _in_use(project_path: Path, holder: LockHolder | None, hint: str = "") -> ProjectInUse:
    who = holder.describe() if holder is not None else "another program"
    return ProjectInUse(
        f"{project_path} is open for writing by {who}. Open it read-only to look at it, "
        f"or close it there first.{hint}", project_path, holder)


class HardLinked(LinkRefused):
    """The project file has more than one name; ``reason`` says so in a few words (a
    project opened read-only because of it gives it as its ``readonly_reason``)."""

    def __init__(self, project_path: Path, names: int) -> None:
        self.reason = (f"the file has {names} names on this disk (hard links), so two "
                       "sessions could write it at once through different names; make a "
                       "real copy (File ▸ Save Project As…) to code in it")
        super().__init__(f"{project_path} is not opened for writing: {self.reason}, and "
                         "delete its other names.")


def _refuse_hard_links(project_path: Path) -> None:
    try:
        names = os.stat(project_path).st_nlink
    except OSError:  # not made yet (Project.create), or gone: nothing to share
        return
    if names > 1:
        raise HardLinked(project_path, names)


def _open_lock_file(lock_path: Path, project_path: Path) -> int:
    flags = (os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
             | getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(lock_path, flags, 0o644)
    except OSError as exc:
        if exc.errno in _NOT_WRITABLE:
            raise LockFolderReadOnly(
                f"the folder {project_path.parent} cannot be written by you, so the "
                f"workbench cannot keep its working files (lock, journal) beside "
                f"{project_path.name}") from exc
        if exc.errno == errno.ELOOP or lock_path.is_symlink():
            raise _strange_lock_file(lock_path, project_path, "a symbolic link") from exc
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        os.close(fd)
        kind = "a hard link to another file" if stat.S_ISREG(st.st_mode) else "not a file"
        raise _strange_lock_file(lock_path, project_path, kind)
    return fd


def _strange_lock_file(lock_path: Path, project_path: Path, kind: str) -> LinkRefused:
    return LinkRefused(
        f"The lock file {lock_path} of {project_path.name} is {kind}, not the file the "
        "workbench makes, so it was not opened or written (it could be another file in "
        "disguise). Delete it and open the project again.")


def _try_os_lock(fd: int) -> bool:
    """True: locked. False: another holder has it. OSError: no locks here."""
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            # Held by another handle: EACCES, or EDEADLOCK after LK_NBLCK's one try.
            if exc.errno in (errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)):
                return False
            raise
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _os_unlock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def _still_at_path(fd: int, path: Path) -> bool:
    if sys.platform == "win32":  # an open file cannot be deleted there
        return True
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _write_details(fd: int, holder: LockHolder) -> None:
    data = json.dumps(asdict(holder)).encode("utf-8") + b"\n"
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)


def _read_fd(fd: int) -> LockHolder | None:
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        return _parse(os.read(fd, 4096))
    except OSError:  # Windows: the range is the holder's (not the case with our offset)
        return None


def _parse(data: bytes) -> LockHolder | None:
    try:
        fields = json.loads(data.decode("utf-8"))
        return LockHolder(int(fields["pid"]), str(fields["host"]), str(fields["user"]),
                          str(fields["since"]))
    except (ValueError, KeyError, TypeError):
        return None


def _is_dead(holder: LockHolder) -> bool:
    """True only when we can tell: a holder on this host whose process is gone."""
    if holder.host != socket.gethostname():
        return False
    if holder.pid == os.getpid():
        return False
    if sys.platform == "win32":
        return False  # no cheap portable check; the OS lock is the normal path there
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False
