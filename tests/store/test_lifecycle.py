"""Creating, opening, refusing and backing up project files."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from workbench.store import CURRENT_VERSION, Project, ProjectError
from workbench.store.safety.backup import list_backups


def test_create_sets_wal_foreign_keys_and_version(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.wbproj", "/crawl") as project:
        assert project.archive_root == "/crawl"
        assert project.schema_version == CURRENT_VERSION
    conn = sqlite3.connect(tmp_path / "p.wbproj")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION


def test_foreign_keys_are_enforced(tmp_path: Path) -> None:
    with new_project(tmp_path, [2]) as project, pytest.raises(sqlite3.IntegrityError), \
            project._lane.transaction() as conn:
        conn.execute("INSERT INTO cluster_members (cluster_id, page_id, similarity) VALUES (999, 999, 1.0)")


def test_create_refuses_existing_file(tmp_path: Path) -> None:
    (tmp_path / "p.wbproj").write_text("precious")
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(tmp_path / "p.wbproj", "/crawl")
    assert (tmp_path / "p.wbproj").read_text() == "precious"


def test_open_refuses_missing_and_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="does not exist"):
        Project.open(tmp_path / "nope.wbproj")
    (tmp_path / "notes.txt").write_text("not a database at all, just some text " * 20)
    with pytest.raises(ProjectError, match="not a SpotSigs Workbench project"):
        Project.open(tmp_path / "notes.txt", backups=0)
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="not a SpotSigs Workbench project"):
        Project.open(other, backups=0)


def test_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.wbproj"
    Project.create(path, "/crawl").close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(ProjectError, match=r"newer SpotSigs Workbench .*schema "
                                           rf"{CURRENT_VERSION + 1}.*Update"):
        Project.open(path)
    assert path.read_bytes() == before
    assert list_backups(path) == []


def test_backups_rotate_and_are_complete(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    path = project.path
    project.tag_clusters(cluster_ids(project)[:1], [tag_id(project, "unions")])
    project.close()
    for session in range(7):  # each session changes the data (a new tag), so each is copied
        with Project.open(path, backups=5, coder=f"coder {session}") as again:
            again.add_tag(f"tag of session {session}")
    copies = list_backups(path)
    assert len(copies) == 5
    # Each copy is a full project with the coder's work in it.
    copy = Project.open(copies[-1], backups=0)
    assert copy.counts().pages_coded == 3
    assert copy.integrity_problems() == []
    copy.close()
    Project.open(path, backups=0).close()
    assert len(list_backups(path)) == 5


def test_record_files_is_an_upsert(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.wbproj", "/crawl") as project:
        assert project.record_files([("a.html", 10, 1.5), ("b.warc.gz", 20, 2.5)]) == 2
        project.record_files([("a.html", 11, 3.0)])
        assert project.known_files() == {"a.html": (11, 3.0), "b.warc.gz": (20, 2.5)}


def test_closed_project_refuses_use(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    project.close()
    project.close()  # twice is harmless
    with pytest.raises(ProjectError, match="closed"):
        project.counts()
    with pytest.raises(ProjectError, match="closed"):
        project.undo()


def test_worker_thread_writes_while_main_thread_reads(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2] * 30)
    ids = cluster_ids(project)
    unions = tag_id(project, "unions")
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for cid in ids:
                project.tag_clusters([cid], [unions])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        assert project.counts().clusters == 30
    thread.join()
    assert not errors
    assert project.counts().clusters_all_coded == 30
    project.close()


def test_two_writer_threads_share_the_lane(tmp_path: Path) -> None:
    project = new_project(tmp_path, [1] * 40)
    ids = cluster_ids(project)
    unions, fem = tag_id(project, "unions"), tag_id(project, "feminism")
    errors: list[BaseException] = []

    def writer(tag: int, chunk: list[int]) -> None:
        try:
            for cid in chunk:
                project.tag_clusters([cid], [tag])
                project.add_memo(cid, "x")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(unions, ids[:20])),
               threading.Thread(target=writer, args=(fem, ids[20:]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert project.counts().clusters_all_coded == 40
    assert len([h for h in project.history(1000) if h.state == "done"]) == 3 + 80
    project.close()
