"""Codebooks that travel, through the window: .qdc and CSV out and in, another project's."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_DATA

REFI = SHARED_DATA.parent / "standards" / "refi-qda"


def tags_of(project):
    by_id = {t.id: t for t in project.codebook()}
    return sorted((t.name, t.colour, t.description, by_id[t.parent_id].name if t.parent_id else None)
                  for t in by_id.values())


def make_codebook(w):
    economy = w.project.add_tag("economy", "Money and work", "#4363d8", "1")
    w.project.add_tag("strike", "Work stoppages", "#e6194b", "2", economy.id)
    w.project.add_tag("schools", "", "#3cb44b", "3")
    w.refresh()


@pytest.mark.parametrize("suffix", [".qdc", ".csv"])
def test_export_then_import_into_another_project(qtbot, demo_window, prompter, tmp_path, suffix):
    w = demo_window
    make_codebook(w)
    before = tags_of(w.project)
    out = tmp_path / f"codebook{suffix}"
    prompter.folders.append(str(out))
    w.actions_by_name["export_codebook"].trigger()
    assert out.is_file()
    # A fresh project (no tags) takes it in; one undo takes it out again.
    for tag in w.project.codebook():
        w.project.delete_tag(tag.id)
    assert w.project.codebook() == []
    prompter.folders.append(str(out))
    w.actions_by_name["import_codebook"].trigger()
    assert tags_of(w.project) == before
    assert "Imported 3 tags" in w.statusBar().currentMessage()
    w.coding.undo()
    assert w.project.codebook() == []


def test_written_qdc_validates_against_the_refi_qda_schema(qtbot, demo_window, prompter, tmp_path):
    if not (REFI / "Codebook.xsd").is_file():
        pytest.skip(f"needs {REFI / 'Codebook.xsd'} (the team's shared standards), which is absent")
    from lxml import etree

    w = demo_window
    make_codebook(w)
    out = tmp_path / "book.qdc"
    prompter.folders.append(str(out))
    w.actions_by_name["export_codebook"].trigger()
    schema = etree.XMLSchema(etree.parse(str(REFI / "Codebook.xsd")))
    assert schema.validate(etree.parse(str(out))), schema.error_log


def test_atlas_ti_codebook_comes_in_with_hierarchy_and_colours(qtbot, demo_window, prompter):
    example = REFI / "example-atlasti.qdc"
    if not example.is_file():
        pytest.skip(f"needs {example} (the team's shared standards), which is absent")
    w = demo_window
    prompter.folders.append(str(example))
    prompter.confirms.append(True)  # the notes (sets not imported...) are shown first
    w.actions_by_name["import_codebook"].trigger()
    tags = w.project.codebook()
    assert tags and any(t.parent_id is not None for t in tags)
    assert all(t.colour.startswith("#") and len(t.colour) == 7 for t in tags if t.colour)
    assert "Import Codebook" in prompter.asked


def test_a_foreign_file_gets_a_message_and_changes_nothing(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    make_codebook(w)
    before = tags_of(w.project)
    bad = tmp_path / "not-a-codebook.qdc"
    bad.write_text("<html><body>hello</body></html>", encoding="utf-8")
    prompter.folders.append(str(bad))
    w.actions_by_name["import_codebook"].trigger()
    assert prompter.errors and prompter.errors[-1][0] == "Cannot import the codebook"
    assert tags_of(w.project) == before


def test_new_project_starts_from_another_projects_codebook(qtbot, demo_window, prompter, tmp_path):
    from workbench.store import Project

    other = tmp_path / "other.wbproj"
    with Project.create(other, str(tmp_path), coder="ann") as project:
        parent = project.add_tag("health", colour="#911eb4")
        project.add_tag("hospitals", parent_id=parent.id)
    w = demo_window
    prompter.folders.append(str(other))
    w.actions_by_name["import_project_codebook"].trigger()
    names = {t.name: t for t in w.project.codebook()}
    assert set(names) == {"health", "hospitals"}
    assert names["hospitals"].parent_id == names["health"].id


def test_export_to_a_folder_that_is_not_there_says_so(qtbot, demo_window, prompter, tmp_path):
    w = demo_window
    make_codebook(w)
    prompter.folders.append(str(tmp_path / "gone" / "book.qdc"))
    w.actions_by_name["export_codebook"].trigger()
    assert prompter.errors and prompter.errors[-1][0] == "Cannot export the codebook"
