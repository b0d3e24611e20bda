"""A project file named after an archive folder is a valid name on Windows and macOS too."""

from __future__ import annotations

import pytest

from workbench.gui.project.locations import project_for_archive
from workbench.store import Project
from workbench.store.safety.portable_names import name_problem


@pytest.mark.parametrize("folder_name, project_name", [
    ("CON", "_CON.wbproj"), ("aux", "_aux.wbproj"), ("com1.warcs", "_com1.warcs.wbproj"),
    ("crawl. ", "crawl.wbproj"), ("a:b\\c", "a-b-c.wbproj"), ("x" * 250, "x" * 119 + ".wbproj"),
])
def test_an_archive_folders_name_makes_a_portable_project_name(tmp_path, folder_name,
                                                               project_name):
    root = tmp_path / folder_name
    root.mkdir()
    projects = tmp_path / "projects"
    projects.mkdir()
    path, exists = project_for_archive(root, projects)
    assert (path.name, exists) == (project_name, False)
    for platform in ("win32", "darwin", "linux"):
        assert name_problem(path.name, platform) is None
    Project.create(path, str(root.resolve())).close()
    assert project_for_archive(root, projects) == (path, True)  # found again
