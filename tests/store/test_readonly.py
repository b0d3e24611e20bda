"""Read-only projects: asked for, or a read-only file, folder or disk.

Every read works, every change raises ProjectReadOnly, and nothing is written: no
change to the file, no -wal, -shm, lock or backup where the workbench may not write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, groups_run, new_project, tag_id
from tests.store.faults import last_json, listing, read_only, run_on_tmpfs
from workbench.store import Project, ProjectError, TagSpec
from workbench.store.errors import ProjectReadOnly


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    """A closed project in its own folder, a cluster tagged and a memo written."""
    folder = tmp_path / "projects"
    folder.mkdir()
    project = new_project(folder, [3, 2, 2, 1])
    ids = cluster_ids(project)
    project.tag_clusters(ids[:1], [tag_id(project, "unions")])
    project.add_memo(ids[0], "same story")
    project.close()
    return project.path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_reads(project: Project) -> None:
    """The calls the main window, the export and the calibration make."""
    ids = cluster_ids(project)
    assert len(ids) == 4
    assert project.count_clusters() == 4
    assert project.counts().clusters_all_coded == 1
    assert [t.name for t in project.codebook()] == ["unions", "feminism", "local issue"]
    assert len(project.members(ids[0])) == 3
    assert project.memos(ids[0])[0].text == "same story"
    assert project.current_run() is not None
    assert len(project.run_groups()) == 3
    assert project.next_undo() is not None
    assert len(project.history()) == 5  # 3 tags added, 1 tagging, 1 memo
    rows = list(project.page_records(coded_only=True))
    assert len(rows) == 3
    assert project.archive_root == "/data/crawl"
    assert project.integrity_problems() == []


# Every way a project can be changed; each must raise ProjectReadOnly.
ACTIONS: dict[str, Callable[[Project, list[int], int], object]] = {
    "tag_clusters": lambda p, ids, t: p.tag_clusters(ids[1:2], [t]),
    "untag_clusters": lambda p, ids, t: p.untag_clusters(ids[:1], [t]),
    "toggle_tag": lambda p, ids, t: p.toggle_tag(ids[1:2], t),
    "tag_pages": lambda p, ids, t: p.tag_pages([p.members(ids[1])[0].page_id], [t]),
    "untag_pages": lambda p, ids, t: p.untag_pages([p.members(ids[0])[0].page_id], [t]),
    "split": lambda p, ids, t: p.split(ids[0], [p.members(ids[0])[-1].page_id]),
    "merge": lambda p, ids, t: p.merge(ids[1:3]),
    "set_review": lambda p, ids, t: p.set_review(ids[:1], True),
    "add_tag": lambda p, ids, t: p.add_tag("new"),
    "edit_tag": lambda p, ids, t: p.edit_tag(t, name="renamed"),
    "delete_tag": lambda p, ids, t: p.delete_tag(t),
    "import_codebook": lambda p, ids, t: p.import_codebook([TagSpec("imported")]),
    "add_memo": lambda p, ids, t: p.add_memo(ids[1], "x"),
    "edit_memo": lambda p, ids, t: p.edit_memo(p.memos(ids[0])[0].id, "y"),
    "delete_memo": lambda p, ids, t: p.delete_memo(p.memos(ids[0])[0].id),
    "set_excluded": lambda p, ids, t: p.set_excluded(ids[0], [p.members(ids[0])[-1].page_id],
                                                     True),
    "add_page_memo": lambda p, ids, t: p.add_page_memo(p.members(ids[0])[0].page_id, "x"),
    "set_memo": lambda p, ids, t: p.set_memo(cluster_id=ids[0], text="z"),
    "undo": lambda p, ids, t: p.undo(),
    "redo": lambda p, ids, t: p.redo(),
    "use_coder": lambda p, ids, t: p.use_coder("zoe"),
    "coder_id": lambda p, ids, t: p.coder_id,
    "set_archive_root": lambda p, ids, t: p.set_archive_root("/elsewhere"),
    "record_files": lambda p, ids, t: p.record_files([("a.html", 1, 1.0)]),
    "save_run": lambda p, ids, t: p.save_run({"tau": 0.5}, "spotsigs", {}, *groups_run([2])),
    "recluster": lambda p, ids, t: p.recluster(0.5),
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_every_change_is_refused_when_asked_read_only(project_path: Path, action: str) -> None:
    before = _digest(project_path)
    with Project.open(project_path, readonly=True) as project:
        assert project.readonly and project.readonly_reason
        unions = tag_id(project, "unions")
        with pytest.raises(ProjectReadOnly, match="read-only"):
            ACTIONS[action](project, cluster_ids(project), unions)
        _check_reads(project)
    assert _digest(project_path) == before
    names = {p.name for p in project_path.parent.iterdir()}
    assert not any(n.endswith((".lock", ".backups")) for n in names)


def test_read_only_file_falls_back_to_reading(project_path: Path) -> None:
    before = listing(project_path.parent)
    with read_only(project_path):
        project = Project.open(project_path)  # readonly=False: falls back by itself
        try:
            assert project.readonly
            assert "read-only" in (project.readonly_reason or "")
            _check_reads(project)
            with pytest.raises(ProjectReadOnly, match=str(project_path.name)):
                project.tag_clusters(cluster_ids(project)[1:2], [tag_id(project, "unions")])
        finally:
            project.close()
    assert listing(project_path.parent) == before  # no -wal, -shm, lock or backups


def test_read_only_folder_falls_back_to_reading(project_path: Path) -> None:
    folder = project_path.parent
    before = listing(folder)
    with read_only(folder):
        with Project.open(project_path) as project:
            assert project.readonly
            assert "folder" in (project.readonly_reason or "")
            _check_reads(project)
            with pytest.raises(ProjectReadOnly):
                project.undo()
        with pytest.raises(ProjectError, match="read-only|cannot be written"):
            Project.create(folder / "other.wbproj", "/crawl")
    assert listing(folder) == before


READ_ONLY_DISK = """
from pathlib import Path
from tests.store.builders import cluster_ids, new_project, tag_id
from workbench.store import Project
from workbench.store.errors import ProjectReadOnly

folder = Path(MOUNT)
project = new_project(folder, [3, 2])
project.tag_clusters(cluster_ids(project)[:1], [tag_id(project, "unions")])
project.close()
before = sorted(p.name for p in folder.iterdir())
remount_ro()
with Project.open(project.path) as viewer:
    refused = False
    try:
        viewer.add_tag("x")
    except ProjectReadOnly:
        refused = True
    result = {"readonly": viewer.readonly, "reason": viewer.readonly_reason,
              "coded": viewer.counts().clusters_all_coded, "refused": refused,
              "rows": len(list(viewer.page_records(coded_only=True)))}
result["unchanged"] = sorted(p.name for p in folder.iterdir()) == before
print(json.dumps(result))
"""


def test_read_only_disk_opens_for_reading(tmp_path: Path) -> None:
    done = run_on_tmpfs(READ_ONLY_DISK, tmp_path / "mnt", "8m")
    result = last_json(done)
    assert result == {"readonly": True, "reason": result["reason"], "coded": 1,
                      "refused": True, "rows": 3, "unchanged": True}
    assert "read-only disk" in result["reason"]


def test_read_only_project_sees_the_writers_later_commits(project_path: Path) -> None:
    with Project.open(project_path, backups=0) as writer, \
            Project.open(project_path, readonly=True) as viewer:
        assert viewer.counts().clusters_all_coded == 1
        writer.tag_clusters(cluster_ids(writer)[1:2], [tag_id(writer, "feminism")])
        assert viewer.counts().clusters_all_coded == 2


def test_read_only_open_of_a_missing_or_foreign_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="does not exist"):
        Project.open(tmp_path / "nope.wbproj", readonly=True)
    (tmp_path / "notes.txt").write_text("just text " * 100)
    with pytest.raises(ProjectError, match="not a SpotSigs Workbench project"):
        Project.open(tmp_path / "notes.txt", readonly=True)
