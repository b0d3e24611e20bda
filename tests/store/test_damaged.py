"""A damaged project file: found on open, never rotated over good backups, restorable.

The damage is 256 bytes flipped at the start of a b-tree page a quarter, half and
three quarters into the file (page header and cell pointers: structural damage an
integrity check can see; see tests/store/faults.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from tests.store.faults import btree_page_near, flip_bytes, listing
from workbench.store import Project, ProjectError
from workbench.store.errors import ProjectDamaged
from workbench.store.safety import integrity
from workbench.store.safety.backup import backup_dir_for, good_backups, list_backups
from workbench.store.safety.recovery import restore_backup


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    """A tagged project with two good backups (two sessions opened and changed it)."""
    project = new_project(tmp_path, [3] * 300 + [1] * 200)
    ids = cluster_ids(project)
    project.tag_clusters(ids[:100], [tag_id(project, "unions")])
    project.tag_clusters(ids[50:120], [tag_id(project, "feminism")])
    project.close()
    for session in range(2):  # each changes something, so each has its own copy
        with Project.open(project.path, backups=3) as again:
            again.wait_for_backup()
            again.add_tag(f"tag of session {session}")
    assert len(list_backups(project.path)) == 2
    return project.path


def _damage(path: Path, fraction: float) -> None:
    page, size = btree_page_near(path, fraction)
    flip_bytes(path, (page - 1) * size)


@pytest.mark.parametrize("fraction", [0.25, 0.5, 0.75])
def test_damage_is_found_on_open_and_the_backups_are_kept(project_path: Path,
                                                          fraction: float) -> None:
    backups = list_backups(project_path)
    before = listing(backup_dir_for(project_path))
    _damage(project_path, fraction)
    damaged = project_path.read_bytes()

    with pytest.raises(ProjectDamaged) as caught:
        Project.open(project_path, backups=3)
    error = caught.value
    assert isinstance(error, ProjectError)
    assert error.problems and error.good_backups == backups
    assert "damaged" in str(error) and backups[-1].name in str(error)
    assert listing(backup_dir_for(project_path)) == before  # no copy of the damage rotated in
    with pytest.raises(ProjectDamaged):
        Project.open(project_path, readonly=True)

    aside = restore_backup(project_path)
    assert aside.read_bytes() == damaged  # kept, not deleted
    with Project.open(project_path) as restored:
        assert restored.integrity_problems() == []
        assert restored.counts().clusters_all_coded == 120
        unions = restored.tag_by_name("unions")
        assert unions is not None
    assert set(list_backups(project_path)) >= set(backups)


def test_a_big_file_is_checked_before_its_backup_on_the_thread(
        project_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(integrity, "SYNC_CHECK_MAX_BYTES", 0)  # as if it were huge
    before = listing(backup_dir_for(project_path))
    _damage(project_path, 0.5)
    project = Project.open(project_path, backups=3)  # opens: the check runs on the thread
    try:
        with pytest.raises(ProjectDamaged) as caught:
            project.wait_for_backup()
        assert caught.value.good_backups == list_backups(project_path)
        assert "damaged" in (project.backup_problem or "")
    finally:
        project.close()
    assert listing(backup_dir_for(project_path)) == before


def test_good_backups_leave_out_damaged_ones(project_path: Path) -> None:
    older, newer = list_backups(project_path)
    _damage(newer, 0.5)
    assert good_backups(project_path) == [older]
    _damage(project_path, 0.5)
    with pytest.raises(ProjectDamaged) as caught:
        Project.open(project_path)
    assert caught.value.good_backups == [older]
    restore_backup(project_path)
    with Project.open(project_path, backups=0) as restored:
        assert restored.counts().clusters_all_coded == 120


def test_the_message_counts_every_backup_and_how_many_pass(project_path: Path) -> None:
    older, newer = list_backups(project_path)
    folder = backup_dir_for(project_path)
    _damage(project_path, 0.5)
    with pytest.raises(ProjectDamaged) as caught:
        Project.open(project_path)
    assert (f"Restore the newest good backup ({newer.name}; all 2 backups in {folder} pass the "
            "integrity check)") in str(caught.value)
    _damage(newer, 0.5)
    with pytest.raises(ProjectDamaged) as caught:
        Project.open(project_path)
    # Two backups lie there; it said 'one of 1' when only the good ones were counted.
    assert (f"Restore the newest good backup ({older.name}; 1 of the 2 backups in {folder} "
            "passes the integrity check)") in str(caught.value)


def test_restore_refuses_a_damaged_backup_and_an_open_project(project_path: Path) -> None:
    older, newer = list_backups(project_path)
    _damage(newer, 0.5)
    with pytest.raises(ProjectError, match="damaged too"):
        restore_backup(project_path, newer)
    with Project.open(project_path, backups=0), pytest.raises(ProjectError, match="open"):
        restore_backup(project_path, older)


def test_a_destroyed_header_with_backups_is_damage_not_a_foreign_file(project_path: Path) -> None:
    flip_bytes(project_path, 0, 100)
    with pytest.raises(ProjectDamaged):
        Project.open(project_path)


def test_no_backups_at_all_says_so(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3] * 300)
    project.close()
    _damage(project.path, 0.5)
    with pytest.raises(ProjectDamaged, match="No good backup"):
        Project.open(project.path, backups=0)
