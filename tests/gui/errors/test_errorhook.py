"""An exception no slot caught becomes a dialog and a log line, never only stderr."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from workbench.gui.errors.failures import explain, failure_logger
from workbench.store.errors import ProjectError, describe_storage_error


def locked_error(tmp_path) -> sqlite3.OperationalError:
    """A real 'database is locked' from SQLite: a second writer while the first holds it."""
    path = tmp_path / "locked.db"
    first = sqlite3.connect(path, isolation_level=None)
    first.execute("CREATE TABLE t (x)")
    first.execute("BEGIN IMMEDIATE")
    second = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        second.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        second.close()
        first.execute("ROLLBACK")
        first.close()
    raise AssertionError("SQLite let two writers in")


def test_storage_error_gets_the_storage_message(tmp_path):
    exc = locked_error(tmp_path)
    failure = explain(exc, tmp_path / "workbench.log")
    assert failure.title == "Could not save or read the project"
    assert describe_storage_error(exc) in failure.text
    assert "saved in the project file" in failure.text
    assert "OperationalError" in failure.details


def test_other_errors_are_named_and_point_at_the_log(tmp_path):
    log = tmp_path / "workbench.log"
    bug = explain(KeyError("cluster 7"), log)
    assert bug.title == "Unexpected error"
    assert "KeyError" in bug.text and str(log) in bug.text
    project = explain(ProjectError("study.wbproj is closed."), log)
    assert project.title == "Project problem" and project.text.startswith("study.wbproj is closed.")
    missing = explain(FileNotFoundError(2, "No such file or directory", "/gone/page.html"), log)
    assert missing.title == "File problem" and "/gone/page.html" in missing.text


def test_log_file_gets_the_traceback(tmp_path):
    logger, path = failure_logger(tmp_path / "logs")
    try:
        raise ValueError("the detail we need")
    except ValueError as exc:
        logger.error("uncaught", exc_info=exc)
    for handler in logger.handlers:
        handler.flush()
    assert path is not None and "the detail we need" in path.read_text(encoding="utf-8")


@pytest.mark.qt_no_exception_capture
def test_storage_error_in_a_slot_shows_a_dialog(qtbot, demo_window, prompter, tmp_path, monkeypatch):
    """A coding key whose action fails in SQLite: the coder is told, the window goes on."""
    w = demo_window
    reporter = w.error_reporter
    reporter.install()
    try:
        w.select_row(0)
        tag = w.project.codebook()[0] if w.project.codebook() else None
        if tag is None:
            w.project.add_tag("Story", shortcut="1")
            w.refresh()
        error = locked_error(tmp_path)

        def fail(*_args, **_kwargs):
            raise error

        monkeypatch.setattr(w.project, "toggle_tag", fail)
        with qtbot.waitSignal(reporter.reported, timeout=5000) as blocker:
            qtbot.keyClick(w.table, "1")
        assert blocker.args == ["Could not save or read the project"]
        assert prompter.errors[-1][0] == "Could not save or read the project"
        assert describe_storage_error(error) in prompter.errors[-1][1]
    finally:
        reporter.uninstall()


@pytest.mark.qt_no_exception_capture
def test_exception_on_a_helper_thread_is_shown_on_the_gui_thread(qtbot, window, prompter):
    reporter = window.error_reporter
    reporter.install()
    try:
        def boom():
            raise RuntimeError("backup thread failed")

        with qtbot.waitSignal(reporter.reported, timeout=5000):
            thread = threading.Thread(target=boom)
            thread.start()
            thread.join()
        assert prompter.errors[-1][0] == "Unexpected error"
        assert "backup thread failed" in prompter.errors[-1][1]
    finally:
        reporter.uninstall()
