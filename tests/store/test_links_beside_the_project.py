"""Links beside a project: a hard link to the project, and symbolic or hard links planted
at the lock file's or the backups folder's name. Real files, real links, real processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from tests.store.faults import last_json, run_python
from workbench.store import Project, ProjectError
from workbench.store.safety.backup import backup_dir_for, list_backups
from workbench.store.safety.lock import lock_path_for

# Another process, a second coder: open the project under its name and add 20 memos.
SECOND_WRITER = """
from workbench.store import Project, ProjectError
project = Project.open(PATH, backups=0, coder="bea")
ids = [r.id for r in project.list_clusters(limit=100)]
saved, refused = 0, None
for n in range(20):
    try:
        project.add_memo(ids[n % len(ids)], f"memo {n} by bea")
        saved += 1
    except ProjectError as exc:
        refused = str(exc)
reason = project.readonly_reason
project.close()
print(json.dumps({"saved": saved, "refused": refused, "readonly": reason}))
"""


def memo_texts(path: Path) -> list[str]:
    with Project.open(path, backups=0, readonly=True) as project:
        return [m.text for c in cluster_ids(project) for m in project.memos(c)]


def test_a_hard_link_cannot_open_a_second_writer(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2, 2])
    project.close()
    other_name = tmp_path / "copy.wbproj"
    os.link(project.path, other_name)
    # One writer on each name, as in the report: neither may write while the file has
    # two names; each is told why instead of having its memos acknowledged and lost.
    with Project.open(project.path, backups=0, coder="ann") as first:
        assert first.readonly and "2 names" in first.readonly_reason
        with pytest.raises(ProjectError, match="hard links"):
            first.add_memo(cluster_ids(first)[0], "memo by ann")
        second = last_json(run_python(SECOND_WRITER, PATH=str(other_name)))
    assert second["saved"] == 0 and "hard links" in second["readonly"]
    assert second["refused"] and "hard links" in second["refused"]
    assert memo_texts(project.path) == []
    # Once it has one name again, it opens for writing and nothing is lost.
    other_name.unlink()
    with Project.open(project.path, backups=0) as again:
        assert not again.readonly
        again.add_memo(cluster_ids(again)[0], "after the link was gone")
    assert last_json(run_python(SECOND_WRITER, PATH=str(project.path)))["saved"] == 20
    texts = memo_texts(project.path)
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
