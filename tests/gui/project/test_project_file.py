"""The window and the project file: in use elsewhere, read-only, damaged, a run that never finished."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from tests.conftest import DEMO_ARCHIVE
from tests.gui.conftest import RUN_TIMEOUT_MS, FakePrompter
from tests.store.faults import btree_page_near, flip_bytes, read_only
from workbench.gui.dialogs import ExportOptions
from workbench.gui.project.export_actions import export_csv
from workbench.store import Project


def add_tag(w, name: str, key: str):
    w.project.add_tag(name, shortcut=key)
    w.refresh()
    return w.project.tag_by_name(name)


@pytest.fixture
def second_window(qtbot, tmp_path):
    """Another window of the same user, on the same projects folder (as a second app)."""
    from workbench.gui.app import make_window

    settings = QSettings(str(tmp_path / "settings-2.ini"), QSettings.Format.IniFormat)
    settings.setValue("coder", "Bea Second")
    prompter = FakePrompter()
    win = make_window(settings, prompter, projects_folder=tmp_path / "projects", workers=1)
    qtbot.addWidget(win)
    win.show()
    yield win, prompter
    win.close_project()


def tags_on_pages(project: Project) -> dict[int, tuple[str, ...]]:
    return {r.page_id: tuple(r.tags) for r in project.page_records()}


def test_second_window_is_offered_read_only_and_cannot_code(qtbot, demo_window, second_window,
                                                           tmp_path):
    first = demo_window
    tag = add_tag(first, "strike", "1")
    first.select_row(0)
    first.coding.toggle_tag(tag.id)
    coded = tags_on_pages(first.project)
    other, prompter = second_window
    prompter.choices.append(0)  # Open Read-Only
    assert other.open_archive(DEMO_ARCHIVE)
    assert prompter.chosen and prompter.chosen[0][0] == "Project in use"
    assert other.project.path == first.project.path and other.project.readonly
    assert other.readonly_label.isVisible() and "coding is off" in other.readonly_label.text()
    assert "open for coding by" in other.readonly_label.text()  # says whose window has it
    assert "(read-only)" in other.windowTitle()
    assert not other.actions_by_name["undo"].isEnabled()
    assert not other.actions_by_name["split"].isEnabled()
    # A coding key does nothing to the file and says why.
    other.select_row(0)
    qtbot.keyClick(other.table, "1")
    assert "Read-only" in other.statusBar().currentMessage()
    assert tags_on_pages(first.project) == coded
    # The first window's undo still undoes its own action, nothing of the other's.
    first.coding.undo()
    assert tags_on_pages(first.project) != coded
    # Export works read-only.
    out = tmp_path / "export.csv"
    assert export_csv(other, ExportOptions(out, coded_only=False)) is not None
    assert out.is_file() and out.stat().st_size > 0


def test_second_window_can_cancel(demo_window, second_window):
    other, prompter = second_window
    prompter.choices.append(1)  # Cancel
    assert not other.open_archive(DEMO_ARCHIVE)
    assert other.project is None
    assert demo_window.project is not None and not demo_window.project.readonly


def test_read_only_file_opens_for_reading(demo_window, second_window, tmp_path):
    path = demo_window.project.path
    demo_window.close_project()
    other, prompter = second_window
    with read_only(path):
        assert other.open_project(path)
        assert other.project.readonly and prompter.chosen == []
        assert other.readonly_label.isVisible()
        out = tmp_path / "ro.csv"
        assert export_csv(other, ExportOptions(out, coded_only=False)) is not None
        other.close_project()


def test_damaged_project_offers_its_newest_good_backup(qtbot, demo_window, prompter):
    w = demo_window
    tag = add_tag(w, "kept", "1")
    w.select_row(0)
    w.coding.toggle_tag(tag.id)
    path = w.project.path
    w.close_project()
    # Opening again makes the backup that holds the tag.
    with Project.open(path) as project:
        assert project.wait_for_backup() is not None
    page, size = btree_page_near(path, 0.5)
    flip_bytes(path, (page - 1) * size)  # the page header: structural damage
    prompter.choices.append(0)  # Restore Backup
    assert w.open_project(path)
    assert prompter.chosen[-1][0] == "Project damaged"
    assert "Backup restored" in prompter.asked
    assert not w.project.readonly and w.project.tag_by_name("kept") is not None
    assert list(path.parent.glob(path.name + ".damaged-*")), "the damaged file was not kept"


def test_unfinished_rerun_is_offered_with_its_settings(qtbot, demo_window, prompter):
    w = demo_window
    path = w.project.path
    before = w.project.current_run()
    requested = dict(before.params, tau=0.44)
    w.project.begin_run(requested)  # as a run started and then killed would leave it
    w.close_project()
    prompter.choices.append(0)  # Run Again
    with qtbot.waitSignal(w.run_finished, timeout=RUN_TIMEOUT_MS):
        assert w.open_project(path)
    question = prompter.chosen[-1]
    assert question[0] == "Last run did not finish" and "0.44" in question[1]
    run = w.project.current_run()
    assert run.id != before.id and run.params["tau"] == pytest.approx(0.44)
    assert w.project.pending_run() is None


def test_unfinished_run_can_be_forgotten(qtbot, demo_window, prompter):
    w = demo_window
    path = w.project.path
    before = w.project.current_run()
    w.project.begin_run(dict(before.params, tau=0.6))
    w.close_project()
    prompter.choices.append(2)  # Forget It
    assert w.open_project(path)
    assert w.job is None and w.project.current_run().id == before.id
    assert w.project.pending_run() is None


def test_failed_opening_backup_is_shown(qtbot, demo_window, prompter, monkeypatch):
    from workbench.store.safety import backup

    w = demo_window
    path = w.project.path
    w.close_project()

    def no_room(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backup, "make_backup", no_room)
    with qtbot.waitSignal(w.backup_watcher.settled, timeout=10_000) as blocker:
        assert w.open_project(path)
    assert blocker.args[0], "the watcher saw no problem"
    assert prompter.errors[-1][0] == "Backup on opening failed"
    assert "full" in prompter.errors[-1][1].lower()
    assert not w.project.readonly



def test_a_filter_change_after_closing_reads_nothing(qtbot, demo_window):
    """A debounced filter change that fires after the project closed must not read it
    (it raised 'is closed' in the event loop, 1 run of tests/gui in 45)."""
    from workbench.gui.filterbar import FilterBar

    w = demo_window
    assert w.model.rowCount() > 0
    w.filters.text.setText("harbour")  # starts the debounce timer
    w.close_project()
    qtbot.wait(FilterBar.DEBOUNCE_MS + 300)
    assert w.model.rowCount() == 0 and w.compare.cluster_id is None
