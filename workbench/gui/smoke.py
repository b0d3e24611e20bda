"""``workbench --smoke-test [PATH]``: start the real window, open an archive (default: the
bundled demo archive) or a project, wait for its first run, print one line and quit.

A project that already has a run starts none when opened (the window shows that run), so
there is nothing to wait for: the line then describes the run the window shows. (It waited
for a run that never came, until the timeout: ten minutes.)

For checking a build (a wheel, a PyInstaller bundle) on a machine without a desktop, under
``QT_QPA_PLATFORM=offscreen``. It touches nothing of the user's: settings, projects and logs
go to a temporary folder, and no dialog can wait for an answer (every question is answered
'no' and printed).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QTimer

from workbench.gui.project.locations import DATA_DIR_ENV

if TYPE_CHECKING:
    from workbench.gui.mainwindow import MainWindow

# A first run of the demo archive takes seconds; a bundle on a slow machine may take longer.
TIMEOUT_SECONDS = 600
EXIT_FAILED = 1


def run_smoke_test(target: Path | None = None, timeout_seconds: float = TIMEOUT_SECONDS) -> int:
    """Open ``target`` in the window and return 0 once its first run has finished."""
    from workbench.gui.app import DEMO_ARCHIVE, make_app, make_window, open_target
    from workbench.gui.prompter import Prompter

    class NoQuestions(Prompter):
        """Prints what the window would ask or show, and answers no."""

        def __init__(self) -> None:
            super().__init__(None)
            self.errors: list[str] = []

        def text(self, title: str, label: str, default: str = "") -> str | None:
            print(f"smoke test: asked {title!r}; answered nothing", file=sys.stderr)
            return None

        def confirm(self, title: str, text: str) -> bool:
            print(f"smoke test: asked {title!r}; answered no", file=sys.stderr)
            return False

        def choose(self, title: str, text: str, buttons: list[str]) -> int | None:
            print(f"smoke test: asked {title!r}; answered nothing", file=sys.stderr)
            return None

        def info(self, title: str, text: str) -> None:
            print(f"smoke test: {title}: {text}", file=sys.stderr)

        def error(self, title: str, text: str, details: str = "") -> None:
            self.errors.append(f"{title}: {text}")
            print(f"smoke test: error: {title}: {text}", file=sys.stderr)

    archive = Path(target) if target else DEMO_ARCHIVE
    with tempfile.TemporaryDirectory(prefix="workbench-smoke-") as scratch:
        os.environ[DATA_DIR_ENV] = str(Path(scratch) / "data")
        settings = QSettings(str(Path(scratch) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("coder", "smoke-test")
        app = make_app()
        prompter = NoQuestions()
        window = make_window(settings, prompter, projects_folder=Path(scratch) / "projects")
        window.show()
        outcome = {"code": EXIT_FAILED}

        def finished(summary) -> None:
            print(f"smoke test: {archive}: {summary.pages:,} pages, {summary.pairs:,} pairs, "
                  f"{summary.clusters:,} clusters (run {summary.run_id})")
            outcome["code"] = 0
            app.quit()

        def failed(message: str = "cancelled") -> None:
            print(f"smoke test: {archive}: the run failed: {message}", file=sys.stderr)
            app.quit()

        def too_slow() -> None:
            print(f"smoke test: {archive}: no finished run after {timeout_seconds:g} s", file=sys.stderr)
            app.quit()

        window.run_finished.connect(finished)
        window.run_failed.connect(failed)
        window.run_cancelled.connect(failed)
        QTimer.singleShot(int(timeout_seconds * 1000), too_slow)
        if not open_target(window, archive):
            print(f"smoke test: could not open {archive}: {'; '.join(prompter.errors)}", file=sys.stderr)
            return EXIT_FAILED
        if window.job is None:  # no run started: the project is shown as it is
            code = _report_shown_run(window, archive)
            window.close_project()
            window.close()
            return code
        app.exec()
        window.close_project()
        window.close()
        return outcome["code"]


def _report_shown_run(window: MainWindow, archive: Path) -> int:
    """The line for a project opened with its run (0), or why there is none (1)."""
    project = window.project
    run = project.current_run() if project is not None else None
    if project is None or run is None:
        why = project.readonly_reason if project is not None and project.readonly else (
            "it has no run and none was started")
        print(f"smoke test: {archive}: no run to show: {why}", file=sys.stderr)
        return EXIT_FAILED
    clusters = project.count_clusters() - project.count_single_pages()  # as a run counts them
    print(f"smoke test: {archive}: {run.page_count:,} pages, {clusters:,} clusters "
          f"(run {run.id}, opened with the project)")
    return 0


__all__ = ["run_smoke_test"]
