"""Coding keys that work wherever the focus is, except while the coder types; panes.

Qt gives a focused text field the first claim on the keys it edits with: Ctrl+Z in
the filter box undid the typed filter text instead of the last coding action. The
filter below takes Undo and Redo away from such fields (the window's actions then
get them), and leaves every other key to the field, so typing digits or letters
into the filter still types them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

UNDO_REDO = (QKeySequence("Ctrl+Z"), QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y"))


class CodingUndoInTextFields(QObject):
    """Install on a text field: Ctrl+Z / Ctrl+Shift+Z reach the window's Undo/Redo."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            pressed = QKeySequence(event.keyCombination())
            if any(pressed.matches(seq) == QKeySequence.SequenceMatch.ExactMatch
                   for seq in UNDO_REDO):
                event.ignore()  # not the field's: the window's shortcut takes it
                return True
        return False


def is_typing(widget: QWidget | None) -> bool:
    """Is the keyboard in a field that takes letters and digits as text (so coding keys
    type there instead of acting)?"""
    if isinstance(widget, QLineEdit | QAbstractSpinBox):
        return True
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return not widget.isReadOnly()
    return False


@dataclass(frozen=True, slots=True)
class Pane:
    """One stop of Tab: ``focus`` takes the keyboard; the pane holds the keyboard while
    any widget inside ``area`` has it (a filter's combo box is in the filter pane)."""

    name: str
    focus: QWidget
    area: QWidget


def pane_of(panes: Sequence[Pane], widget: QWidget | None) -> Pane | None:
    """The first pane whose area holds ``widget`` (panes nested in a larger area come
    before it)."""
    if widget is None:
        return None
    return next((p for p in panes if p.area is widget or p.area.isAncestorOf(widget)), None)


def pane_after(panes: Sequence[Pane], widget: QWidget | None, *, forward: bool,
               usable: Callable[[QWidget], bool]) -> QWidget | None:
    """The widget Tab (``forward``) or Shift+Tab moves the keyboard to from ``widget``:
    the next pane's, skipping panes that cannot take it now and catch-all areas that
    share their focus widget with a pane before them (None: no pane can)."""
    stops: list[Pane] = []
    for pane in panes:
        if all(pane.focus is not p.focus for p in stops):
            stops.append(pane)
    here = pane_of(panes, widget)
    at = next((i for i, p in enumerate(stops) if here is not None and p.focus is here.focus), -1)
    step = 1 if forward else -1
    if at < 0 and not forward:
        at = 0
    for k in range(1, len(stops) + 1):
        candidate = stops[(at + step * k) % len(stops)]
        if usable(candidate.focus):
            return candidate.focus
    return None
