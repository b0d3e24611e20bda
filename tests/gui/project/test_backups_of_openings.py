"""Opening a big project in the window twice adds at most one backup copy (issue 34).

Everything is real: `workbench dedup --project` makes the project, the window opens it
by its keyboard shortcut (as the coder would) and closes it, twice.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.store.safety.backup import backup_dir_for, list_backups


def _open_and_close(qtbot, window, prompter, path: Path) -> None:
    prompter.folders.insert(0, str(path))  # the Open Project dialog's answer
    qtbot.keyClick(window, Qt.Key.Key_O,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.project is not None and window.project.path == path
    assert window.job is None  # it has a run: nothing to detect
    window.project.wait_for_backup()
    assert window.close_project()


def test_opening_a_project_twice_adds_one_copy(qtbot, window, prompter, tmp_path):
    path = tmp_path / "study.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(path), "-q"]) == 0
    _open_and_close(qtbot, window, prompter, path)
    _open_and_close(qtbot, window, prompter, path)
    copies = list_backups(path)
    assert len(copies) == 1, [p.name for p in copies]
    on_disk = sum(p.stat().st_size for p in backup_dir_for(path).iterdir())
    assert on_disk <= path.stat().st_size + 4096  # one copy and its note
    assert not prompter.errors


def test_the_window_says_where_the_backups_are(qtbot, demo_window, prompter):
    w = demo_window
    folder = str(backup_dir_for(w.project.path))
    w.actions_by_name["show_project"].trigger()  # File ▸ Show Project File
    assert prompter.revealed == [w.project.path]
    assert f"Backup copies are in {folder}" in w.statusBar().currentMessage()
    assert folder in w.project_label.toolTip()
