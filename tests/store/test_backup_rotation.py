"""Openings that change nothing keep the newest copy instead of rotating out older states."""

from __future__ import annotations

from pathlib import Path

from workbench.store import Project
from workbench.store.safety.backup import list_backups


def open_close(path: Path, keep: int = 2, tag: str | None = None) -> Path | None:
    with Project.open(path, backups=keep, coder="ann") as project:
        made = project.wait_for_backup()
        if tag:
            project.add_tag(tag)
    return made


def test_unchanged_openings_keep_the_older_states(tmp_path):
    path = tmp_path / "study.wbproj"
    with Project.create(path, str(tmp_path), coder="ann") as project:
        project.add_tag("first")
    first = open_close(path, tag="second")  # a copy with one tag, then a change
    second = open_close(path)  # a copy with both tags
    assert first != second and list_backups(path) == [first, second]
    for _ in range(4):  # nothing changes: the newest copy stays the copy of this state
        assert open_close(path) == second
    assert list_backups(path) == [first, second], "unchanged sessions rotated a state out"
    with Project.open(first, backups=0, readonly=True) as old:
        assert [t.name for t in old.codebook()] == ["first"]


def test_a_change_after_the_copy_makes_a_new_copy(tmp_path):
    path = tmp_path / "study.wbproj"
    with Project.create(path, str(tmp_path), coder="ann") as project:
        project.add_tag("a")
    one = open_close(path, tag="b")
    two = open_close(path, tag="c")
    three = open_close(path)
    assert len({one, two, three}) == 3
    with Project.open(three, backups=0, readonly=True) as copy:
        assert sorted(t.name for t in copy.codebook()) == ["a", "b", "c"]


def test_a_deleted_newest_copy_is_made_again(tmp_path):
    path = tmp_path / "study.wbproj"
    with Project.create(path, str(tmp_path), coder="ann") as project:
        project.add_tag("a")
    made = open_close(path)
    made.unlink()
    again = open_close(path)
    assert again is not None and again.is_file() and again != made


def test_a_project_whose_name_reads_as_a_pattern_keeps_and_rotates_its_copies(tmp_path):
    # "[v2]" in a glob is a character class: the copies were never found, so never
    # rotated out, and a damaged project was told it had no backup.
    path = tmp_path / "study [v2] *.wbproj"
    with Project.create(path, str(tmp_path), coder="ann") as project:
        project.add_tag("a")
    made = [open_close(path, tag=t) for t in "bcd"]
    assert list_backups(path) == made[1:]  # keep=2: the oldest went
    assert [p.name for p in list_backups(path)] == sorted(p.name for p in made[1:])


def test_copies_are_found_after_a_rename_in_case_only(tmp_path):
    # On Windows and macOS "Study" and "study" are one name: renaming the project in
    # case only keeps its backups folder, and its copies must still count.
    path = tmp_path / "Study.wbproj"
    with Project.create(path, str(tmp_path), coder="ann") as project:
        project.add_tag("a")
    old = open_close(path, tag="b")
    renamed = tmp_path / "study.wbproj"
    path.rename(renamed)
    (tmp_path / "Study.wbproj.backups").rename(tmp_path / "study.wbproj.backups")
    moved = renamed.with_name("study.wbproj.backups") / old.name
    assert list_backups(renamed) == [moved]
    assert moved.is_file()


def test_only_the_copies_themselves_count(tmp_path):
    path = tmp_path / "study.wbproj"
    with Project.create(path, str(tmp_path), coder="ann") as project:
        project.add_tag("a")
    made = open_close(path)
    folder = made.parent
    for other in ("study-mine.wbproj", "study-20240101T000000000000Z.wbproj-wal",
                  "study-20240101T000000000000Z.wbproj.partial", "studyx-20240101T000000000000Z.wbproj"):
        (folder / other).write_bytes(b"not a copy")
    assert list_backups(path) == [made]
