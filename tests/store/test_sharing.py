"""One writer per project: a second process is refused at once and may read.

The holders are real processes: one keeps SQLite's write lock too (a long save),
so an opener that reached SQLite before the project lock would hang on the busy
timeout and then fail with sqlite3.OperationalError, as the tester saw.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from tests.store.faults import PYTHON, listing, script
from workbench.store import Project, ProjectError
from workbench.store.errors import ProjectInUse, ProjectReadOnly
from workbench.store.safety import integrity
from workbench.store.safety import lock as lock_module
from workbench.store.safety.backup import backup_dir_for
from workbench.store.safety.lock import LockHolder, lock_path_for, read_holder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and fork")

# Opens the project for writing, tags a cluster, optionally keeps a write transaction
# open (as a long save does), says "ready" and waits to be killed.
HOLDER = """
import time
from workbench.store import Project
project = Project.open(PATH, backups=0, coder="holder")
cid = project.list_clusters(limit=1)[0].id
project.tag_clusters([cid], [project.tag_by_name("feminism").id])
if HOLD_TRANSACTION:
    with project._lane.transaction() as conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('uncommitted', 'x')")
        print("ready", flush=True)
        time.sleep(120)
print("ready", flush=True)
time.sleep(120)
"""


def _start_holder(path: Path, *, hold_transaction: bool) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [PYTHON, "-c", script(HOLDER, PATH=str(path), HOLD_TRANSACTION=hold_transaction)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    line = holder.stdout.readline()
    if line.strip() != "ready":
        holder.kill()
        pytest.fail(f"holder did not start: {line!r} {holder.communicate()[1]}")
    return holder


def _stop(holder: subprocess.Popen[str]) -> None:
    if holder.poll() is None:
        holder.kill()
    holder.communicate()


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    project = new_project(tmp_path, [3, 2, 2])
    project.close()
    return project.path


def test_second_writer_is_refused_at_once_with_the_holders_details(
        project_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    holder = _start_holder(project_path, hold_transaction=True)
    # Refused before reaching SQLite, so never waiting on its busy timeout: no connection
    # to the project is opened at all (asserted, not timed: the machine may be loaded).
    connected: list[str] = []
    real_connect = sqlite3.connect

    def connect(database, *args, **kwargs):
        connected.append(str(database))
        return real_connect(database, *args, **kwargs)

    try:
        monkeypatch.setattr(sqlite3, "connect", connect)
        with pytest.raises(ProjectInUse) as caught:
            Project.open(project_path)
        monkeypatch.undo()
        assert not [c for c in connected if project_path.name in c], connected
        who = caught.value.holder
        assert who is not None
        assert (who.pid, who.host) == (holder.pid, socket.gethostname())
        assert who.user and who.since
        assert str(holder.pid) in str(caught.value) and "read-only" in str(caught.value)
    finally:
        _stop(holder)


def test_read_only_opens_next_to_a_writer_and_writes_nothing(project_path: Path) -> None:
    holder = _start_holder(project_path, hold_transaction=True)
    try:
        lock_before = lock_path_for(project_path).read_bytes()
        with Project.open(project_path, readonly=True) as viewer:
            assert viewer.readonly
            # The holder's committed tag is seen; its open transaction is not.
            assert viewer.counts().clusters_all_coded == 1
            assert viewer.archive_root == "/data/crawl"
            assert viewer.page_records(coded_only=True) is not None
            assert len(list(viewer.page_records(coded_only=True))) == 3
            with pytest.raises(ProjectReadOnly):
                viewer.undo()
            with pytest.raises(ProjectReadOnly):
                viewer.tag_clusters(cluster_ids(viewer)[:1], [tag_id(viewer, "unions")])
        assert lock_path_for(project_path).read_bytes() == lock_before
        assert not backup_dir_for(project_path).exists()
    finally:
        _stop(holder)
    with Project.open(project_path, backups=0) as project:
        assert [h.description for h in project.history()][0].startswith("Tag 1 cluster")
        assert project.counts().clusters_all_coded == 1


def test_a_killed_holders_lock_is_taken_over(project_path: Path) -> None:
    holder = _start_holder(project_path, hold_transaction=False)
    before = read_holder(project_path)
    assert before is not None and before.pid == holder.pid
    os.kill(holder.pid, signal.SIGKILL)
    _stop(holder)
    assert lock_path_for(project_path).exists()  # a killed process cannot tidy up
    with Project.open(project_path, backups=0) as project:
        mine = read_holder(project_path)
        assert mine is not None and mine.pid == os.getpid()
        assert project.counts().clusters_all_coded == 1  # the holder's committed tag
        project.tag_clusters(cluster_ids(project), [tag_id(project, "unions")])
    assert not lock_path_for(project_path).exists()


def test_one_writer_within_one_process_too(project_path: Path) -> None:
    first = Project.open(project_path, backups=0)
    try:
        with pytest.raises(ProjectInUse) as caught:
            Project.open(project_path, backups=0)
        assert caught.value.holder is not None and caught.value.holder.pid == os.getpid()
        with Project.open(project_path, readonly=True) as second:
            assert second.counts().clusters == 3
    finally:
        first.close()
    assert not lock_path_for(project_path).exists()
    Project.open(project_path, backups=0).close()


def test_create_takes_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "new.wbproj"
    with Project.create(path, "/crawl"), pytest.raises(ProjectInUse):
        Project.open(path, backups=0)
    before = listing(tmp_path)
    assert "new.wbproj.lock" not in before


# ----------------------------------------- file systems without locks
@pytest.fixture
def no_os_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    def unsupported(fd: int) -> bool:
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(lock_module, "_try_os_lock", unsupported)


def _write_lock_file(project_path: Path, holder: LockHolder) -> None:
    lock_path_for(project_path).write_text(json.dumps(asdict(holder)))


def test_without_os_locks_a_dead_local_holder_is_taken_over(
        project_path: Path, no_os_locks: None) -> None:
    gone = subprocess.run([PYTHON, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    _write_lock_file(project_path, LockHolder(int(gone.stdout), socket.gethostname(),
                                              "ann", "2024-01-01T00:00:00Z"))
    with Project.open(project_path, backups=0):
        holder = read_holder(project_path)
        assert holder is not None and holder.pid == os.getpid()
        with pytest.raises(ProjectInUse, match="cannot lock files"):
            Project.open(project_path, backups=0)
    assert not lock_path_for(project_path).exists()


@pytest.mark.parametrize("where", ["this host, alive", "another host"])
def test_without_os_locks_a_live_or_remote_holder_refuses(
        project_path: Path, no_os_locks: None, where: str) -> None:
    alive = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(60)"])
    try:
        host = socket.gethostname() if where == "this host, alive" else "lab-pc-7"
        _write_lock_file(project_path, LockHolder(alive.pid, host, "bob", "2024-01-01T00:00:00Z"))
        with pytest.raises(ProjectInUse) as caught:
            Project.open(project_path, backups=0)
        assert caught.value.holder is not None and caught.value.holder.host == host
        assert "bob" in str(caught.value) and host in str(caught.value)
    finally:
        alive.kill()
        alive.wait()


def test_project_in_use_is_a_project_error() -> None:
    assert issubclass(ProjectInUse, ProjectError)
    assert issubclass(ProjectReadOnly, ProjectError)


def test_the_read_ahead_hint_is_skipped_while_the_file_is_open_here(
        project_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening and closing a descriptor of a database file drops the POSIX locks this
    process's SQLite connections hold on it, so the hint is given only to a file no
    Project of this process has open."""
    hinted: list[Path] = []
    monkeypatch.setattr(integrity, "prefetch", hinted.append)
    with Project.open(project_path, backups=0):
        assert hinted == [project_path]
        with Project.open(project_path, readonly=True):
            pass
        assert hinted == [project_path]
    with Project.open(project_path, readonly=True):
        assert hinted == [project_path, project_path]
