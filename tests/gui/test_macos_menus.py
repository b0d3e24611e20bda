"""The window on macOS: the application menu's items by role, the keys a Mac user presses.

Qt's default menu role guesses from an item's text whether macOS should move it into the
application menu ("Detection Settings…" would have become Preferences); every item says
instead. The roles and keys are checked here on the real window; only macOS acts on them.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar

import workbench
from workbench.gui.keys import keynames

Role = QAction.MenuRole
APP_MENU_ROLES = (Role.QuitRole, Role.PreferencesRole, Role.AboutRole)


def menu_items(menu: QMenuBar | QMenu) -> list[QAction]:
    """Every action in the menu bar, its menus and their submenus."""
    items = []
    for action in menu.actions():
        items.append(action)
        if action.menu() is not None:
            items += menu_items(action.menu())
    return items


def test_every_action_has_an_explicit_menu_role(window, tmp_path):
    window.recent.remember(tmp_path / "Settings.wbproj")  # a menu item made after the build
    items = menu_items(window.menuBar())
    assert window.actions_by_name["quit"] in items and len(items) > 50
    owned = [a for a in window.findChildren(QAction) if a.parent() is window]
    guessed = [a.text() or "(separator)" for a in items + owned if a.menuRole() == Role.TextHeuristicRole]
    assert guessed == []
    roles = Counter(a.menuRole() for a in set(items + owned))
    assert [roles[role] for role in APP_MENU_ROLES] == [1, 1, 1]
    by_name = window.actions_by_name
    assert [by_name[n].menuRole() for n in ("quit", "change_coder", "about")] == list(APP_MENU_ROLES)
    # ⌘, on macOS; Qt has no key for Preferences on Linux and Windows (nothing to clash with).
    assert by_name["change_coder"].shortcut() == QKeySequence(QKeySequence.StandardKey.Preferences)


def test_about_says_the_version_and_the_licence(window, prompter):
    shown = []
    prompter.about = lambda title, text: shown.append((title, text))
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    about = next(a for a in help_menu.actions() if a.menuRole() == Role.AboutRole)
    assert about.text() == "&About SpotSigs Workbench"
    about.trigger()
    (title, text), = shown
    assert title == "About SpotSigs Workbench"
    assert workbench.__version__ in text and "MIT licence" in text


def _window_on(platform, monkeypatch, settings, prompter, tmp_path, qtbot):
    from workbench.gui.app import make_window

    monkeypatch.setattr(keynames, "PLATFORM", platform)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    win = make_window(settings, prompter, projects_folder=tmp_path / "projects", workers=1)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    win.table.setFocus()
    qtbot.waitUntil(win.table.hasFocus, timeout=2000)
    return win


def test_on_macos_the_memo_key_is_not_minimise(qtbot, monkeypatch, settings, prompter, tmp_path):
    """Qt binds Ctrl+M to ⌘M on macOS, the system's Minimize: the memo is ⇧⌘M there."""
    win = _window_on("darwin", monkeypatch, settings, prompter, tmp_path, qtbot)
    assert win.actions_by_name["focus_memo"].shortcut() == QKeySequence("Ctrl+Shift+M")
    qtbot.keyClick(win.table, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert win.statusBar().currentMessage() == ""  # ⌘M is left to the system
    qtbot.keyClick(win.table, Qt.Key.Key_M,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert win.statusBar().currentMessage() == "⇧⌘M: open a project first."


def test_elsewhere_the_memo_key_stays_ctrl_m(qtbot, monkeypatch, settings, prompter, tmp_path):
    win = _window_on("linux", monkeypatch, settings, prompter, tmp_path, qtbot)
    assert win.actions_by_name["focus_memo"].shortcut() == QKeySequence("Ctrl+M")
    qtbot.keyClick(win.table, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert win.statusBar().currentMessage() == "Ctrl+M: open a project first."


def test_on_macos_status_messages_name_command_keys(qtbot, monkeypatch, settings, prompter, tmp_path):
    """The messages are written with Qt's Ctrl+T; a Mac user presses ⌘T, and reads that."""
    from workbench.store import Project

    win = _window_on("darwin", monkeypatch, settings, prompter, tmp_path, qtbot)
    path = tmp_path / "study.wbproj"
    Project.create(path, str(tmp_path / "crawl-moved-away")).close()  # no crawl: no run
    assert win.open_project(path)
    win.table.setFocus()
    qtbot.keyClick(win.table, Qt.Key.Key_T,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert win.statusBar().currentMessage() == "The codebook is empty: ⌘T adds a tag."
    assert win.messages.rows()[0][1] == "The codebook is empty: ⌘T adds a tag."
    win.close_project()
