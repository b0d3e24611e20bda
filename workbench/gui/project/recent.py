"""File ▸ Recent Projects: the last projects opened, kept in the settings (newest first)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

MAX_RECENT = 8


class RecentProjects:
    def __init__(self, settings: QSettings, menu: QMenu, open_project: Callable[[Path], object]) -> None:
        self.settings = settings
        self.menu = menu
        self._open = open_project

    def items(self) -> list[str]:
        value = self.settings.value("recentProjects", [])
        if isinstance(value, str):  # QSettings gives one string for a list of one
            value = [value]
        return [v for v in (value or []) if v]

    def remember(self, path: Path) -> None:
        items = [str(path)] + [p for p in self.items() if p != str(path)]
        self.settings.setValue("recentProjects", items[:MAX_RECENT])
        self.fill()

    def fill(self) -> None:
        self.menu.clear()
        items = self.items()
        for p in items:
            action = self.menu.addAction(p)
            # Explicit, like every menu item (window.menus.NO_ROLE): on macOS Qt's default
            # role guesses from the text whether an item belongs in the application menu.
            action.setMenuRole(QAction.MenuRole.NoRole)
            action.triggered.connect(lambda _c=False, p=p: self._open(Path(p)))
        self.menu.setEnabled(bool(items))
