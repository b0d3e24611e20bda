"""The write lock is the operating system's own: flock on POSIX, msvcrt.locking on Windows.

POSIX is checked with the real lock (another open file description is refused, as a
second process is in test_sharing). Windows cannot run here, so its branch runs with a
stand-in for ``msvcrt`` that keeps byte-range locks the way Windows does (per handle,
refused to any other handle), to check that it is the branch taken on win32, which
bytes it locks and how a refusal is read.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
import types
from pathlib import Path

import pytest

from workbench.store.errors import ProjectInUse
from workbench.store.safety.lock import ProjectLock, lock_path_for


def test_on_posix_the_lock_is_an_flock(tmp_path: Path) -> None:
    project = tmp_path / "study.wbproj"
    held = ProjectLock.acquire(project)
    try:
        other = os.open(lock_path_for(project), os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
    finally:
        held.release()
    assert not lock_path_for(project).exists()


class FakeMsvcrt(types.ModuleType):
    """msvcrt.locking as Windows does it: a byte range, locked for one handle only."""

    LK_UNLCK, LK_LOCK, LK_NBLCK, LK_RLCK, LK_NBRLCK = 0, 1, 2, 3, 4

    def __init__(self, refuse_with: int = errno.EACCES) -> None:
        super().__init__("msvcrt")
        self.held: dict[tuple[int, int, int], int] = {}  # (dev, ino, byte) -> fd
        self.calls: list[tuple[int, int, int]] = []
        self.refuse_with = refuse_with

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        st = os.fstat(fd)
        at = os.lseek(fd, 0, os.SEEK_CUR)
        self.calls.append((mode, at, nbytes))
        key = (st.st_dev, st.st_ino, at)
        if mode == self.LK_NBLCK:
            if key in self.held and self.held[key] != fd:
                raise OSError(self.refuse_with, "Permission denied")
            self.held[key] = fd
        elif mode == self.LK_UNLCK:
            if self.held.get(key) != fd:
                raise OSError(errno.EACCES, "not locked")
            del self.held[key]
        else:
            raise AssertionError(f"a mode that may wait was used: {mode}")


@pytest.fixture
def windows(monkeypatch) -> FakeMsvcrt:
    fake = FakeMsvcrt()
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setitem(sys.modules, "fcntl", None)  # importing it would fail, as there
    return fake


def test_on_windows_the_lock_is_msvcrt_on_one_byte_far_past_the_details(tmp_path, windows):
    project = tmp_path / "study.wbproj"
    held = ProjectLock.acquire(project)
    assert windows.calls == [(FakeMsvcrt.LK_NBLCK, 1 << 30, 1)]  # never a waiting mode
    # The details stay readable to the next opener, whose message names the holder.
    with pytest.raises(ProjectInUse) as refused:
        ProjectLock.acquire(project)
    assert refused.value.holder == held.holder
    held.release()
    assert windows.calls[-1] == (FakeMsvcrt.LK_UNLCK, 1 << 30, 1)
    assert windows.held == {}
    # Windows cannot delete an open file: the lock file stays, free for the next opener.
    assert lock_path_for(project).exists()
    again = ProjectLock.acquire(project)
    again.release()


@pytest.mark.parametrize("code", [errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)])
def test_on_windows_a_held_range_is_in_use(tmp_path, windows, code):
    windows.refuse_with = code
    project = tmp_path / "study.wbproj"
    held = ProjectLock.acquire(project)
    try:
        with pytest.raises(ProjectInUse, match="is open for writing by"):
            ProjectLock.acquire(project)
    finally:
        held.release()


def test_on_windows_a_disk_without_locks_falls_back_to_the_details(tmp_path, windows):
    def no_locks(fd, mode, nbytes):
        raise OSError(errno.EINVAL, "locking not supported")

    windows.locking = no_locks
    project = tmp_path / "study.wbproj"
    held = ProjectLock.acquire(project)
    try:
        assert not held._os_lock
        with pytest.raises(ProjectInUse, match="cannot lock files"):
            ProjectLock.acquire(project)
    finally:
        held.release()
    assert lock_path_for(project).read_bytes() == b""  # the details are cleared on release
