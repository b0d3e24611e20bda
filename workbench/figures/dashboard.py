"""The dashboard's four figures, one :class:`~matplotlib.figure.Figure` each, and the
table of numbers behind each (what its CSV file holds).

Each figure reads only :class:`~workbench.figures.corpus.Corpus`; the definitions of
copy, source and copy share are the ones in :mod:`workbench.figures.corpus`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from matplotlib import dates as mdates
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from workbench.figures.corpus import Corpus

TOP_SITES = 25  # sites shown in the copy-share plot (by pages); the CSV holds them all
TOP_SOURCES = 15
COPY, FIRST = "#0072B2", "#BBBBBB"
SIZE = (7.0, 4.2)


@dataclass(frozen=True, slots=True)
class Table:
    """A figure's numbers: a header and rows, as the CSV file writes them."""

    header: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]


def _empty(fig: Figure, text: str) -> None:
    ax = fig.axes[0]
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#555555",
            gid="empty")


# Bins of the size histogram: every size up to 5, then ranges a reader can name.
SIZE_BINS: tuple[tuple[int, int], ...] = (
    (2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, 200),
    (201, 500), (501, 1000), (1001, 10**12))


def size_bins(c: Corpus) -> list[tuple[str, int]]:
    """(label, clusters) of each bin from 2 pages up to the one holding the largest
    cluster; empty bins in between are kept (the axis is size)."""
    largest = max((s for s, _ in c.sizes), default=0)
    out = []
    for low, high in SIZE_BINS:
        if low > largest:
            break
        label = str(low) if low == high else f"> {low - 1:,}" if high >= 10**12 \
            else f"{low:,}–{high:,}"
        out.append((label, sum(n for s, n in c.sizes if low <= s <= high)))
    return out


def cluster_sizes_figure(c: Corpus) -> Figure:
    """How many clusters have each size (two pages or more), sizes binned beyond five;
    on a log scale when a few bins would flatten the rest."""
    fig = Figure(figsize=SIZE, layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(f"Cluster sizes: {c.clusters:,} clusters of two or more pages; "
                 f"{c.singles:,} pages alone", fontsize=10, loc="left")
    ax.set_xlabel("Pages in the cluster")
    ax.set_ylabel("Clusters")
    bins = size_bins(c)
    if not bins:
        _empty(fig, "No clusters of two or more pages in this run")
        return fig
    labels, counts = zip(*bins, strict=True)
    bars = ax.bar(range(len(bins)), counts, width=0.8, color=COPY, gid="sizes")
    ax.bar_label(bars, [f"{n:,}" if n else "" for n in counts], padding=2, fontsize=7)
    ax.set_xticks(range(len(bins)), labels, fontsize=8)
    if max(counts) >= 50 * max(min(n for n in counts if n), 1):
        ax.set_yscale("log")
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def cluster_sizes_table(c: Corpus) -> Table:
    return Table(("cluster_size", "clusters"), tuple(c.sizes))


def site_shares_figure(c: Corpus) -> Figure:
    """The share of each site's pages that are copies, for the sites with most pages."""
    shown = sorted(sorted(c.sites, key=lambda s: (-s.pages, s.site))[:TOP_SITES],
                   key=lambda s: (s.share, s.pages))
    fig = Figure(figsize=(SIZE[0], max(SIZE[1], 1.2 + 0.24 * len(shown))), layout="constrained")
    ax = fig.add_subplot()
    more = f" (the {len(shown)} with most pages of {len(c.sites):,})" \
        if len(c.sites) > len(shown) else ""
    ax.set_title(f"Share of each site's pages that are copies{more}", fontsize=10, loc="left")
    ax.set_xlabel("Copies / pages of the site (a copy: any page of a cluster but its source)")
    if not shown or not c.copies:
        _empty(fig, "No copies in this run" if shown else "No pages in this run")
        return fig
    y = range(len(shown))
    bars = ax.barh(y, [s.share for s in shown], color=COPY, gid="shares")
    ax.bar_label(bars, [f"{s.share:.0%} ({s.copies:,} of {s.pages:,})" for s in shown],
                 padding=3, fontsize=7)
    ax.set_yticks(list(y), [s.site[:30] for s in shown], fontsize=8)
    ax.set_xlim(0, 1.25)  # room for the labels past a full bar
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:.0%}")
    return fig


def site_shares_table(c: Corpus) -> Table:
    return Table(("site", "pages", "copies", "copy_share"),
                 tuple((s.site, s.pages, s.copies, round(s.share, 4)) for s in c.sites))


def over_time_figure(c: Corpus) -> Figure:
    """Dated pages per week or month, the copies among them stacked under the rest."""
    fig = Figure(figsize=SIZE, layout="constrained")
    ax = fig.add_subplot()
    undated = f"; {c.undated:,} undated pages left out" if c.undated else ""
    ax.set_title(f"Duplication over time, by {c.unit}{undated}", fontsize=10, loc="left")
    ax.set_xlabel(f"{c.unit.capitalize()} ({_date_kind(c)})")
    ax.set_ylabel("Pages")
    if not c.periods:
        _empty(fig, "No page of this run has a date")
        return fig
    starts = [float(mdates.date2num(p.start)) for p in c.periods]
    copies = [p.copies for p in c.periods]
    rest = [p.pages - p.copies for p in c.periods]
    width = 5.5 if c.unit == "week" else 25
    ax.bar(starts, copies, width=width, align="edge", color=COPY, label="copies", gid="copies")
    ax.bar(starts, rest, width=width, align="edge", bottom=copies, color=FIRST,
           label="sources and pages alone", gid="rest")
    ax.legend(fontsize=8, loc="upper left")
    locator = mdates.AutoDateLocator(minticks=3, maxticks=10)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    return fig


def _date_kind(c: Corpus) -> str:
    kinds = dict(c.dated_from)
    if set(kinds) == {"published"}:
        return "date published"
    if set(kinds) == {"captured"}:
        return "date captured"
    return "date published, else captured"


def over_time_table(c: Corpus) -> Table:
    return Table((f"{c.unit}_start", "pages", "copies"),
                 tuple((p.start.isoformat(), p.pages, p.copies) for p in c.periods))


def sources_figure(c: Corpus) -> Figure:
    """The sites most often first with a story other sites then carried."""
    shown = list(c.sources[:TOP_SOURCES])[::-1]  # the most at the top
    fig = Figure(figsize=(SIZE[0], max(SIZE[1], 1.2 + 0.26 * len(shown))), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title("Sources copied most: stories a site had first that other sites carried",
                 fontsize=10, loc="left")
    ax.set_xlabel("Stories (clusters whose first page is the site's, copied on another site)")
    if not shown:
        _empty(fig, "No story was copied from one site to another")
        return fig
    y = range(len(shown))
    ax.barh(y, [s.stories for s in shown], color=COPY, gid="sources")
    ax.set_yticks(list(y), [f"{s.site[:30]} ({_copies(s.copies_elsewhere)})" for s in shown],
                  fontsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def _copies(n: int) -> str:
    return f"{n:,} cop{'y' if n == 1 else 'ies'}"


def sources_table(c: Corpus) -> Table:
    return Table(("site", "stories_first_and_copied", "copies_on_other_sites"),
                 tuple((s.site, s.stories, s.copies_elsewhere) for s in c.sources))


# name (the file stem) -> (title, figure, table), in the dashboard's order.
PLOTS: dict[str, tuple[str, Callable[[Corpus], Figure], Callable[[Corpus], Table]]] = {
    "cluster-sizes": ("Cluster sizes", cluster_sizes_figure, cluster_sizes_table),
    "site-copy-share": ("Copies per site", site_shares_figure, site_shares_table),
    "duplication-over-time": ("Duplication over time", over_time_figure, over_time_table),
    "sources-copied-most": ("Sources copied most", sources_figure, sources_table),
}
