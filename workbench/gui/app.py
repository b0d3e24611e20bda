"""``run_app(argv)``: the desktop application's entry point."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

import workbench
from workbench import resources
from workbench.detect.compile_ahead import background as compile_ahead
from workbench.gui.compat import protect_none
from workbench.gui.errors.errorhook import ErrorReporter
from workbench.gui.fileopen import FileOpenRequests
from workbench.gui.mainwindow import MainWindow
from workbench.gui.project.locations import APP_NAME, ORG_NAME, data_dir
from workbench.gui.prompter import Prompter

DEMO_ARCHIVE = resources.DEMO_ARCHIVE
STYLE = resources.STYLESHEET


def default_coder() -> str:
    try:
        return getpass.getuser() or "coder"
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "coder"


def ask_coder(window: MainWindow) -> str:
    """The coder's name from QSettings, asked for once on first start."""
    name = str(window.settings.value("coder", "") or "").strip()
    if not name:
        answer = window.prompter.text(
            "Welcome", "Your name, as it should appear with your tags in exports:", default_coder())
        name = (answer or "").strip() or default_coder()
        window.settings.setValue("coder", name)
    return name


def make_window(settings: QSettings | None = None, prompter: Prompter | None = None,
                projects_folder: Path | None = None, workers: int | None = None) -> MainWindow:
    """The main window with its coder set (the app and the tests both start here)."""
    protect_none()
    settings = settings or QSettings(ORG_NAME, APP_NAME)
    window = MainWindow(settings, prompter, projects_folder, workers)
    if prompter is None:
        window.prompter = Prompter(window)
    # Installed by run_app: under pytest-qt the tests' own hook must keep failing tests.
    window.error_reporter = ErrorReporter(lambda: window.prompter, data_dir() / "logs", window)
    window.set_coder(ask_coder(window))
    return window


def open_target(window: MainWindow, target: str | Path | None) -> bool:
    """Open a project file, or an archive folder or file (default: the demo archive)."""
    return window.open_path(Path(target) if target else DEMO_ARCHIVE)


def make_app() -> QApplication:
    """The QApplication with names, a readable font size and the workbench style."""
    protect_none()
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "workbench"])
    app.setOrganizationName(ORG_NAME)
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(workbench.__version__)
    # Ties the window to packaging/linux's menu entry (Wayland docks need the name).
    app.setDesktopFileName("org.spotsigs.Workbench")
    if resources.APP_ICON.is_file():
        app.setWindowIcon(QIcon(str(resources.APP_ICON)))
    font = app.font()
    if font.pointSizeF() < 10:
        font.setPointSizeF(10)
        app.setFont(font)
    if STYLE.is_file():
        app.setStyleSheet(STYLE.read_text(encoding="utf-8"))
    return app  # type: ignore[return-value]


def run_app(argv: list[str]) -> int:
    """The window on ``argv[0]`` (a project, archive folder or file); with no argument, on
    what the system asks to open (macOS Finder), else the demo archive."""
    app = make_app()
    # Before the window: Finder starting the app for a project may ask before it is up.
    requests = FileOpenRequests(app)
    window = make_window()
    window.error_reporter.install()
    window.show()
    # A cache left cold (a bundle, a read-only install) warms while the coder looks around.
    compile_ahead.start_if_cold()
    requests.attach(window)
    if argv:
        open_target(window, argv[0])
    else:
        # From the event loop, after a request that came with the start (which then
        # opens instead of the demo archive; one that comes later replaces it).
        QTimer.singleShot(0, lambda: requests.received or open_target(window, None))
    try:
        return app.exec()
    finally:
        requests.detach()


__all__ = ["make_app", "make_window", "open_target", "run_app"]
