"""Finder's "open this file" (a QFileOpenEvent, how macOS opens a document in an app):
opened in the running window the way File ▸ Open does, also when it comes first."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication, QDialog

from tests.gui.app_loop import run_app_until
from workbench.gui.fileopen import FileOpenRequests
from workbench.gui.project.locations import APP_NAME, ORG_NAME
from workbench.store import Project


@pytest.fixture
def requests():
    requests = FileOpenRequests(QApplication.instance())
    yield requests
    requests.detach()
    requests.deleteLater()


def a_project(path: Path) -> Path:
    """A project whose crawl is gone: opening it starts no detection run."""
    Project.create(path, str(path.parent / "crawl-moved-away")).close()
    return path


def finder_opens(path: Path | str) -> None:
    """What macOS does for a double-click in Finder: a file-open event to the application."""
    QApplication.postEvent(QApplication.instance(), QFileOpenEvent(str(path)))


def test_a_project_opened_in_finder_opens_in_the_window(qtbot, window, requests, tmp_path):
    project = a_project(tmp_path / "study.wbproj")
    requests.attach(window)
    finder_opens(project)
    qtbot.waitUntil(lambda: window.project is not None, timeout=5000)
    assert window.project.path == project
    assert window.windowTitle().startswith("crawl-moved-away")


def test_a_request_before_the_window_opens_once_it_is_up(qtbot, window, requests, tmp_path):
    project = a_project(tmp_path / "study.wbproj")
    QApplication.sendEvent(QApplication.instance(), QFileOpenEvent(QUrl.fromLocalFile(str(project))))
    QApplication.processEvents()
    assert requests.received and window.project is None  # no window yet to open it in
    requests.attach(window)
    qtbot.waitUntil(lambda: window.project is not None, timeout=5000)
    assert window.project.path == project


def test_a_bad_file_gets_a_dialog_and_the_open_project_stays(qtbot, window, prompter, requests,
                                                             tmp_path):
    first = a_project(tmp_path / "first.wbproj")
    bad = tmp_path / "notes.wbproj"
    bad.write_text("not a project", encoding="utf-8")
    requests.attach(window)
    finder_opens(first)
    qtbot.waitUntil(lambda: window.project is not None, timeout=5000)
    finder_opens(bad)
    qtbot.waitUntil(lambda: bool(prompter.errors), timeout=5000)
    assert prompter.errors[0][0] == "Cannot open the project"
    assert window.project is not None and window.project.path == first
    finder_opens(tmp_path / "gone")  # a crawl folder moved away since
    qtbot.waitUntil(lambda: len(prompter.errors) == 2, timeout=5000)
    assert prompter.errors[1] == ("Cannot open", f"{tmp_path / 'gone'} does not exist.")


def test_a_project_in_use_elsewhere_asks_first(qtbot, window, prompter, requests, tmp_path):
    project = a_project(tmp_path / "study.wbproj")
    requests.attach(window)
    prompter.choices.append(1)  # Cancel
    with Project.open(project):  # another window codes in it
        finder_opens(project)
        qtbot.waitUntil(lambda: "Project in use" in prompter.asked, timeout=5000)
    assert window.project is None


def test_a_request_waits_for_an_open_dialog(qtbot, window, requests, tmp_path):
    """A project does not change under an open dialog (settings, export): it opens after."""
    project = a_project(tmp_path / "study.wbproj")
    requests.attach(window)
    dialog = QDialog(window)
    dialog.setModal(True)
    dialog.show()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog, timeout=5000)
    finder_opens(project)
    qtbot.waitUntil(lambda: requests.received, timeout=5000)
    QApplication.processEvents()
    assert window.project is None and requests.pending == project
    dialog.accept()
    qtbot.waitUntil(lambda: window.project is not None, timeout=5000)
    assert window.project.path == project


def test_run_app_opens_what_finder_asked_for_instead_of_the_demo(qtbot, tmp_path, monkeypatch):
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    QSettings(ORG_NAME, APP_NAME).setValue("coder", "Finder User")
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    project = a_project(tmp_path / "study.wbproj")

    def ready(win):
        if win.project is None:
            return None
        return {"project": win.project.path, "projects_made": list((tmp_path / "data").glob("projects/*"))}

    # Finder's event, waiting for the app's event loop
    seen = run_app_until(ready, before_loop=lambda: finder_opens(project))
    assert seen["project"] == project
    assert seen["projects_made"] == []  # the demo archive was never opened
