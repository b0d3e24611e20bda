"""A full disk: the backup made on open, and the checkpoint made on close.

Two ways to fill a disk without harming the machine: a small tmpfs in a private
mount namespace (a real ENOSPC; needs the right to mount, else skipped), and a
file-size limit (RLIMIT_FSIZE with SIGXFSZ ignored: writes past it fail with EFBIG;
works for any user on POSIX).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from tests.store.faults import last_json, run_on_tmpfs, run_python
from workbench.store import Project
from workbench.store.errors import StorageError
from workbench.store.safety.backup import COPY_NOTE, backup_dir_for, list_backups

# Opens a project whose backup cannot be written: it must open, report the problem,
# leave no partial file, and stay usable.
OPEN_WITHOUT_ROOM = """
import os
from pathlib import Path
from workbench.store import Project
from workbench.store.errors import StorageError

path = Path(PROJECT)
project = Project.open(path)
try:
    project.wait_for_backup()
    waited = "no error"
except StorageError as exc:
    waited = f"{exc.kind}: {exc}"
result = {"problem": project.backup_problem, "waited": waited,
          "coded": project.counts().clusters_all_coded,
          "tagged": project.add_tag("added after the failed backup").action_id is not None}
project.close()
folder = path.with_name(path.name + ".backups")
result["backups"] = sorted(os.listdir(folder)) if folder.exists() else []
result["beside"] = sorted(os.listdir(path.parent))
print(json.dumps(result))
"""

FILL_DISK = """
import os
from pathlib import Path
from tests.store.builders import cluster_ids, new_project, tag_id

folder = Path(MOUNT)
project = new_project(folder, [3] * 300)
project.close()
size = project.path.stat().st_size
# Leave room for the lock, -wal and -shm files, not for a copy of the project.
free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
with open(folder / "filler", "wb") as fh:
    fh.write(b"x" * max(0, free - size // 2))
""" + OPEN_WITHOUT_ROOM.replace("path = Path(PROJECT)", "path = project.path")


def _check_open_without_room(result: dict, kinds: tuple[str, ...]) -> None:
    assert result["problem"] and result["waited"] != "no error"
    assert result["waited"].split(":")[0] in kinds
    assert result["coded"] == 0 and result["tagged"]
    assert result["backups"] == []  # no .partial, no .partial-journal
    assert not [n for n in result["beside"] if n.endswith(("-wal", "-shm", ".lock"))]


def test_no_room_for_the_backup_on_a_full_disk(tmp_path: Path) -> None:
    done = run_on_tmpfs(FILL_DISK, tmp_path / "mnt", "6m")
    result = last_json(done)
    _check_open_without_room(result, ("full",))
    assert "disk is full" in result["problem"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_no_room_for_the_backup_under_a_file_size_limit(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3] * 300)
    project.close()
    size = project.path.stat().st_size
    limit = """
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))
"""
    done = run_python(limit + OPEN_WITHOUT_ROOM, PROJECT=str(project.path), LIMIT=size // 2)
    _check_open_without_room(last_json(done), ("full", "toobig"))


# A save whose pages fit in the WAL, but whose checkpoint cannot grow the project
# file: the tester's `workbench dedup --project` that left a -wal beside it.
CLOSE_ON_FULL_DISK = """
import os
from pathlib import Path
from tests.store.builders import groups_run
from workbench.store import Project
from workbench.store.errors import StorageError

folder = Path(MOUNT)
run = groups_run([3] * 1500)

def save(path):
    Project.create(path, "/crawl").close()
    project = Project.open(path, backups=0)
    project.save_run({"tau": 0.4}, "spotsigs", {}, *run)
    return project, os.path.getsize(str(path) + "-wal")

# Measure the WAL and the final file on the same disk, then do it again nearly full.
probe, wal = save(folder / "probe.wbproj")
probe.close()
final = (folder / "probe.wbproj").stat().st_size
os.remove(folder / "probe.wbproj")
free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
with open(folder / "filler", "wb") as fh:
    fh.write(b"x" * (free - wal - final // 2))
path = folder / "study.wbproj"
project, _ = save(path)
try:
    project.close()
    closed = "closed"
except StorageError as exc:
    closed = f"{exc.kind}: {exc}"
left = sorted(os.listdir(folder))
os.remove(folder / "filler")
with Project.open(path, backups=0) as again:
    pages = again.counts().pages
print(json.dumps({"closed": closed, "left": left, "pages": pages,
                  "after": sorted(os.listdir(folder))}))
"""


def test_close_on_a_full_disk_says_so_and_loses_nothing(tmp_path: Path) -> None:
    result = last_json(run_on_tmpfs(CLOSE_ON_FULL_DISK, tmp_path / "mnt", "12m"))
    kind, _, message = result["closed"].partition(": ")
    assert kind == "full", result["closed"]
    assert "disk is full" in message and "study.wbproj-wal" in message
    assert "study.wbproj-wal" in result["left"]  # the last save lives there until then
    # Once there is room, opening folds the WAL in: nothing was lost, nothing is left.
    assert result["pages"] == 4500
    assert result["after"] == ["study.wbproj"]


def test_a_clean_close_leaves_no_wal(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3] * 50)
    project.counts()  # a reader connection on this thread
    project.close()
    again = Project.open(project.path)
    again.counts()
    again.wait_for_backup()
    again.close()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(("-wal", "-shm"))]
    assert leftovers == []


def test_leftovers_of_killed_backups_are_removed(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    project.close()
    folder = backup_dir_for(project.path)
    folder.mkdir()
    stale = ["study-20240101T000000000000Z.wbproj.partial",
             "study-20240101T000000000000Z.wbproj.partial-journal",
             "study-20240102T000000000000Z.wbproj.partial-wal"]
    for name in stale:
        (folder / name).write_bytes(b"half a copy")
    with Project.open(project.path, backups=2) as again:
        again.wait_for_backup()
    left = sorted(p.name for p in folder.iterdir() if p.name != COPY_NOTE)
    assert left == [p.name for p in list_backups(project.path)]
    assert len(list_backups(project.path)) == 1


def test_an_action_on_a_full_disk_says_so_and_changes_nothing(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3] * 300)
    ids = cluster_ids(project)
    before = project.history()
    conn = project._lane.connection
    pages_now = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages_now}")  # SQLite's own SQLITE_FULL
    with pytest.raises(StorageError, match="disk is full") as caught:
        project.tag_clusters(ids, [tag_id(project, "unions")])
    assert caught.value.kind == "full" and str(project.path) in str(caught.value)
    with pytest.raises(StorageError, match="disk is full"):
        project.record_files([(f"f{i}.html", i, 1.0) for i in range(20_000)])
    assert project.history() == before and project.counts().clusters_all_coded == 0
    conn.execute("PRAGMA max_page_count = 1073741823")  # room again: work goes on
    assert project.tag_clusters(ids[:1], [tag_id(project, "unions")]).action_id is not None
    project.close()
