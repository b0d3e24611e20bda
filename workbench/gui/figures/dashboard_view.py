"""The dashboard window: the run's four plots at a glance, and Export All."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from workbench.figures.corpus import Corpus, corpus_numbers
from workbench.figures.dashboard import PLOTS
from workbench.gui.figures.canvas import FigureHolder

if TYPE_CHECKING:
    from workbench.store import Project

DEFINITIONS = (
    "A cluster's source is its earliest dated page (published, else captured; its reference "
    "page when none is dated); every other page of the story is a copy. Pages marked “not "
    "this story” are neither. Sources copied most: the stories a site had first that another "
    "site copied.")


class DashboardWindow(QWidget):
    """Read when opened and on Read Again (not after every coding action: a run of a
    million pages takes seconds to count)."""

    export_requested = Signal()
    reread_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("dashboardWindow")
        self.setWindowTitle("Corpus Dashboard")
        self.resize(1280, 860)
        self.corpus: Corpus | None = None
        self.summary = QLabel()
        self.summary.setObjectName("dashboardSummary")
        self.summary.setWordWrap(True)
        self.summary.setToolTip(DEFINITIONS)
        definitions = QLabel(DEFINITIONS)
        definitions.setWordWrap(True)
        definitions.setStyleSheet("color: #555555;")
        self.export_button = QPushButton("Export All…")
        self.export_button.setToolTip("Every plot as PNG and SVG and its numbers as CSV, into "
                                      "a folder")
        self.export_button.clicked.connect(self.export_requested)
        self.reread_button = QPushButton("Read Again")
        self.reread_button.setToolTip("Count the run again, with the splits, merges and marks "
                                      "made since the dashboard was opened")
        self.reread_button.clicked.connect(self.reread_requested)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.reread_button)
        top.addWidget(self.export_button)
        grid = QGridLayout()
        self.holders: dict[str, FigureHolder] = {}
        for i, name in enumerate(PLOTS):
            holder = FigureHolder(self)
            holder.setObjectName(f"plot-{name}")
            self.holders[name] = holder
            grid.addWidget(holder, i // 2, i % 2)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(definitions)
        lay.addLayout(grid, 1)

    def show_run(self, project: Project | None) -> None:
        """Read the run's numbers again and draw every plot."""
        corpus = corpus_numbers(project.reader()) if project is not None else None
        self.corpus = corpus
        self.export_button.setEnabled(corpus is not None)
        if corpus is None:
            self.summary.setText("Open a project to see its run at a glance.")
            return
        dated = corpus.pages - corpus.undated
        self.summary.setText(
            f"<b>{corpus.pages:,} pages</b> on {len(corpus.sites):,} sites; "
            f"{corpus.clusters:,} clusters of two or more; {corpus.copies:,} copies; "
            f"{dated:,} pages dated, {corpus.undated:,} undated.")
        for name, (_title, figure, _table) in PLOTS.items():
            self.holders[name].show_figure(figure(corpus))
