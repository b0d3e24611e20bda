"""What the window's action modules may use of it: small protocols instead of MainWindow.

Each action module (the coding keys, the codebook's actions, export, calibration, carried
decisions, Compare Methods, Learn From My Coding) names a protocol of exactly what it
touches, built from the two here. MainWindow is every one of them without saying so, and
none of those modules imports it: four used to, for their type hints, while it imported
them. Dialogs they open are parented to ``window.window()``, the window itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStatusBar, QWidget

    from workbench.gui.prompter import Prompter
    from workbench.store import Project

T = TypeVar("T")


@runtime_checkable
class ProjectWindow(Protocol):
    """A window with a project open (or none) that asks and tells through its prompter."""

    project: Project | None
    prompter: Prompter

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name

    def window(self) -> QWidget: ...  # Qt's: the top-level widget, which parents dialogs


@runtime_checkable
class CodingWindow(ProjectWindow, Protocol):
    """A window in which the coder changes the project, and which shows the change."""

    def may_code(self) -> bool: ...

    def attempt(self, what: str, fn: Callable[[], T]) -> T | None: ...

    def refresh(self, select_ids: list[int] | None = None,
                member_page: int | None = None) -> None: ...
