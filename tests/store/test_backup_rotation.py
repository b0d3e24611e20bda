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


# ------------------------------------------------ issue 34: bounded in disk at a million pages

def open_as(path: Path, coder: str, tag: str | None = None) -> Path | None:
    """An opening as the window makes it: open, then register the window's coder."""
    with Project.open(path, backups=5) as project:
        project.use_coder(coder)
        made = project.wait_for_backup()
        if tag:
            project.add_tag(tag)
    return made


def made_by_dedup(tmp_path: Path) -> Path:
    """A project as `workbench dedup --project` leaves it: no coder yet, no copy."""
    path = tmp_path / "study.wbproj"
    with Project.create(path, str(tmp_path)) as project:
        project.save_run({"tau": 0.4}, "spotsigs", {}, [], [], [])
    return path


def test_two_openings_by_a_new_coder_that_change_nothing_make_one_copy(tmp_path):
    # The first opening registered the window's coder: one row, which made the second
    # opening copy the whole file again (549 MB each at a million pages).
    path = made_by_dedup(tmp_path)
    first = open_as(path, "ann")
    second = open_as(path, "ann")
    third = open_as(path, "bob")  # another coder's first look changes nothing either
    assert first == second == third and list_backups(path) == [first]


def test_a_change_by_a_new_coder_makes_a_new_copy(tmp_path):
    path = made_by_dedup(tmp_path)
    first = open_as(path, "ann", tag="unions")
    second = open_as(path, "ann")
    assert first != second and list_backups(path) == [first, second]
    with Project.open(second, backups=0, readonly=True) as copy:
        assert [t.name for t in copy.codebook()] == ["unions"]


def test_a_change_by_another_connection_makes_a_new_copy(tmp_path):
    import sqlite3

    path = made_by_dedup(tmp_path)
    first = open_as(path, "ann")
    with Project.open(path, backups=5) as project:
        project.wait_for_backup()
        other = sqlite3.connect(path)
        with other:
            other.execute("INSERT INTO meta (key, value) VALUES ('note', 'written elsewhere')")
        other.close()
    second = open_as(path, "ann")
    assert second != first and list_backups(path) == [first, second]


def test_copies_take_at_most_twice_the_newest_copy(tmp_path, monkeypatch):
    # Five copies of a 549 MB project were 2.7 GB: the count alone did not bound the disk.
    from workbench.store.safety import backup

    monkeypatch.setattr(backup, "BUDGET_FLOOR_BYTES", 0)  # as for a big project
    path = made_by_dedup(tmp_path)
    made = [open_as(path, "ann", tag=f"tag {n}") for n in range(5)]
    kept = list_backups(path)
    assert kept == made[-2:], "the newest two copies fit the budget, older ones go"
    assert sum(p.stat().st_size for p in kept) <= backup.BUDGET_TIMES * kept[-1].stat().st_size


def test_small_projects_keep_every_copy_within_the_floor(tmp_path):
    path = made_by_dedup(tmp_path)
    made = [open_as(path, "ann", tag=f"tag {n}") for n in range(6)]
    assert list_backups(path) == made[-5:]  # keep=5 alone decides


def test_a_killed_sessions_leftovers_go_even_when_no_copy_is_made(tmp_path):
    # A session killed while writing the note (or a copy) leaves a ".partial" file; the
    # next opening that needs no copy must still clear it (scripts/backup_kill_loop.py).
    path = made_by_dedup(tmp_path)
    made = open_as(path, "ann")
    leftovers = [made.parent / ".newest-copy.json.c4b2e36a.partial",
                 made.parent / f"{made.name}.partial"]
    for leftover in leftovers:
        leftover.write_bytes(b"half")
    assert open_as(path, "ann") == made  # no change: no copy
    assert not any(p.exists() for p in leftovers)
