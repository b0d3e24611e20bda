"""Opening a project on a network drive: the window warns, and copies it here if asked.

The detector is made to say "network" for one folder; everything else is real: the
window, its menu shortcut, the project files and the copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.gui.project.opening import CANCEL, COPY_HERE, OPEN_ANYWAY
from workbench.store import Project
from workbench.store.safety import network_drive


@pytest.fixture
def share(tmp_path: Path, monkeypatch) -> Path:
    """A project in a folder the detector takes for an SMB share."""
    folder = tmp_path / "share"
    folder.mkdir()
    path = folder / "study.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(path), "-q"]) == 0

    def place(p, platform=None):
        return "smbfs" if folder in (Path(p), *Path(p).parents) else None

    monkeypatch.setattr(network_drive, "network_place", place)
    return path


def _open_by_keyboard(qtbot, window, prompter, path: Path) -> None:
    prompter.folders.insert(0, str(path))  # the Open Project dialog's answer comes first
    qtbot.keyClick(window, Qt.Key.Key_O,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)


def test_copy_to_this_computer_codes_in_a_local_copy(qtbot, window, prompter, share, tmp_path):
    before = share.read_bytes()
    local = tmp_path / "local" / "study.wbproj"
    local.parent.mkdir()
    prompter.choices.append(0)  # Copy to This Computer…
    prompter.folders.append(str(local.with_suffix("")))  # Save As, without the suffix
    _open_by_keyboard(qtbot, window, prompter, share)
    title, text, buttons = prompter.chosen[0]
    assert title == "Project on a network drive"
    assert buttons == [COPY_HERE, OPEN_ANYWAY, CANCEL]
    assert "study.wbproj is on a network drive (smbfs)" in text
    assert "write-ahead log" in text and "Copy the project to this computer" in text
    assert window.project is not None and window.project.path == local
    assert not window.project.readonly
    assert [t for t, _ in prompter.infos] == ["Copied to this computer"]
    assert str(local) in prompter.infos[0][1]
    assert share.read_bytes() == before  # the file on the share is only read
    with Project.open(share, backups=0, readonly=True) as original:
        assert [r.id for r in window.project.list_clusters()] == \
            [r.id for r in original.list_clusters()]


def test_open_anyway_opens_the_file_on_the_share(qtbot, window, prompter, share):
    prompter.choices.append(1)
    _open_by_keyboard(qtbot, window, prompter, share)
    assert window.project is not None and window.project.path == share
    assert not window.project.readonly


def test_cancel_opens_nothing(qtbot, window, prompter, share):
    prompter.choices.append(2)
    _open_by_keyboard(qtbot, window, prompter, share)
    assert window.project is None and prompter.errors == []


def test_a_copy_onto_another_share_is_refused(qtbot, window, prompter, share):
    prompter.choices.append(0)
    prompter.folders.append(str(share.parent / "copy.wbproj"))
    _open_by_keyboard(qtbot, window, prompter, share)
    assert window.project is None
    assert prompter.errors and prompter.errors[0][0] == "Not copied"
    assert "network drive too (smbfs)" in prompter.errors[0][1]
    assert not (share.parent / "copy.wbproj").exists()


def test_a_local_project_opens_without_a_question(qtbot, window, prompter, share, tmp_path):
    local = tmp_path / "here.wbproj"
    with Project.open(share, backups=0, readonly=True) as source:
        source.save_copy(local)
    _open_by_keyboard(qtbot, window, prompter, local)
    assert window.project is not None and window.project.path == local
    assert prompter.chosen == []
