"""Is a project on a network drive? SQLite's write-ahead log is not safe there.

The workbench keeps projects in WAL mode (readers never block the coder), and WAL
needs shared memory between every process that opens the file: processes on two
computers cannot share it, and network file systems often lock badly or not at all
(https://sqlite.org/wal.html, "WAL does not work over a network filesystem";
https://sqlite.org/howtocorrupt.html). So opening a project on a network drive warns
and offers to copy it to this computer.

How each system says where a path lives (the parsing is pure and tested with text):

* Linux: ``/proc/self/mountinfo``; the longest mount point above the path gives its
  file system type (nfs, cifs, smb3, sshfs, 9p...).
* macOS: the ``mount`` command's lines, ``//user@server/share on /Volumes/share
  (smbfs, ...)``; the type is the first word in brackets.
* Windows: a UNC path (``\\\\server\\share``) is on the network; a drive letter is when
  ``GetDriveTypeW`` says ``DRIVE_REMOTE``.

Anything that cannot be told (no ``/proc``, ``mount`` missing) counts as local: the
warning is a help, never a reason not to open a project.
"""

from __future__ import annotations

import ntpath
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

NETWORK_TYPES = frozenset({
    "nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "afs", "9p", "ncpfs", "coda",
    "ceph", "glusterfs", "lustre", "gpfs", "beegfs", "afpfs", "webdav", "davfs", "ftp",
    "sshfs", "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse", "fuse.glusterfs",
    "fuse.cephfs", "fuse.davfs2", "fuse.smbnetfs", "fuse.curlftpfs",
})
DRIVE_REMOTE = 4  # GetDriveTypeW's answer for a network drive


def _unescape_mount_point(text: str) -> str:
    """mountinfo writes a space, tab, newline and backslash in a path as octal."""
    for code, ch in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        text = text.replace(code, ch)
    return text


def _below(path: str, mount_point: str) -> bool:
    return (path == mount_point or mount_point == "/"
            or path.startswith(mount_point.rstrip("/") + "/"))


def _deepest(path: str, mounts: list[tuple[str, str]]) -> str | None:
    """The type of the deepest mount point above ``path`` (a later mount on the same
    point hides an earlier one)."""
    best: tuple[str, str] | None = None
    for point, fstype in mounts:
        if _below(path, point) and (best is None or len(point) >= len(best[0])):
            best = (point, fstype)
    return best[1] if best else None


def linux_fs_type(path: str, mountinfo: str) -> str | None:
    """The file system type of an absolute, resolved ``path`` per ``/proc/self/mountinfo``."""
    mounts = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if sep and len(fields) >= 5 and after:
            mounts.append((_unescape_mount_point(fields[4]), after[0]))
    return _deepest(path, mounts)


def mac_fs_type(path: str, mount_output: str) -> str | None:
    """The file system type of an absolute, resolved ``path`` per macOS's ``mount``."""
    mounts = []
    for line in mount_output.splitlines():
        head, sep, options = line.rpartition(" (")
        _, on, point = head.partition(" on ")
        if sep and on:
            mounts.append((point, options.split(",")[0].rstrip(")").strip()))
    return _deepest(path, mounts)


def is_network_type(fstype: str | None) -> bool:
    return fstype is not None and (fstype.lower() in NETWORK_TYPES
                                   or fstype.lower().startswith(("nfs", "smb")))


def windows_network_place(path: str, drive_type: Callable[[str], int]) -> str | None:
    """``\\\\server\\share`` or ``X:`` when the absolute Windows ``path`` is on the
    network, else None; ``drive_type`` is ``GetDriveTypeW`` (of ``X:\\``)."""
    if path.startswith("\\\\?\\UNC\\"):
        path = "\\\\" + path[len("\\\\?\\UNC\\"):]
    elif path.startswith("\\\\?\\"):
        path = path[len("\\\\?\\"):]
    drive, _ = ntpath.splitdrive(path)
    if drive.startswith(("\\\\", "//")):
        return drive.replace("/", "\\")
    if len(drive) == 2 and drive[1] == ":" and drive_type(drive + "\\") == DRIVE_REMOTE:
        return drive.upper()
    return None


def _get_drive_type(root: str) -> int:
    if sys.platform != "win32":  # (also tells the type checker where windll exists)
        raise OSError("a drive's type can only be asked on Windows")
    import ctypes

    return int(ctypes.windll.kernel32.GetDriveTypeW(root))


def network_place(path: Path | str, platform: str = sys.platform) -> str | None:
    """What network file system ``path`` lies on, in a few words (``nfs4``, ``smbfs``,
    ``\\\\server\\share``), or None: local, or it cannot be told."""
    try:
        real = os.path.realpath(path)
        if platform == "win32":
            return windows_network_place(real, _get_drive_type)
        if platform == "darwin":
            listing = subprocess.run(["/sbin/mount"], capture_output=True, text=True,
                                     timeout=5, check=False).stdout
            fstype = mac_fs_type(real, listing)
        else:
            fstype = linux_fs_type(real, Path("/proc/self/mountinfo").read_text(
                encoding="utf-8", errors="surrogateescape"))
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return fstype if is_network_type(fstype) else None


def network_warning(path: Path | str, place: str) -> str:
    """Why a project on a network drive is at risk, in the coder's words."""
    return (f"{Path(path).name} is on a network drive ({place}). The workbench keeps a "
            "project's latest changes in a write-ahead log beside it, which is not safe on "
            "network drives: two computers opening it, or a dropped connection, can "
            "damage the project or lose coding. Copy the project to this computer and "
            "code there (copy it back, or hand out copies, to share it).")
