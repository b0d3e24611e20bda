"""The window never writes an output over its own project: Export (Ctrl+E) and Export
Codebook onto the open project are refused with a dialog, and Save Project As onto a
project open elsewhere, or over a leftover -wal, neither mixes nor damages anything."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt

from tests.gui.test_window import add_tag, focus_table, stay_after_tagging
from tests.store.builders import new_project, snapshot
from tests.store.faults import run_python
from tests.store.test_save_as import KILLED_WRITER
from tests.store.test_sharing import _start_holder, _stop
from workbench.gui.dialogs import ExportOptions
from workbench.store import Project


def tags_on_pages(path) -> dict[str, tuple[str, ...]]:
    with Project.open(path, backups=0, readonly=True) as project:
        return {r.source: tuple(r.tags) for r in project.page_records() if r.tags}


def test_export_onto_the_open_project_is_refused_and_later_tags_are_kept(
        qtbot, demo_window, prompter):
    w = demo_window
    stay_after_tagging(w)
    add_tag(qtbot, w, prompter, "unions")
    add_tag(qtbot, w, prompter, "strike")
    w.select_row(0)
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    path = w.project.path
    prompter.exports.append(ExportOptions(path, coded_only=False))
    qtbot.keyClick(w.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert prompter.errors and prompter.errors[-1][0] == "Export failed"
    assert "is the project" in prompter.errors[-1][1]
    # A tag made afterwards is acknowledged and survives closing and reopening.
    w.select_row(1)
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_2)
    coded = tags_on_pages(path)
    assert sorted(set(coded.values())) == [("strike",), ("unions",)]
    assert w.close_project()
    assert w.open_project(path)
    assert tags_on_pages(path) == coded and w.project.integrity_problems() == []


def test_export_codebook_onto_the_open_project_is_refused(qtbot, demo_window, prompter):
    w = demo_window
    add_tag(qtbot, w, prompter, "unions")
    add_tag(qtbot, w, prompter, "strike")
    # A project file named like a codebook (any name opens): the export keeps the name.
    path = w.project.path
    assert w.close_project()
    named = path.with_name("coded.csv")
    path.rename(named)
    assert w.open_project(named)
    before = snapshot(named)
    prompter.folders.append(str(named))
    w.actions_by_name["export_codebook"].trigger()
    assert prompter.errors and prompter.errors[-1][0] == "Cannot export the codebook"
    assert "is the project" in prompter.errors[-1][1]
    assert [t.name for t in w.project.codebook()] == ["unions", "strike"]
    assert w.close_project()
    assert snapshot(named) == before


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")
def test_save_as_onto_a_project_open_elsewhere_is_refused(qtbot, demo_window, prompter,
                                                         tmp_path):
    w = demo_window
    add_tag(qtbot, w, prompter, "unions")
    (tmp_path / "t").mkdir()
    built = new_project(tmp_path / "t", [2, 2])
    built.close()
    target = built.path
    holder = _start_holder(target, hold_transaction=False)
    try:
        before = snapshot(target)
        source = w.project.path
        prompter.folders.append(str(target))
        w.actions_by_name["save_as"].trigger()
        assert prompter.errors and prompter.errors[-1][0] == "Save As failed"
        assert "open for writing by" in prompter.errors[-1][1]
        assert w.project is not None and w.project.path == source
        assert w.project.tag_by_name("unions") is not None
    finally:
        _stop(holder)
    assert snapshot(target) == before


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")
def test_save_as_over_a_leftover_wal_opens_a_whole_copy(qtbot, demo_window, prompter,
                                                       tmp_path):
    w = demo_window
    stay_after_tagging(w)
    add_tag(qtbot, w, prompter, "unions")
    w.select_row(0)
    focus_table(qtbot, w)
    qtbot.keyClick(w.table, Qt.Key.Key_1)
    ours = tags_on_pages(w.project.path)
    (tmp_path / "t").mkdir()
    target = new_project(tmp_path / "t", [2, 2])
    target.close()
    done = run_python(KILLED_WRITER, PATH=str(target.path))
    assert done.returncode == 0, done.stderr
    assert target.path.with_name(target.path.name + "-wal").stat().st_size > 0
    prompter.folders.append(str(target.path))
    w.actions_by_name["save_as"].trigger()
    assert prompter.errors == []
    assert w.project.path == target.path
    assert w.project.integrity_problems() == []
    assert w.project.tag_by_name("their tag 0") is None
    assert w.project.count_clusters() == 5
    assert w.close_project()
    assert tags_on_pages(target.path) == ours
