"""The timeline figure of one cluster: pages by date on x and site on y.

Built as a plain :class:`~matplotlib.figure.Figure` (no pyplot, no GUI backend), so the
window draws it on a Qt canvas and a test or a script saves it as it is.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from datetime import datetime, timedelta

from matplotlib import dates as mdates
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine

from workbench.figures.spread import ClusterSpread, Role, SpreadPage

# How each role is drawn: marker, face colour, size, legend label. Colour-blind safe
# (Okabe-Ito) and told apart by shape too, for a paper printed in grey.
STYLES: dict[Role, tuple[str, str, float, str]] = {
    "first": ("*", "#D55E00", 260, "first publisher"),
    "copy": ("o", "#0072B2", 70, "copy"),
    "rewrite": ("^", "#E69F00", 80, "rewrite (related, below τ)"),
    "excluded": ("X", "#999999", 70, "not this story"),
}
REFERENCE_RING = ("o", 330, "the cluster's reference page")
ROLE_ORDER: tuple[Role, ...] = ("first", "copy", "rewrite", "excluded")
MAX_UNDATED_LISTED = 8
MAX_SITE_LABEL = 32


def date_label(spread: ClusterSpread) -> str:
    """The x axis names the dates it shows: published, captured, or both kinds."""
    kinds = {p.when_from for p in spread.dated}
    if kinds == {"published"}:
        return "Date published"
    if kinds == {"captured"}:
        return "Date captured"
    return "Date (published, else captured)"


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def days_only(pages: list[SpreadPage]) -> bool:
    """Whether every date is a day without a time (as most publication dates are): the
    axis then shows days, never hours the dates do not have."""
    return all(p.when is not None and p.when.time() == datetime.min.time() for p in pages)


def _span_text(spread: ClusterSpread) -> str:
    span = spread.span_days or 0.0
    story = [p for p in spread.dated if p.role in ("first", "copy")]
    if days_only(story):
        return "on one day" if span < 1 else f"within {span:.0f} day{'s' * (span >= 2)}"
    return f"within {span:.0f} days" if span >= 2 else f"within {span * 24:.0f} hours"


def timeline_title(spread: ClusterSpread) -> str:
    title = _short(spread.reference_title or "(no title)", 80)
    first = spread.first
    if first is None or first.when is None:
        return f"Cluster {spread.cluster_id}: {title}\nno dated page: the first publisher is unknown"
    story = [p for p in spread.pages if p.role in ("first", "copy")]
    sites = len({p.site for p in story})
    return (f"Cluster {spread.cluster_id}: {title}\nfirst: {_short(first.site, 40)} on "
            f"{first.when:%Y-%m-%d}; {len(story)} pages on {sites} site{'s' * (sites != 1)} "
            f"{_span_text(spread)}")


def undated_note(undated: list[SpreadPage]) -> str:
    """The undated pages, listed (never silently dropped): site and role of each."""
    if not undated:
        return ""
    items = [f"{_short(p.site, 30)} ({p.role if p.role != 'excluded' else 'not this story'})"
             for p in undated]
    shown = ", ".join(items[:MAX_UNDATED_LISTED])
    more = len(items) - MAX_UNDATED_LISTED
    return (f"Undated, not on the timeline ({len(undated)}): {shown}"
            + (f" and {more} more" if more > 0 else ""))


def timeline_figure(spread: ClusterSpread, *, width: float = 9.0) -> Figure:
    """The cluster's pages as points: x the date, y the site (sites in the order they
    first carried the story, the first at the top), one marker per role with a legend;
    undated pages are listed under the plot."""
    dated = spread.dated
    sites = spread.sites
    height = min(2.4 + 0.32 * max(len(sites), 1), 14.0)
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(timeline_title(spread), fontsize=10, loc="left")
    row = {site: i for i, site in enumerate(sites)}
    for role in ROLE_ORDER:
        points = [p for p in dated if p.role == role]
        if not points:
            continue
        marker, colour, size, label = STYLES[role]
        ax.scatter([mdates.date2num(p.when) for p in points], [row[p.site] for p in points],
                   marker=marker, s=size, c=colour, edgecolors="black", linewidths=0.5,
                   label=f"{label} ({len(points)})", zorder=3 if role == "first" else 2,
                   gid=role)
    reference = [p for p in dated if p.is_reference]
    if reference:  # a ring: the page the coder compares with, which may not be the first
        marker, size, label = REFERENCE_RING
        ax.scatter([mdates.date2num(p.when) for p in reference], [row[p.site] for p in reference],
                   marker=marker, s=size, facecolors="none", edgecolors="black",
                   linewidths=1.0, label=label, zorder=4, gid="reference")
    ax.set_yticks(range(len(sites)), [_short(s, MAX_SITE_LABEL) for s in sites], fontsize=8)
    ax.set_ylim(len(sites) - 0.5 if sites else 0.5, -0.5)  # the first site at the top
    ax.set_ylabel("Site")
    ax.set_xlabel(date_label(spread))
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    if dated:
        _date_axis(ax, dated)
        _mark_stacked(ax, dated, row)
        # Outside the axes, so it never hides a page.
        fig.legend(loc="outside right upper", fontsize=8, frameon=False)
    else:
        ax.set_xticks([])
        ax.text(0.5, 0.5, "No page of this cluster has a date", transform=ax.transAxes,
                ha="center", va="center", color="#555555")
    note = undated_note(spread.undated)
    if note:
        fig.text(0.01, 0.005, "\n".join(textwrap.wrap(note, 140)), fontsize=7, color="#444444",
                 ha="left", va="bottom", gid="undated")
        engine = fig.get_layout_engine()
        if isinstance(engine, ConstrainedLayoutEngine):  # room under the axes for the note
            engine.set(rect=(0, 0.06, 1, 0.94))
    return fig


def _date_axis(ax: Axes, dated: list[SpreadPage]) -> None:
    """Ticks the dates can carry; an axis of at least a day (three with dates that are
    days only), not a zero-width one when every page has the same date."""
    whens = [p.when for p in dated if p.when is not None]
    low, high = min(whens), max(whens)
    days = days_only(dated)
    least = timedelta(days=3 if days else 1)
    if high - low < least:
        middle = low + (high - low) / 2
        low, high = middle - least / 2, middle + least / 2
        if days:
            low, high = low.replace(hour=0, minute=0), high.replace(hour=0, minute=0)
        ax.set_xlim(mdates.date2num(low), mdates.date2num(high))
    locator = mdates.DayLocator() if days and high - low <= timedelta(days=10) \
        else mdates.AutoDateLocator(minticks=3, maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))


def _mark_stacked(ax: Axes, dated: list[SpreadPage], row: dict[str, int]) -> None:
    """Pages of one site at one moment lie on one point: "×3" beside it says how many."""
    for (site, when), n in Counter((p.site, p.when) for p in dated).items():
        if n > 1 and when is not None:
            ax.annotate(f"×{n}", (mdates.date2num(when), row[site]), xytext=(7, 4),
                        textcoords="offset points", fontsize=7, color="#333333",
                        gid="stacked")
