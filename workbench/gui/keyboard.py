"""Coding keys that work wherever the focus is, except while the coder types.

Qt gives a focused text field the first claim on the keys it edits with: Ctrl+Z in
the filter box undid the typed filter text instead of the last coding action. The
filter below takes Undo and Redo away from such fields (the window's actions then
get them), and leaves every other key to the field, so typing digits or letters
into the filter still types them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence

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
