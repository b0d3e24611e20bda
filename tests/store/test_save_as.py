"""Save Project As onto an existing project: refused while it is open for writing
elsewhere, and never mixed with the old target's leftover ``-wal``. Real processes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, snapshot, tag_id
from tests.store.faults import run_python
from tests.store.test_sharing import _start_holder, _stop
from workbench.store import Project, ProjectError
from workbench.store.errors import ProjectInUse

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes and kill")

# A coder's session on the target that ends without closing (killed): its last
# changes are only in the target's -wal, which stays beside it.
KILLED_WRITER = """
import os
from workbench.store import Project
project = Project.open(PATH, backups=0, coder="other")
ids = [r.id for r in project.list_clusters(limit=100)]
for n in range(20):
    project.add_tag(f"their tag {n}")
for n in range(30):
    project.add_memo(ids[n % len(ids)], f"their memo {n}")
print("wal", os.path.getsize(PATH + "-wal"), flush=True)
os._exit(0)
"""


def make_target(folder: Path) -> Path:
    folder.mkdir()
    other = Project.create(folder / "target.wbproj", "/other/crawl", coder="other")
    other.close()
    source = new_project(folder, [2, 2])  # a run to put memos on
    source.close()
    source.path.replace(other.path)
    return other.path


def test_save_as_onto_a_project_open_elsewhere_is_refused(tmp_path: Path) -> None:
    source = new_project(tmp_path, [3, 2])
    target = make_target(tmp_path / "t")
    holder = _start_holder(target, hold_transaction=False)
    try:
        before = target.read_bytes()
        with pytest.raises(ProjectInUse, match="open for writing by"):
            source.save_copy(target)
        assert target.read_bytes() == before
    finally:
        _stop(holder)
        source.close()
    assert not list(target.parent.glob("*.partial"))


def test_save_as_over_a_leftover_wal_gives_a_clean_copy(tmp_path: Path) -> None:
    source = new_project(tmp_path, [3, 2, 2])
    ids = cluster_ids(source)
    source.tag_clusters(ids[:2], [tag_id(source, "unions")])
    source.set_memo(ids[0], text="ours, still in the -wal")  # never checkpointed yet
    target = make_target(tmp_path / "t")
    done = run_python(KILLED_WRITER, PATH=str(target))
    assert done.returncode == 0 and "wal" in done.stdout, done.stderr
    wal = target.with_name(target.name + "-wal")
    assert wal.stat().st_size > 0
    assert source.save_copy(target) == target
    assert not wal.exists() and not target.with_name(target.name + "-shm").exists()
    expected = snapshot(source.path)
    source.close()
    with Project.open(target, backups=0) as copy:
        assert copy.integrity_problems() == []
        assert copy.tag_by_name("their tag 0") is None
        assert [m.text for m in copy.memos(ids[0])] == ["ours, still in the -wal"]
    assert snapshot(target) == expected
    assert sorted(p.name for p in target.parent.iterdir()) == ["target.wbproj"]


def test_save_as_onto_the_project_itself_or_its_files_is_refused(tmp_path: Path) -> None:
    source = new_project(tmp_path, [3, 2])
    before = snapshot(source.path)
    for target in (source.path, source.path.with_name("study.wbproj-wal"),
                   source.path.with_name("study.wbproj.lock")):
        with pytest.raises(ProjectError, match="destroy the project"):
            source.save_copy(target)
    assert source.count_clusters() == 2
    source.close()
    assert snapshot(source.path) == before
