"""Shortcut keys as macOS names and binds them (keynames, Qt-free) and the F1 table there."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from workbench.gui.dialogs import MAC_KEYS_NOTE, SHORTCUTS, shortcuts_dialog
from workbench.gui.keys.keynames import key_label, platform_keys, shortcut_rows


def test_linux_and_windows_keep_the_keys_as_written():
    for platform in ("linux", "win32"):
        assert shortcut_rows(SHORTCUTS, platform) == SHORTCUTS
        assert platform_keys("Ctrl+M", platform) == "Ctrl+M"


def test_macos_names_modifiers_as_its_menus_do():
    # Qt on macOS: Ctrl is Command, Alt is Option, Meta is Control; Apple's order ⌃⌥⇧⌘.
    assert key_label("Ctrl+Z", "darwin") == "⌘Z"
    assert key_label("Ctrl+Shift+Z", "darwin") == "⇧⌘Z"
    assert key_label("Alt+W", "darwin") == "⌥W"
    assert key_label("Meta+Alt+Shift+Ctrl+K", "darwin") == "⌃⌥⇧⌘K"
    assert key_label("Ctrl+Shift+T", "darwin") == key_label("Shift+Ctrl+T", "darwin") == "⇧⌘T"
    assert key_label("Ctrl+Z / Ctrl+Shift+Z", "darwin") == "⌘Z / ⇧⌘Z"
    assert key_label("Alt+1 – Alt+9", "darwin") == "⌥1 – ⌥9"
    assert key_label("Tab / Shift+Tab", "darwin") == "Tab / ⇧Tab"
    for plain in ("Escape", "N", "1 – 9", "Up / Down", "Page Up / Page Down", "F1"):
        assert key_label(plain, "darwin") == plain
    assert key_label("(Shift or Ctrl to select several)", "darwin") == "(Shift or ⌘ to select several)"
    # In a sentence too: the status bar's messages name keys.
    assert key_label("Deleted tag “x” (Ctrl+Z brings it back).", "darwin") == \
        "Deleted tag “x” (⌘Z brings it back)."
    assert key_label("The codebook is empty: Ctrl+T adds a tag.", "linux") == \
        "The codebook is empty: Ctrl+T adds a tag."


def test_the_memo_key_is_not_macos_minimise():
    # ⌘M minimises the window on macOS: the memo is ⇧⌘M there, bound and shown alike.
    assert platform_keys("Ctrl+M", "darwin") == "Ctrl+Shift+M"
    assert key_label("Ctrl+M", "darwin") == "⇧⌘M"
    assert key_label("Ctrl+M: open a project first.", "darwin") == "⇧⌘M: open a project first."
    assert key_label("Ctrl+Shift+M", "darwin") == "⇧⌘M"
    assert platform_keys("Ctrl+B", "darwin") == "Ctrl+B"


def test_f1_table_on_macos_says_no_ctrl_and_no_alt(qtbot):
    dialog = shortcuts_dialog(platform="darwin")
    qtbot.addWidget(dialog)
    table = dialog.table
    cells = {(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())}
    assert table.rowCount() == len(SHORTCUTS)
    assert not [cell for cell in cells if "Ctrl" in cell[0] + cell[1] or "Alt" in cell[0]]
    keys = {key for key, _ in cells}
    assert {"⌘O", "⇧⌘O", "⌘Z / ⇧⌘Z", "⇧⌘M", "⌥1 – ⌥9", "⌘Q", "⌘Home / ⌘End"} <= keys
    assert "⌘M" not in keys
    intro = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert MAC_KEYS_NOTE.strip() in intro


def test_f1_table_elsewhere_is_the_readme_one(qtbot):
    dialog = shortcuts_dialog(platform="linux")
    qtbot.addWidget(dialog)
    table = dialog.table
    assert [(table.item(r, 0).text(), table.item(r, 1).text())
            for r in range(table.rowCount())] == SHORTCUTS
    assert MAC_KEYS_NOTE.strip() not in " ".join(label.text() for label in dialog.findChildren(QLabel))
