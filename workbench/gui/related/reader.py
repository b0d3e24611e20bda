"""The first read of a run's related pairs, off the GUI thread.

A run keeps its pairs between the pair floor and τ; the project reads them once per run
(workbench.store.runs.related), which takes seconds for a million pairs (5.3 s measured).
The first time a cluster of a run is shown, :class:`RelatedReader` reads them on a worker
while the related pane says so; every later cluster of that run lists its related
clusters at once. Whatever else needs the pairs (Save Timeline As) waits for that same
read rather than reading them again, or on the GUI thread (:meth:`RelatedReader.then`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThreadPool

from workbench.gui.jobs import OneReadAtATime, ReadOnce

if TYPE_CHECKING:
    from workbench.store import Project


class RelatedReadJob(ReadOnce):
    """Reads the related pairs of ``cluster_id``'s run into the project's keeping."""

    def __init__(self, project: Project, cluster_id: int) -> None:
        super().__init__()
        self.project, self.cluster_id = project, cluster_id

    def read(self) -> None:
        self.project.related(self.cluster_id)  # reads the run's pairs, keeps them


class RelatedReader(OneReadAtATime):
    """One read at a time; ``on_read`` runs on the GUI thread once the pairs are kept."""

    def __init__(self, parent: QObject, on_read: Callable[[], None],
                 on_failed: Callable[[str], None], pool: QThreadPool | None = None) -> None:
        super().__init__(parent, pool)
        self._on_read, self._on_failed = on_read, on_failed
        # Callers waiting for the read under way: (when read, when it failed), run once.
        self._waiting: list[tuple[Callable[[], None], Callable[[str], None]]] = []

    def start(self, project: Project, cluster_id: int) -> None:
        """Read the pairs of ``cluster_id``'s run (nothing when a read is going on)."""
        if not self.busy:
            self._launch(RelatedReadJob(project, cluster_id))

    def then(self, project: Project, cluster_id: int, when_read: Callable[[], None],
             when_failed: Callable[[str], None]) -> None:
        """Run ``when_read`` on the GUI thread once the pairs of ``cluster_id``'s run are
        kept (at once when they are): after the read under way, or one started here.
        A read under way may be another run's: ``when_read`` should look again."""
        if project.related_read(cluster_id):
            when_read()
            return
        self._waiting.append((when_read, when_failed))
        self.start(project, cluster_id)

    def _was_read(self, job: RelatedReadJob, found: object) -> None:
        self._on_read()
        for when_read, _failed in self._take_waiting():
            when_read()

    def _read_failed(self, job: RelatedReadJob, message: str) -> None:
        self._on_failed(message)
        for _read, when_failed in self._take_waiting():
            when_failed(message)

    def _take_waiting(self) -> list[tuple[Callable[[], None], Callable[[str], None]]]:
        waiting, self._waiting = self._waiting, []
        return waiting
