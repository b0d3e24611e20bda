"""Files a person names (an export, a new project) are refused with a reason when the
system the workbench runs on cannot store that name; Windows' rules simulated here."""

from __future__ import annotations

import sys

import pytest

from tests.store.builders import new_project
from workbench.export.pages import export_pages
from workbench.store import Project, ProjectError
from workbench.store.safety.outputs import check_output
from workbench.store.safety.whole_files import OutputRefused, whole_file

WINDOWS_REFUSES = [("CON.csv", "reserves the name CON"), ("aux", "reserves the name aux"),
                   ("lpt1.json", "reserves the name lpt1"), ("a:b.csv", "character ':'"),
                   ("tagged.", "dot or space at the end"), ("tagged ", "dot or space")]


@pytest.mark.parametrize("name, says", WINDOWS_REFUSES)
def test_on_windows_an_output_name_it_cannot_store_is_refused(tmp_path, monkeypatch, name,
                                                             says):
    monkeypatch.setattr(sys, "platform", "win32")
    with pytest.raises(OutputRefused, match=says):
        check_output(tmp_path / name, what="--out")
    with pytest.raises(OutputRefused, match="Choose another file name"), whole_file(tmp_path / name):
        pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [n for n, _ in WINDOWS_REFUSES])
def test_linux_stores_those_names(tmp_path, name):
    with whole_file(check_output(tmp_path / name)) as fh:
        fh.write("x")
    assert (tmp_path / name).read_text() == "x"


def test_on_windows_an_export_to_a_device_writes_nothing(tmp_path, monkeypatch):
    project = new_project(tmp_path, [2, 2])
    try:
        monkeypatch.setattr(sys, "platform", "win32")
        with pytest.raises(OutputRefused, match="reserves the name nul for a device"):
            export_pages(project, tmp_path / "nul.csv")
    finally:
        monkeypatch.undo()
        project.close()
    assert not (tmp_path / "nul.csv").exists()


@pytest.mark.parametrize("name", ["aux.wbproj", "study:2.wbproj", "COM3.wbproj"])
def test_on_windows_a_project_named_like_a_device_is_not_created(tmp_path, monkeypatch, name):
    monkeypatch.setattr(sys, "platform", "win32")
    with pytest.raises(ProjectError, match="Choose another name"):
        Project.create(tmp_path / name, str(tmp_path))
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []
