"""Every status bar message of the session, readable whole.

A status message is cut to the width of the window ("… 2 inputs" and no more), and gone
after a few seconds. Each one is kept here with its time, the status bar's tooltip holds
the one shown, and View ▸ Status Messages lists them all, newest first.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar

from workbench.gui.keys.keynames import key_label
from workbench.gui.sidebyside.pagetext import plain_tip

KEEP = 500  # messages kept: a long session's, not without end


class KeyNamingStatusBar(QStatusBar):
    """The window's status bar: a message's keys as this system names them ("⌘Z takes it
    back" on macOS; the messages are written with Qt's portable "Ctrl+Z")."""

    def showMessage(self, text: str, timeout: int = 0) -> None:  # noqa: N802 - Qt API
        super().showMessage(key_label(text), timeout)


class MessageLog(QObject):
    def __init__(self, bar: QStatusBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bar = bar
        self._messages: list[tuple[str, str]] = []
        bar.messageChanged.connect(self._shown)

    def _shown(self, text: str) -> None:
        if text:
            self._messages.append((time.strftime("%H:%M:%S"), text))
            del self._messages[:-KEEP]
            self._bar.setToolTip(plain_tip(text))

    def rows(self) -> list[tuple[str, str]]:
        """(time, message), newest first."""
        return list(reversed(self._messages))
