"""A cluster's spread: its pages by date and site, who published first, who copied.

Roles of a page on the timeline:

* ``first``: the cluster's earliest dated page that is the story (not marked "not this
  story"); on ties the reference page, then the lower page id. With no dated page the
  cluster has no first page (the timeline says so).
* ``copy``: every other page of the cluster that is the story.
* ``rewrite``: a related page outside the cluster (a pair below τ), when the caller
  passes them; they are never counted as copies.
* ``excluded``: a member the coder marked "not this story".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from workbench.figures.when import WhenFrom, page_when, published_column

Role = Literal["first", "copy", "rewrite", "excluded"]
UNKNOWN_SITE = "(site unknown)"


@dataclass(frozen=True, slots=True)
class SpreadPage:
    page_id: int
    site: str  # the page's site, UNKNOWN_SITE when none could be told
    title: str
    url: str | None
    when: datetime | None  # None: undated
    when_from: WhenFrom | None
    role: Role
    is_reference: bool
    similarity: float | None  # to the cluster's reference


@dataclass(frozen=True, slots=True)
class ClusterSpread:
    cluster_id: int
    reference_title: str
    pages: tuple[SpreadPage, ...]  # dated and undated, in date order (undated last)

    @property
    def dated(self) -> list[SpreadPage]:
        return [p for p in self.pages if p.when is not None]

    @property
    def undated(self) -> list[SpreadPage]:
        return [p for p in self.pages if p.when is None]

    @property
    def first(self) -> SpreadPage | None:
        return next((p for p in self.pages if p.role == "first"), None)

    @property
    def sites(self) -> list[str]:
        """Every site with a dated page, in the order they first carried the story."""
        return list(dict.fromkeys(p.site for p in self.dated))

    @property
    def span_days(self) -> float | None:
        """Days from the first dated page of the story to the last (rewrites and
        excluded pages left out); None with fewer than one dated page."""
        story = [p.when for p in self.dated if p.role in ("first", "copy") and p.when]
        return (max(story) - min(story)).total_seconds() / 86400 if story else None


@dataclass(frozen=True, slots=True)
class _Row:
    page_id: int
    site: str
    title: str
    url: str | None
    captured: str | None
    published: str | None
    is_reference: bool
    similarity: float | None
    excluded: bool


# {published}: the stored publication date where pages have one (published_column).
_MEMBERS = """SELECT p.id, p.site, p.title, p.url, p.capture_date, {published},
                     p.id = c.reference_page_id, m.similarity, coalesce(m.excluded, 0)
              FROM cluster_members m JOIN clusters c ON c.id = m.cluster_id
              JOIN pages p ON p.id = m.page_id WHERE m.cluster_id = ?"""
_PAGES = """SELECT p.id, p.site, p.title, p.url, p.capture_date, {published}, 0, NULL, 0
            FROM pages p WHERE p.id IN ({marks})"""


def cluster_spread(conn: sqlite3.Connection, cluster_id: int,
                   related: Iterable[int] = ()) -> ClusterSpread | None:
    """The spread of ``cluster_id`` (None when there is no such cluster); ``related``:
    page ids of rewrites outside the cluster to show with it."""
    head = conn.execute("SELECT p.title FROM clusters c JOIN pages p "
                        "ON p.id = c.reference_page_id WHERE c.id = ?", (cluster_id,)).fetchone()
    if head is None:
        return None
    published = published_column(conn)
    members = [_Row(*r) for r in conn.execute(_MEMBERS.format(published=published),
                                              (cluster_id,))]
    inside = {r.page_id for r in members}
    extra = sorted(set(related) - inside)
    rewrites: list[_Row] = []
    for start in range(0, len(extra), 500):  # SQLite's limit on bound parameters
        chunk = extra[start:start + 500]
        rewrites += [_Row(*r) for r in conn.execute(
            _PAGES.format(published=published, marks=",".join("?" * len(chunk))), chunk)]
    return ClusterSpread(cluster_id, head[0] or "", tuple(spread_pages(members, rewrites)))


def spread_pages(members: Sequence[_Row], rewrites: Sequence[_Row] = ()) -> list[SpreadPage]:
    """Each page with its date and role, ordered by date (undated last)."""
    dated = {r.page_id: page_when(r.captured, r.published) for r in [*members, *rewrites]}
    story = [(w[0], r) for r in members if not r.excluded and (w := dated[r.page_id])]
    first = min(story, key=lambda d: (d[0], not d[1].is_reference, d[1].page_id),
                default=(None, None))[1]

    def role(row: _Row, outside: bool) -> Role:
        if outside:
            return "rewrite"
        if row.excluded:
            return "excluded"
        return "first" if first is not None and row.page_id == first.page_id else "copy"

    out = []
    for outside, rows in ((False, members), (True, rewrites)):
        for r in rows:
            when = dated[r.page_id]
            out.append(SpreadPage(r.page_id, r.site or UNKNOWN_SITE, r.title or "", r.url,
                                  when[0] if when else None, when[1] if when else None,
                                  role(r, outside), bool(r.is_reference), r.similarity))
    out.sort(key=lambda p: (p.when is None, p.when or datetime.min, p.role != "first",
                            p.page_id))
    return out
