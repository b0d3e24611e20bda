"""Links beside a project: a hard link to the project, and symbolic or hard links planted
at the lock file's or the backups folder's name. Real files, real links, real processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from tests.store.faults import last_json, run_python
from workbench.store import Project, ProjectError
from workbench.store.backup import backup_dir_for, list_backups
from workbench.store.lock import lock_path_for

# Another process, a second coder: open the project under its name and add memos.
SECOND_WRITER = """
from workbench.store import Project, ProjectError
try:
    project = Project.open(PATH, backups=0, coder="bea")
except ProjectError as exc:
    print(json.dumps({"refused": str(exc)}))
else:
    ids = [r.id for r in project.list_clusters(limit=100)]
    for n in range(20):
        project.add_memo(ids[n % len(ids)], f"memo {n} by bea")
    project.close()
    print(json.dumps({"refused": None}))
"""


def test_a_hard_link_cannot_open_a_second_writer(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2, 2])
    project.close()
    other_name = tmp_path / "copy.wbproj"
    os.link(project.path, other_name)
    # One writer on each name, as in the report: the second is refused, and so is the
    # first, whichever name it uses, while the file has two names.
    result = last_json(run_python(SECOND_WRITER, PATH=str(other_name)))
    assert result["refused"] and "2 names" in result["refused"]
    assert "read-only" in result["refused"]
    with pytest.raises(ProjectError, match="hard links"):
        Project.open(project.path, backups=0)
    # Read-only still works, and writes nothing.
    with Project.open(other_name, backups=0, readonly=True) as reader:
        assert reader.count_clusters() == 3
    # Once it has one name again, it opens for writing and nothing was lost.
    other_name.unlink()
    with Project.open(project.path, backups=0) as again:
        assert again.count_clusters() == 3
        again.add_memo(cluster_ids(again)[0], "after the link was gone")
    assert last_json(run_python(SECOND_WRITER, PATH=str(project.path)))["refused"] is None
    with Project.open(project.path, backups=0, readonly=True) as done:
        texts = [m.text for c in cluster_ids(done) for m in done.memos(c)]
    assert "after the link was gone" in texts and len(texts) == 21


def test_a_symbolic_link_at_the_lock_file_is_never_written(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    project.close()
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"important\n")
    lock = lock_path_for(project.path)
    lock.symlink_to(victim)
    with pytest.raises(ProjectError, match="symbolic link") as caught:
        Project.open(project.path, backups=0)
    assert str(lock) in str(caught.value) and "Delete it" in str(caught.value)
    assert victim.read_bytes() == b"important\n" and lock.is_symlink()
    lock.unlink()
    os.link(victim, lock)  # a hard link in disguise: truncating it would empty the victim
    with pytest.raises(ProjectError, match="hard link"):
        Project.open(project.path, backups=0)
    assert victim.read_bytes() == b"important\n"
    lock.unlink()
    with Project.open(project.path, backups=0) as again:
        assert again.count_clusters() == 2


def test_a_symbolic_link_at_the_backups_folder_is_refused(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    ids = cluster_ids(project)
    project.tag_clusters(ids[:1], [tag_id(project, "unions")])
    project.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    backup_dir_for(project.path).symlink_to(elsewhere, target_is_directory=True)
    with Project.open(project.path) as again:
        with pytest.raises(ProjectError, match="symbolic link"):
            again.wait_for_backup()
        assert "symbolic link" in (again.backup_problem or "")
        # The project itself opened and takes work.
        assert again.untag_clusters(ids[:1], [tag_id(again, "unions")]).action_id
    assert list(elsewhere.iterdir()) == []
    assert list_backups(project.path) == []
