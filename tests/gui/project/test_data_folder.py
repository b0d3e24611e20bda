"""Where the projects folder is on each system (locations.user_data_folder, Qt-free)."""

from __future__ import annotations

import re
from pathlib import Path

from platformdirs.macos import MacOS

from tests.conftest import REPO
from workbench.gui.project.locations import APP_NAME, ORG_NAME, data_dir, user_data_folder

LIBRARY = Path.home() / "Library" / "Application Support" / APP_NAME


def test_macos_application_support_also_with_xdg_set(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    # Where platformdirs puts it too, in the environment Finder starts an app with...
    assert user_data_folder("darwin") == LIBRARY == Path(MacOS(APP_NAME, ORG_NAME).user_data_dir)
    # ...but a shell's XDG_DATA_HOME would give a second projects folder for the same coder.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert Path(MacOS(APP_NAME, ORG_NAME).user_data_dir) == tmp_path / "xdg" / APP_NAME
    assert user_data_folder("darwin") == LIBRARY


def test_windows_local_not_roaming_app_data(monkeypatch):
    # platformdirs' documented overrides stand in for the Windows known-folder API here.
    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", r"C:\Users\ada\AppData\Local")
    monkeypatch.setenv("WIN_PD_OVERRIDE_APPDATA", r"C:\Users\ada\AppData\Roaming")
    folder = str(user_data_folder("win32")).replace("/", "\\")
    assert folder == r"C:\Users\ada\AppData\Local\SpotSigs\SpotSigs Workbench"


def test_linux_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert user_data_folder("linux") == tmp_path / "share" / APP_NAME
    monkeypatch.delenv("XDG_DATA_HOME")
    assert user_data_folder("linux") == Path.home() / ".local" / "share" / APP_NAME


def test_the_override_wins_everywhere(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "mine"))
    assert data_dir() == tmp_path / "mine"


def test_no_code_builds_a_unix_data_path_itself():
    """Every user folder comes from locations.py (or Qt's dialogs): no ~/.something, no
    XDG variable read by hand, which would be wrong on macOS and Windows."""
    by_hand = re.compile(r"expanduser|XDG_[A-Z_]+|[\"']~/|\.local/share|\.config/|Path\.home\(\) / [\"']\.")
    found = [f"{path.relative_to(REPO)}: {match.group(0)}"
             for path in (REPO / "workbench").rglob("*.py") if path.name != "locations.py"
             for match in by_hand.finditer(path.read_text(encoding="utf-8"))]
    assert found == []
