"""The timeline window: the spread of the cluster the side by side shows, kept up to date
as the coder moves through the list, splits, merges and marks pages."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from workbench.figures.spread import ClusterSpread, cluster_spread
from workbench.figures.timeline import timeline_figure
from workbench.gui.figures.canvas import FigureHolder

if TYPE_CHECKING:
    from workbench.store import Project

# Pages outside a cluster that rewrite its story (pairs below τ), when the project knows
# them: set by whoever computes related rewrites; none until then.
RelatedPages = Callable[["Project", int], Iterable[int]]

NO_CLUSTER = "Choose a cluster in the list to see how its story spread."


class TimelineWindow(QWidget):
    """A window of its own (beside the main one, for a second screen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("timelineWindow")
        self.setWindowTitle("Story Timeline")
        self.resize(1000, 520)
        self.related: RelatedPages | None = None
        self.spread: ClusterSpread | None = None
        self.message = QLabel(NO_CLUSTER)
        self.message.setObjectName("timelineMessage")
        self.message.setWordWrap(True)
        self.holder = FigureHolder()
        # A story on many sites is taller than the window: it scrolls rather than squeeze
        # the sites' names on top of each other.
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.holder)
        lay = QVBoxLayout(self)
        lay.addWidget(self.message)
        lay.addWidget(self.scroll, 1)
        self.scroll.hide()

    @property
    def cluster_id(self) -> int | None:
        return self.spread.cluster_id if self.spread is not None else None

    def show_cluster(self, project: Project | None, cluster_id: int | None) -> None:
        """Draw ``cluster_id``'s timeline (again: its pages or marks may have changed)."""
        spread = None
        if project is not None and cluster_id is not None:
            related = self.related(project, cluster_id) if self.related is not None else ()
            spread = cluster_spread(project.reader(), cluster_id, related)
        self.spread = spread
        if spread is None:
            self.scroll.hide()
            self.message.setText(NO_CLUSTER)
            self.message.show()
            return
        self.message.hide()
        fig = timeline_figure(spread)
        self.holder.setMinimumHeight(int(fig.get_figheight() * fig.dpi))  # its own height
        self.holder.show_figure(fig)
        self.scroll.show()
