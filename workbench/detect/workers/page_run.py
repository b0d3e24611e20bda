"""A task's result that stands for several pages in a row, in one object.

A cluster's map task leaves its pages in a shard and sends back where they are
(workbench.cluster). One object a page cost the client about 100 bytes a page while the
logs were replayed, and left Python's small-object arenas fragmented once they were let go
(about 0.25 KB a page at 300,000 pages). The run (workbench.detect.workers.parallel)
passes a run on in its place, counts its pages, and puts its notes in the skip list.
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.core.records import SkipRecord


class PageRun:
    """Base of the results that stand for ``page_count`` pages in a row."""

    __slots__ = ()

    @property
    def page_count(self) -> int:
        raise NotImplementedError

    def notes(self) -> Iterable[SkipRecord]:
        """What of each page was left unread, in the pages' order (the pages with none
        left out)."""
        raise NotImplementedError
