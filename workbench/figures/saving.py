"""Writing figures for a paper (PNG or SVG, by the file's extension) and their numbers
as CSV."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from workbench.export.cells import csv_writer
from workbench.figures.corpus import Corpus
from workbench.figures.dashboard import PLOTS, Table

FORMATS = {".png": "png", ".svg": "svg"}
DPI = 200  # sharp in a printed column


class FigureFormatError(ValueError):
    """The file name asks for a format we do not write."""


def figure_format(path: Path | str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise FigureFormatError(
            f"Cannot save a figure as “{Path(path).name}”: name the file .png (a picture) "
            "or .svg (lines and text a journal can scale).")
    return FORMATS[suffix]


def save_figure(fig: Figure, path: Path | str) -> Path:
    """Save ``fig`` in the format its file name says (.png or .svg)."""
    fmt = figure_format(path)
    # savefig switches to the format's own renderer for the file and back, so a figure
    # shown on a Qt canvas stays on it.
    fig.savefig(str(path), format=fmt, dpi=DPI, facecolor="white")
    return Path(path)


def write_table(table: Table, path: Path | str) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv_writer(fh)
        out.writerow(table.header)
        out.writerows(table.rows)
    return Path(path)


def export_dashboard(corpus: Corpus, folder: Path | str) -> list[Path]:
    """Every dashboard plot as NAME.png and NAME.svg and its numbers as NAME.csv in
    ``folder`` (made if missing); the files written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (_title, figure, table) in PLOTS.items():
        fig = figure(corpus)
        written += [save_figure(fig, folder / f"{name}.png"),
                    save_figure(fig, folder / f"{name}.svg"),
                    write_table(table(corpus), folder / f"{name}.csv")]
    return written
