"""A narrow strip beside a pane's text: a band beside every line of a reused passage.

The bands stand beside the text, not on it, so the signature highlights (backgrounds of
single words) stay as they are. Passages alternate between two colours so that two
passages one after the other are told apart; a passage has the same number, and
colour, in both panes. Clicking a band shows that passage in both panes.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QPlainTextEdit, QToolTip, QWidget

# Green and violet: apart from the highlights' blue, amber and grey.
PASSAGE_COLOURS = ("#3b9c5a", "#8a5cc2")
STRIP_WIDTH = 8


def passage_colour(passage: int) -> str:
    return PASSAGE_COLOURS[passage % len(PASSAGE_COLOURS)]


class PassageStrip(QWidget):
    """Bands as ``(start, end, passage)`` in positions of the text's document (UTF-16)."""

    passage_clicked = Signal(int)

    def __init__(self, text: QPlainTextEdit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("passageStrip")
        self.text = text
        self.bands: list[tuple[int, int, int]] = []
        self.setFixedWidth(STRIP_WIDTH)
        self.setMouseTracking(True)
        self.setToolTip("Passages this page shares with the other (click one to show it in both panes)")
        # Scrolling, resizing and re-wrapping all repaint the text's viewport.
        text.updateRequest.connect(lambda _rect, _dy: self.update())

    def sizeHint(self) -> QSize:
        return QSize(STRIP_WIDTH, 0)

    def set_bands(self, bands: list[tuple[int, int, int]]) -> None:
        self.bands = sorted(bands)
        self.update()

    def line_bands(self) -> list[tuple[int, int, int]]:
        """The bands to draw now: ``(top, bottom, passage)`` in the strip's pixels, one
        per visible line of the text that holds part of a passage."""
        if not self.bands:
            return []
        out: list[tuple[int, int, int]] = []
        edit = self.text
        offset = edit.contentOffset()
        # The viewport sits inside the text's frame; the strip is level with the frame.
        shift = edit.viewport().mapTo(edit, QPoint(0, 0)).y() + edit.y() - self.y()
        bottom_edge = edit.viewport().height()
        block = edit.firstVisibleBlock()
        while block.isValid():
            geometry = edit.blockBoundingGeometry(block).translated(offset)
            if geometry.top() > bottom_edge:
                break
            layout = block.layout()
            base = block.position()
            for k in range(layout.lineCount() if block.isVisible() else 0):
                line = layout.lineAt(k)
                lo = base + line.textStart()
                hi = lo + max(line.textLength(), 1)
                passage = self._passage_at(lo, hi)
                if passage is not None:
                    top = round(geometry.top() + line.y()) + shift
                    out.append((top, top + round(line.height()), passage))
            block = block.next()
        return out

    def _passage_at(self, lo: int, hi: int) -> int | None:
        for start, end, passage in self.bands:
            if start >= hi:
                return None
            if end > lo:
                return passage
        return None

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        for top, bottom, passage in self.line_bands():
            painter.fillRect(QRect(1, top, self.width() - 2, bottom - top), QColor(passage_colour(passage)))
        painter.end()

    def _passage_at_y(self, y: int) -> int | None:
        return next((p for top, bottom, p in self.line_bands() if top <= y < bottom), None)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        passage = self._passage_at_y(round(event.position().y()))
        if passage is not None and event.button() == Qt.MouseButton.LeftButton:
            self.passage_clicked.emit(passage)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        passage = self._passage_at_y(round(event.position().y()))
        if passage is not None:
            QToolTip.showText(event.globalPosition().toPoint(),
                              f"Passage {passage + 1}: found on both pages (click to show it in both)", self)
