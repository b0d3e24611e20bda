"""How long-running work reports progress and learns that it must stop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Cancelled(Exception):
    """Raised inside long work when the caller asked it to stop."""


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int | None) -> None:
        """Report ``done`` of ``total`` units (None when unknown) for ``stage``.

        A callback cancels the work by raising :class:`Cancelled`.
        """


def no_progress(stage: str, done: int, total: int | None) -> None:
    """The default: report nothing, never cancel."""


ProgressFn = Callable[[str, int, "int | None"], None]
