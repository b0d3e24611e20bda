"""Files the system asks the running app to open: Finder's double-click, a file dropped on
the Dock icon, "Open With" (macOS sends these as a ``QFileOpenEvent``, not as arguments).

The request opens in the window the way File ▸ Open does (``MainWindow.open_path``: the
same questions for a project in use or damaged, the same error dialog for a bad file).
It is opened from the event loop, not inside the event: macOS waits for the app to answer
its Apple event, and a question asked inside it would keep Finder waiting. A request that
comes before the window exists (Finder starting the app for a file) waits for it, and one
that comes while a dialog is open waits until the dialog closes, so nothing changes the
project under an open dialog.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from workbench.gui.mainwindow import MainWindow

# While a dialog is open, how often to look whether it has closed (Qt says nothing when
# a modal dialog closes).
RETRY_MS = 250


def requested_path(event: QFileOpenEvent) -> Path | None:
    """The local file or folder the event asks to open (None: nothing local)."""
    name = event.file() or event.url().toLocalFile()
    return Path(name) if name else None


class FileOpenRequests(QObject):
    """Install on the application before the window is made; ``attach`` the window."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.window: MainWindow | None = None
        self.pending: Path | None = None
        self.received = False  # any request at all (the app then opens no demo archive)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self._open_pending)
        app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if event.type() != QEvent.Type.FileOpen or not isinstance(event, QFileOpenEvent):
            return False
        path = requested_path(event)
        if path is not None:
            # Several files at once (a selection in Finder): one project is open at a time,
            # and each would replace the one before, so the last one is opened.
            self.pending = path
            self.received = True
            self._later.start(0)
        return True  # handled: the system need not offer the file to anyone else

    def attach(self, window: MainWindow) -> None:
        """The window requests open in; one that came before it opens now."""
        self.window = window
        if self.pending is not None:
            self._later.start(0)

    def detach(self) -> None:
        """Stop taking requests (the window is gone)."""
        self._later.stop()
        self.window = None
        app = QCoreApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def _open_pending(self) -> None:
        if self.window is None or self.pending is None:
            return
        if QApplication.activeModalWidget() is not None or QApplication.activePopupWidget() is not None:
            self._later.start(RETRY_MS)
            return
        path, self.pending = self.pending, None
        window = self.window
        if window.isMinimized():
            window.showNormal()
        window.raise_()
        window.activateWindow()
        window.open_path(path)
