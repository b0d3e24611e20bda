"""Drive ``run_app`` (the real entry point, with its own event loop) from a test: poll the
window from inside that loop until it is ready, keep what the test asks, quit, and put the
application back as the suite had it (style sheet, quitting on the last window)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from workbench.gui.app import run_app
from workbench.gui.mainwindow import MainWindow

FAILSAFE_MS = 30_000  # a window that never gets ready ends the loop with 3, not a hang


def run_app_until(ready: Callable[[MainWindow], dict[str, Any] | None], *, first_poll_ms: int = 0,
                  before_loop: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """``run_app([])`` until ``ready(window)`` returns the values to keep (None: not yet);
    ``before_loop`` runs just before (to post events the loop will find waiting)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old_style = app.styleSheet()  # run_app sets the workbench's style sheet on the app
    seen: dict[str, Any] = {}

    def poll() -> None:
        win = next((w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()), None)
        kept = ready(win) if win is not None else None
        if kept is not None:
            seen.update(kept, window=win)
            app.exit(0)
        else:
            poller.start(20)

    poller = QTimer()
    poller.setSingleShot(True)
    poller.timeout.connect(poll)
    failsafe = QTimer()
    failsafe.setSingleShot(True)
    failsafe.timeout.connect(lambda: app.exit(3))
    before_loop()
    poller.start(first_poll_ms)
    failsafe.start(FAILSAFE_MS)
    quit_on_close = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)
    try:
        assert run_app([]) == 0
    finally:
        failsafe.stop()
        poller.stop()
        app.setStyleSheet(old_style)
        if "window" in seen:
            seen["window"].close()
        app.processEvents()
        app.setQuitOnLastWindowClosed(quit_on_close)
    return seen
