"""REFI-QDA codebooks (.qdc): written to the standard's schema, read back exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from tests.conftest import SHARED_DATA
from workbench.export.qdc import read_qdc, write_qdc
from workbench.store import Project, ProjectError, codebook_of

STANDARD = SHARED_DATA.parent / "standards" / "refi-qda"


def schema() -> etree.XMLSchema:
    if not (STANDARD / "Codebook.xsd").is_file():
        pytest.skip(f"the REFI-QDA schema is not in {STANDARD} (../shared is absent)")
    return etree.XMLSchema(etree.parse(str(STANDARD / "Codebook.xsd")))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project.create(tmp_path / "a.wbproj", "/crawl", coder="ann")
    labour = p.add_tag("labour", "Unions & <work>", "#46aa00", "1").id
    p.add_tag("strikes", "", "", None, labour)
    p.add_tag("local issue", "Town news", "#cc3333")
    p.add_tag("plain")
    return p


def fields(specs: list) -> list[tuple]:
    return sorted((s.name, s.description, s.colour, s.parent) for s in specs)


def test_written_file_follows_the_schema_and_reads_back(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "codes.qdc"
    assert write_qdc(project.codebook(), out) == 4
    schema().assertValid(etree.parse(str(out)))
    text = out.read_text(encoding="utf-8")
    assert 'color="#46AA00"' in text and "Unions &amp; &lt;work&gt;" in text
    got = read_qdc(out)
    assert got.notes == []
    assert fields(got.specs) == [
        ("labour", "Unions & <work>", "#46aa00", None), ("local issue", "Town news", "#cc3333", None),
        ("plain", "", "", None), ("strikes", "", "", "labour")]
    assert {s.name: s.guid for s in got.specs} == {t.name: t.guid for t in project.codebook()}


def test_a_round_trip_keeps_each_codes_identity(project: Project, tmp_path: Path) -> None:
    write_qdc(project.codebook(), tmp_path / "one.qdc")
    other = Project.create(tmp_path / "b.wbproj", "/crawl")
    other.import_codebook(read_qdc(tmp_path / "one.qdc").specs)
    assert {t.name: t.guid for t in other.codebook()} == {t.name: t.guid for t in project.codebook()}
    # Renamed in the other tool: the same tag, by its guid, takes the new name.
    text = (tmp_path / "one.qdc").read_text(encoding="utf-8").replace('name="plain"', 'name="simple"')
    (tmp_path / "two.qdc").write_text(text, encoding="utf-8")
    before = {t.guid: t.id for t in project.codebook()}
    project.import_codebook(read_qdc(tmp_path / "two.qdc").specs)
    assert {t.guid: t.id for t in project.codebook()} == before
    assert "simple" in {t.name for t in project.codebook()}


def test_reads_another_tools_codebook_with_sets(tmp_path: Path) -> None:
    schema()
    got = read_qdc(STANDARD / "example-atlasti.qdc")
    assert fields(got.specs) == [
        ("labour", "Stories about unions and work", "#46aa00", None),
        ("local issue", "", "#cc3333", None), ("strikes", "", "", "labour")]
    assert got.specs[0].guid == "1ff58b12-6f6f-4b0c-8be5-bbdc91f55294"
    (note,) = got.notes
    assert "Set 'economy' ('labour')" in note and "not imported" in note


DEEP = """<?xml version="1.0" encoding="utf-8"?>
<CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes>
 <Code guid="00000000-0000-4000-8000-000000000001" name="a" isCodable="true">
  <Code guid="00000000-0000-4000-8000-000000000002" name="b" isCodable="true">
   <Code guid="00000000-0000-4000-8000-000000000003" name="c" isCodable="false"/>
  </Code></Code></Codes></CodeBook>"""


def test_deeper_codes_go_to_their_top_level_ancestor(tmp_path: Path) -> None:
    (tmp_path / "deep.qdc").write_text(DEEP, encoding="utf-8")
    schema().assertValid(etree.parse(str(tmp_path / "deep.qdc")))
    got = read_qdc(tmp_path / "deep.qdc")
    assert [(s.name, s.parent) for s in got.specs] == [("a", None), ("b", "a"), ("c", "a")]
    assert got.notes == ["Code 'c' was nested 2 levels deep; it is imported as a sub-tag of "
                         "'a' (tags have one level of sub-tags)."]


@pytest.mark.parametrize("text, message", [
    ("<CodeBook", "not a valid XML file"),
    ("<Project xmlns='urn:QDA-XML:project:1.0'/>", "root element is 'Project'"),
    ("<CodeBook/>", "not a REFI-QDA codebook"),
    (DEEP.replace('isCodable="false"', ""), "line 5: code 'c' has no isCodable"),
    (DEEP.replace("0000-4000-8000-000000000002", "x"), "line 4: guid .* is not a GUID"),
    (DEEP.replace('name="b"', 'name="b" color="blue"'), "colour 'blue', not #RRGGBB"),
    (DEEP.replace('name="c"', 'name="A"'), "names 'A' twice"),
    (DEEP.replace("<Codes>", "<Codes><Other/>"), "<Other> is not allowed in <Codes>"),
])
def test_bad_files_are_clear_errors_and_import_nothing(tmp_path: Path, text: str,
                                                       message: str) -> None:
    bad = tmp_path / "bad.qdc"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectError, match=message):
        read_qdc(bad)
    with pytest.raises(ProjectError, match="bad.qdc"):
        read_qdc(bad)


def test_a_new_project_starts_from_another_projects_codebook(project: Project,
                                                              tmp_path: Path) -> None:
    specs = codebook_of(project.path)  # opened read-only beside the writer
    assert [s.name for s in specs][:3] == ["labour", "local issue", "plain"]
    new = Project.create(tmp_path / "new.wbproj", "/crawl")
    new.import_codebook(specs)
    mine = {t.name: (t.description, t.colour, t.shortcut, t.guid) for t in project.codebook()}
    assert {t.name: (t.description, t.colour, t.shortcut, t.guid)
            for t in new.codebook()} == mine
    parents = {t.id: t.name for t in new.codebook()}
    assert {t.name: parents.get(t.parent_id) for t in new.codebook()}["strikes"] == "labour"
    with pytest.raises(ProjectError, match="not a SpotSigs Workbench project|does not exist"):
        codebook_of(tmp_path / "missing.wbproj")
