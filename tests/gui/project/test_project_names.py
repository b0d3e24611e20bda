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


@pytest.mark.parametrize("archive, name", [
    ("/data/crawl", "crawl-tagged.csv"), ("/data/" + "y" * 250, "y" * 119 + "-tagged.csv"),
    ("/data/a:b", "a_b-tagged.csv"), ("/data/crawl.", "crawl-tagged.csv"), ("/", "export-tagged.csv"),
])
def test_the_export_dialogs_file_name_is_portable(tmp_path, archive, name):
    from types import SimpleNamespace

    from PySide6.QtCore import QSettings

    from workbench.gui.project.export_actions import default_export_path

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("lastExportFolder", str(tmp_path))
    window = SimpleNamespace(settings=settings, project=SimpleNamespace(archive_root=archive))
    path = default_export_path(window)
    assert path == tmp_path / name
    assert name_problem(path.name, "win32") is None


def test_a_project_named_like_another_archives_but_for_case_is_not_shared(tmp_path):
    projects = tmp_path / "projects"
    projects.mkdir()
    first, second = tmp_path / "a" / "Crawl", tmp_path / "b" / "crawl"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    path, _ = project_for_archive(first, projects)
    Project.create(path, str(first.resolve())).close()
    other, exists = project_for_archive(second, projects)
    # On Windows and macOS "crawl.wbproj" would be Crawl's project file.
    assert (other.name, exists) == ("crawl-2.wbproj", False)
    Project.create(other, str(second.resolve())).close()
    assert project_for_archive(second, projects) == (other, True)
    assert project_for_archive(first, projects) == (path, True)
