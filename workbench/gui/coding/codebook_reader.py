"""Codebook ▸ Import reads the file on a worker thread, so a big file cannot freeze the window.

A 19 MB ``.qdc`` of 231,000 codes froze the window for 40 s when it was read and imported
on the GUI thread. The file is now read (and refused, when over the bounds of
:mod:`workbench.store.coding.codebook`) by a :class:`CodebookReadJob` on the thread pool; what it
found comes back to the GUI thread through queued signals, where the coder is asked and
the tags are imported.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool

from workbench.export.codebook_file import read_codebook_file
from workbench.export.qdc import QdcImport
from workbench.gui.jobs import OneReadAtATime, ReadOnce
from workbench.store import ProjectError


class CodebookReadJob(ReadOnce):
    """Read one codebook file (never touches a widget or the project)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def read(self) -> QdcImport:
        return read_codebook_file(self.path)

    def message(self, exc: BaseException) -> str:
        # A file that is not a codebook, or cannot be read, is said as it is.
        return str(exc) if isinstance(exc, ProjectError | OSError) else super().message(exc)


class CodebookReader(OneReadAtATime):
    """Starts one read at a time and hands its result to the callbacks on the GUI thread."""

    def __init__(self, parent: QObject, on_read: Callable[[Path, QdcImport], None],
                 on_failed: Callable[[Path, str], None], pool: QThreadPool | None = None) -> None:
        super().__init__(parent, pool)
        self._on_read, self._on_failed = on_read, on_failed

    def start(self, path: Path) -> bool:
        """Read ``path``; False when a read is already going on."""
        return self._launch(CodebookReadJob(path))

    def _was_read(self, job: CodebookReadJob, found: object) -> None:
        assert isinstance(found, QdcImport)
        self._on_read(job.path, found)

    def _read_failed(self, job: CodebookReadJob, message: str) -> None:
        self._on_failed(job.path, message)
