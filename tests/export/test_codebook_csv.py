"""Codebook CSV: export then import gives the same codebook."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.export import read_codebook, write_codebook
from workbench.store import Project, ProjectError


def entries(project: Project) -> list[tuple]:
    names = {t.id: t.name for t in project.codebook()}
    return sorted((t.name, t.description, t.colour, t.shortcut, names.get(t.parent_id))
                  for t in project.codebook())


def test_round_trip(tmp_path: Path) -> None:
    a = Project.create(tmp_path / "a.wbproj", "/crawl", coder="ann")
    labour = a.add_tag("labour", "Work, unions; strikes", "#aa0000", "L").id
    a.add_tag("strikes", '=IMPORTXML("x") "quoted"\nsecond line', "#bb0000", "S",
              parent_id=labour)
    a.add_tag("'quoted name", "-starts with minus", "", None)
    a.add_tag("Über-Thema", "@mention, 'quote", "#00ff00", "Ctrl+1")
    write_codebook(a.codebook(), tmp_path / "codebook.csv")
    b = Project.create(tmp_path / "b.wbproj", "/crawl", coder="bob")
    b.import_codebook(read_codebook(tmp_path / "codebook.csv"))
    assert entries(b) == entries(a)
    # Importing again changes nothing (and logs nothing).
    assert b.import_codebook(read_codebook(tmp_path / "codebook.csv")).action_id is None
    # The whole import is one undoable action.
    b.add_tag("extra")
    b.undo()
    b.undo()
    assert b.codebook() == []


def test_cells_are_inert_in_the_file(tmp_path: Path) -> None:
    p = Project.create(tmp_path / "a.wbproj", "/crawl")
    p.add_tag("x", "=1+1")
    write_codebook(p.codebook(), tmp_path / "c.csv")
    assert "'=1+1" in (tmp_path / "c.csv").read_text(encoding="utf-8")


def test_import_updates_existing_tags_and_resolves_parents(tmp_path: Path) -> None:
    csv_path = tmp_path / "c.csv"
    csv_path.write_text("\ufeffName,Description,Colour,Shortcut,Parent\n"
                        "child,kid,#123456,,parent\nparent,top,,,\n", encoding="utf-8")
    p = Project.create(tmp_path / "a.wbproj", "/crawl")
    p.add_tag("Parent", "old description")
    p.import_codebook(read_codebook(csv_path))
    tags = {t.name: t for t in p.codebook()}
    assert len(tags) == 2
    # Matched case-insensitively; the file's spelling and fields win.
    assert tags["parent"].description == "top"
    assert tags["child"].parent_id == tags["parent"].id and tags["child"].colour == "#123456"


@pytest.mark.parametrize("text, message", [
    ("description\nx\n", "needs a 'name' column"),
    ("name,description\n\n,x\n", "no name"),
    ("name\na,b\n", "more cells"),
])
def test_bad_files_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "c.csv").write_text(text, encoding="utf-8")
    with pytest.raises(ProjectError, match=message):
        read_codebook(tmp_path / "c.csv")


def test_bad_entries_are_refused_whole(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("name,parent\na,\nb,nowhere\n", encoding="utf-8")
    p = Project.create(tmp_path / "a.wbproj", "/crawl")
    with pytest.raises(ProjectError, match="nowhere"):
        p.import_codebook(read_codebook(tmp_path / "c.csv"))
    assert p.codebook() == []
    (tmp_path / "d.csv").write_text("name\nx\nX\n", encoding="utf-8")
    with pytest.raises(ProjectError, match="twice"):
        p.import_codebook(read_codebook(tmp_path / "d.csv"))


@pytest.mark.parametrize("data, message", [
    (b"name,colour\nok,#112233\nbad,red\n", r"line 3: Colour 'red'"),
    (b"name\nok\n=cmd()\n", "line 3: Tag name '=cmd\\(\\)' may not start"),
    ("name\nCafé\n".encode("latin-1"), "not UTF-8 text .*CSV UTF-8"),
])
def test_bad_cells_name_their_line_and_change_nothing(tmp_path: Path, data: bytes,
                                                      message: str) -> None:
    (tmp_path / "c.csv").write_bytes(data)
    with pytest.raises(ProjectError, match=message):
        read_codebook(tmp_path / "c.csv")


def test_a_parent_cycle_names_the_tag_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("name,parent\na,b\nb,a\n", encoding="utf-8")
    p = Project.create(tmp_path / "a.wbproj", "/crawl")
    p.add_tag("keep")
    last = p.next_undo()
    with pytest.raises(ProjectError, match="Tag 'b' cannot have parent 'a'"):
        p.import_codebook(read_codebook(tmp_path / "c.csv"))
    assert [t.name for t in p.codebook()] == ["keep"] and p.next_undo() == last
