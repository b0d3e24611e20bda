"""Tell the coder when the backup made on opening (or its integrity check) failed.

A project is copied on a thread when it opens so the window need not wait; the
copy can still fail (a full disk) or its check find damage in a big file. Nobody
would hear of it, so this watcher asks the project every half second until the
copy is done and shows what went wrong, once.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.store import Project

POLL_MS = 500


class BackupWatcher(QObject):
    # The problem's text, after it was shown ('' when the copy was fine).
    settled = Signal(str)

    def __init__(self, show: Callable[[str, str], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._show = show
        self._project: Project | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._check)

    def watch(self, project: Project) -> None:
        self._project = project
        self._timer.start()
        self._check()

    def stop(self) -> None:
        self._timer.stop()
        self._project = None

    def _check(self) -> None:
        project = self._project
        if project is None or project.backup_pending:
            return
        self._timer.stop()
        self._project = None
        problem = project.backup_problem or ""
        if problem:
            self._show("Backup on opening failed", problem)
        self.settled.emit(problem)
