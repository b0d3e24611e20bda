"""The numbers of the dashboard: the whole run at a glance.

Definitions (the dashboard and its CSV files say them too):

* A cluster's **source** is its first page as the timeline marks it: the earliest dated
  page that is the story (published date, else capture date; see :func:`page_when`),
  the reference page on a tie; when none of its story pages is dated, the reference
  page (or, if the coder marked that "not this story", the lowest page id).
* A **copy** is every other story page of a cluster of two or more story pages. Pages
  marked "not this story", pages alone and skipped pages are no copies.
* A site's **copy share**: its copies over all its pages in the run (skipped left out).
* **Sources copied most**: per site, the stories it was the source of that at least one
  other site copied, and how many copies those stories have on other sites.
* **Duplication over time**: dated pages per week (when the dated pages span at most
  half a year) or per month, and how many of them are copies.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from workbench.figures.spread import UNKNOWN_SITE
from workbench.figures.when import WhenFrom, page_when, published_column
from workbench.store.runs import summary

Unit = Literal["week", "month"]
WEEKS_UP_TO_DAYS = 183  # dated pages spanning more than this are counted per month


@dataclass(frozen=True, slots=True)
class RunPage:
    """One page of the run as the dashboard sees it."""

    page_id: int
    site: str
    captured: str | None
    published: str | None
    cluster_id: int | None  # None: a page with no cluster (alone)
    is_reference: bool
    excluded: bool


@dataclass(frozen=True, slots=True)
class SiteShare:
    site: str
    pages: int
    copies: int

    @property
    def share(self) -> float:
        return self.copies / self.pages if self.pages else 0.0


@dataclass(frozen=True, slots=True)
class SourceSite:
    site: str
    stories: int  # clusters it was the source of, copied by another site
    copies_elsewhere: int  # copies on other sites of those clusters


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    pages: int
    copies: int


@dataclass(frozen=True, slots=True)
class Corpus:
    """Everything the dashboard shows, computed in one pass over the run's pages."""

    sizes: tuple[tuple[int, int], ...]  # (cluster size, clusters of that size), size >= 2
    singles: int  # pages alone (in no cluster, or a cluster of one)
    sites: tuple[SiteShare, ...]  # by copy share, highest first
    sources: tuple[SourceSite, ...]  # copied most first
    unit: Unit
    periods: tuple[Period, ...]  # every week or month from the first dated page to the last
    undated: int  # pages with no date: not in ``periods``
    dated_from: tuple[tuple[WhenFrom, int], ...]  # how many pages got their date from where
    pages: int

    @property
    def clusters(self) -> int:
        return sum(n for _, n in self.sizes)

    @property
    def copies(self) -> int:
        return sum(s.copies for s in self.sites)


def run_pages(conn: sqlite3.Connection) -> list[RunPage]:
    """The current run's pages (skipped pages left out), with their active cluster."""
    run_id = summary.current_run(conn)
    if run_id is None:
        return []
    # Two plain scans joined here: one LEFT JOIN made SQLite build an index on every
    # run (twice as slow on 20,000 pages). cluster_summary holds the current run only.
    member = {pid: (cid, bool(ref), bool(exc)) for pid, cid, ref, exc in conn.execute(
        "SELECT m.page_id, m.cluster_id, m.page_id = s.reference_page_id, m.excluded "
        "FROM cluster_summary s JOIN cluster_members m ON m.cluster_id = s.cluster_id "
        "WHERE s.active = 1")}
    alone = (None, False, False)
    rows = conn.execute(
        f"SELECT p.id, p.site, p.capture_date, {published_column(conn)} FROM run_pages r "
        "JOIN pages p ON p.id = r.page_id WHERE r.run_id = ? AND p.skip_reason IS NULL",
        (run_id,))
    return [RunPage(pid, site or UNKNOWN_SITE, cap, pub, *member.get(pid, alone))
            for pid, site, cap, pub in rows]


def corpus_numbers(conn: sqlite3.Connection) -> Corpus:
    return summarise(run_pages(conn))


def summarise(pages: Iterable[RunPage]) -> Corpus:
    """The dashboard's numbers from the run's pages (see the module's definitions)."""
    pages = list(pages)
    when = {p.page_id: page_when(p.captured, p.published) for p in pages}
    by_cluster: dict[int, list[RunPage]] = defaultdict(list)
    for p in pages:
        if p.cluster_id is not None:
            by_cluster[p.cluster_id].append(p)
    copies: set[int] = set()
    sourced: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for members in by_cluster.values():
        story = [p for p in members if not p.excluded]
        if len(story) < 2:
            continue
        source = _source(story, when)
        elsewhere = 0
        for p in story:
            if p is not source:
                copies.add(p.page_id)
                elsewhere += p.site != source.site
        if elsewhere:
            sourced[source.site][0] += 1
            sourced[source.site][1] += elsewhere
    sizes = Counter(len(m) for m in by_cluster.values())
    site_pages: Counter[str] = Counter(p.site for p in pages)
    site_copies: Counter[str] = Counter(p.site for p in pages if p.page_id in copies)
    sites = sorted((SiteShare(s, n, site_copies[s]) for s, n in site_pages.items()),
                   key=lambda s: (-s.share, -s.pages, s.site))
    sources = sorted((SourceSite(s, n, c) for s, (n, c) in sourced.items()),
                     key=lambda s: (-s.stories, -s.copies_elsewhere, s.site))
    dated = [(w[0], p.page_id in copies) for p in pages if (w := when[p.page_id])]
    unit, periods = _periods(dated)
    return Corpus(
        sizes=tuple(sorted((k, v) for k, v in sizes.items() if k >= 2)),
        singles=sum(len(m) for m in by_cluster.values() if len(m) < 2)
        + sum(1 for p in pages if p.cluster_id is None),
        sites=tuple(sites), sources=tuple(sources), unit=unit, periods=periods,
        undated=len(pages) - len(dated),
        dated_from=tuple(sorted(Counter(w[1] for w in when.values() if w).items())),
        pages=len(pages))


def _source(story: list[RunPage], when: dict[int, tuple[datetime, WhenFrom] | None]
            ) -> RunPage:
    dated = [(w[0], p) for p in story if (w := when[p.page_id]) is not None]
    if dated:
        return min(dated, key=lambda d: (d[0], not d[1].is_reference, d[1].page_id))[1]
    return min(story, key=lambda p: (not p.is_reference, p.page_id))


def period_unit(first: datetime, last: datetime) -> Unit:
    """Weeks for dates spanning at most half a year, months beyond (a bar a week over
    years would be too thin to read)."""
    return "week" if (last - first).days <= WEEKS_UP_TO_DAYS else "month"


def period_start(when: datetime, unit: Unit) -> date:
    """The Monday of the week (ISO weeks) or the first of the month ``when`` falls in."""
    day = when.date()
    return day - timedelta(days=day.weekday()) if unit == "week" else day.replace(day=1)


def _next_start(start: date, unit: Unit) -> date:
    if unit == "week":
        return start + timedelta(days=7)
    return date(start.year + start.month // 12, start.month % 12 + 1, 1)


def _periods(dated: list[tuple[datetime, bool]]) -> tuple[Unit, tuple[Period, ...]]:
    if not dated:
        return "month", ()
    first, last = min(w for w, _ in dated), max(w for w, _ in dated)
    unit = period_unit(first, last)
    pages: Counter[date] = Counter()
    copied: Counter[date] = Counter()
    for w, is_copy in dated:
        start = period_start(w, unit)
        pages[start] += 1
        copied[start] += is_copy
    out = []
    start, end = period_start(first, unit), period_start(last, unit)
    while start <= end:  # every period, empty ones too: the axis is time
        out.append(Period(start, pages[start], copied[start]))
        start = _next_start(start, unit)
    return unit, tuple(out)
