"""A matplotlib figure on a Qt widget (the QtAgg backend, which works with PySide6)."""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget


class FigureHolder(QWidget):
    """Shows one figure at a time; :meth:`show_figure` replaces it with a fresh canvas
    (a figure belongs to one canvas)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.canvas: FigureCanvasQTAgg | None = None

    @property
    def figure(self) -> Figure | None:
        return self.canvas.figure if self.canvas is not None else None

    def show_figure(self, fig: Figure) -> None:
        if self.canvas is not None:
            self._layout.removeWidget(self.canvas)
            self.canvas.setParent(None)
            self.canvas.deleteLater()
        self.canvas = FigureCanvasQTAgg(fig)
        self.canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.canvas.setMinimumSize(320, 200)
        self._layout.addWidget(self.canvas)
        # A widget put into a parent that is already shown stays hidden until shown: the
        # timeline, redrawn as the coder moves through the list, was left blank.
        self.canvas.show()
        # The canvas starts at the figure's size in pixels (a timeline of many sites is
        # 1,400 tall): fit it to the space it has now, so the figure is drawn to fit.
        if self.width() > 0 and self.height() > 0:
            self.canvas.resize(self.size())
        self.canvas.draw_idle()
