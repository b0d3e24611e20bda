"""Read queries the GUI and the export need, returning plain frozen records."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from workbench.store.coding.codebook import Tag, all_tags
from workbench.store.runs import summary


@dataclass(frozen=True, slots=True)
class TagState:
    tag_id: int
    name: str
    colour: str
    state: str  # "all" or "some" of the cluster's pages
    pages: int


@dataclass(frozen=True, slots=True)
class ClusterRow:
    id: int
    size: int
    min_similarity: float | None  # over members other than the reference
    mean_similarity: float | None
    reference_page_id: int
    reference_title: str
    sites: tuple[str, ...]  # up to summary.MAX_SITES, sorted
    site_count: int
    coded: str  # "all" | "some" | "none": pages carrying at least one tag
    coded_pages: int
    tags: tuple[TagState, ...]
    memo_count: int
    needs_review: bool
    # Members the coder marked "not this story" (set_excluded): still in ``size``, but
    # not in ``coded``, ``coded_pages`` or ``tags``, which count the other members.
    excluded_count: int = 0
    # When its pages (other than those "not this story") were first and last seen: each
    # page's publication date, else its capture date (ISO 8601; None: no page is dated).
    first_seen: str | None = None
    last_seen: str | None = None

    @property
    def span_days(self) -> float | None:
        """Days from first to last seen (None: no page is dated)."""
        return seen_span_days(self.first_seen, self.last_seen)

    @property
    def below_floor(self) -> bool:
        """Some member's similarity to the reference is below the run's pair floor
        (not stored), so ``min_similarity`` is unknown."""
        return self.size > 1 and self.min_similarity is None


@dataclass(frozen=True, slots=True)
class MemberRow:
    page_id: int
    key: str
    title: str
    url: str | None
    site: str
    similarity: float | None  # to the cluster's reference; None: below the run's pair floor
    is_reference: bool
    tag_ids: tuple[int, ...]
    # Share of the signatures shared with the reference that lie in blocks other pages
    # carry too (None: not measured).
    boilerplate_share: float | None = None
    # The coder marked this member "not this story" (Project.set_excluded): it stays in
    # the cluster, but cluster-level tagging passes it by.
    excluded: bool = False


@dataclass(frozen=True, slots=True)
class PageTag:
    tag_id: int
    name: str
    coder: str
    tagged_at: str
    via_cluster_id: int | None  # None: tagged directly


@dataclass(frozen=True, slots=True)
class PageDetail:
    """A page with its full provenance, for the details pane and the export."""

    id: int
    key: str
    source: str
    offset: int | None
    url: str | None
    capture_date: str | None
    http_status: int | None
    content_type: str | None
    encoding: str | None
    title: str
    checksum: str
    signature_count: int
    skip_reason: str | None
    site: str
    cluster_id: int | None  # in the current run
    tags: tuple[PageTag, ...]
    title_tag: str = ""  # the page's <title>; ``title`` is its headline
    # Where ``url`` and ``capture_date`` came from (workbench.text.provenance.captures), and the
    # publication date the page states with where it was read (workbench.text.provenance.published).
    url_from: str | None = None
    captured_from: str | None = None
    published: str | None = None
    published_from: str | None = None


@dataclass(frozen=True, slots=True)
class Counts:
    clusters: int
    clusters_all_coded: int
    clusters_some_coded: int
    clusters_need_review: int
    pages: int  # pages in the current run's clusters
    pages_coded: int


@dataclass(frozen=True, slots=True)
class RunInfo:
    id: int
    created_at: str
    method: str
    params: dict[str, Any]
    timings: dict[str, float]
    software_version: str
    page_count: int


ORDERS = {
    "size": "size DESC, cluster_id",
    "id": "cluster_id",
    # Least similar first; a minimum below the pair floor (NULL in a cluster of two or
    # more pages) is the least of all; single pages (no minimum) last.
    "similarity": "min_similarity IS NULL AND size = 1, coalesce(min_similarity, -1.0), cluster_id",
}
CODED = {"none": summary.NONE, "some": summary.SOME, "all": summary.ALL}


def _filters(coded: str | None, review_only: bool) -> tuple[str, list[Any]]:
    where, args = ["active = 1"], []
    if coded is not None:
        if coded not in CODED:
            raise ValueError(f"coded must be one of {sorted(CODED)}, not {coded!r}")
        where.append("coded_state = ?")
        args.append(CODED[coded])
    if review_only:
        where.append("needs_review = 1")
    return " AND ".join(where), args


_ROW_COLUMNS = """cluster_id, size, min_similarity, mean_similarity, reference_page_id,
    reference_title, sites, site_count, coded_state, coded_pages, tag_counts, memo_count,
    needs_review, excluded_count, first_seen, last_seen"""


# Where a page's publication date came from; NULL without a date ("htmldate" with no date
# only says htmldate has read the page: workbench.usecases.published_dates).
PUBLISHED_FROM = "CASE WHEN published IS NULL THEN NULL ELSE published_from END"


def seen_span_days(first: str | None, last: str | None) -> float | None:
    """Days between two ISO 8601 dates or times (a date alone is its midnight, UTC)."""
    if not first or not last:
        return None
    try:
        start, end = _moment(first), _moment(last)
    except ValueError:
        return None
    return (end - start).total_seconds() / 86_400


def _moment(value: str) -> datetime:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _cluster_row(row: tuple[Any, ...], tags: dict[int, Tag]) -> ClusterRow:
    (cid, size, min_sim, mean_sim, ref, title, sites, site_count, state, coded_pages,
     tag_counts, memo_count, review, excluded, first_seen, last_seen) = row
    states = []
    for tag_id, n in json.loads(tag_counts).items():
        tag = tags.get(int(tag_id))
        if tag is not None:
            states.append(TagState(tag.id, tag.name, tag.colour,
                                   "all" if n >= size - excluded else "some", n))
    states.sort(key=lambda s: s.name.casefold())
    return ClusterRow(
        cid, size, min_sim, mean_sim, ref, title, tuple(sites.split("\n")) if sites else (),
        site_count, summary.STATE_NAMES[state], coded_pages, tuple(states), memo_count,
        bool(review), excluded, first_seen, last_seen,
    )


def list_clusters(conn: sqlite3.Connection, offset: int = 0, limit: int = 200, *,
                  order: str = "size", coded: str | None = None,
                  review_only: bool = False) -> list[ClusterRow]:
    """One page of the current run's cluster list, served from cluster_summary."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {sorted(ORDERS)}, not {order!r}")
    where, args = _filters(coded, review_only)
    rows = conn.execute(
        f"SELECT {_ROW_COLUMNS} FROM cluster_summary WHERE {where} "
        f"ORDER BY {ORDERS[order]} LIMIT ? OFFSET ?",
        [*args, limit, offset],
    ).fetchall()
    tags = {t.id: t for t in all_tags(conn)}
    return [_cluster_row(r, tags) for r in rows]


def count_single_pages(conn: sqlite3.Connection) -> int:
    """Clusters of one page in the current run (pages with no near duplicate); counted on
    the size index, so the window asks once per run or split/merge, not per keystroke."""
    return int(conn.execute("SELECT count(*) FROM cluster_summary WHERE active = 1 AND size = 1"
                            ).fetchone()[0])


def count_clusters(conn: sqlite3.Connection, *, coded: str | None = None,
                   review_only: bool = False) -> int:
    """Rows of the list under these filters; from the totals where they tell."""
    where, args = _filters(coded, review_only)
    if not (review_only and coded is not None):
        c = counts(conn)
        if review_only:
            return c.clusters_need_review
        return {None: c.clusters, "all": c.clusters_all_coded, "some": c.clusters_some_coded,
                "none": c.clusters - c.clusters_all_coded - c.clusters_some_coded}[coded]
    return int(conn.execute(f"SELECT count(*) FROM cluster_summary WHERE {where}", args).fetchone()[0])


def cluster(conn: sqlite3.Connection, cluster_id: int) -> ClusterRow | None:
    row = conn.execute(f"SELECT {_ROW_COLUMNS} FROM cluster_summary WHERE cluster_id = ?",
                       (cluster_id,)).fetchone()
    return _cluster_row(row, {t.id: t for t in all_tags(conn)}) if row else None


def cluster_of_page(conn: sqlite3.Connection, page_id: int) -> int | None:
    """The page's cluster in the current run (None: skipped or not in this run)."""
    row = conn.execute(
        "SELECT m.cluster_id FROM cluster_members m JOIN cluster_summary s "
        "ON s.cluster_id = m.cluster_id WHERE m.page_id = ?", (page_id,)).fetchone()
    return row[0] if row else None


def members(conn: sqlite3.Connection, cluster_id: int) -> list[MemberRow]:
    """Reference first, then by descending similarity to it."""
    rows = conn.execute(
        """SELECT p.id, p.key, p.title, p.url, p.site, m.similarity,
                  p.id = c.reference_page_id,
                  (SELECT group_concat(tag_id) FROM page_tags WHERE page_id = p.id),
                  m.boilerplate_share, m.excluded
           FROM cluster_members m JOIN pages p ON p.id = m.page_id
           JOIN clusters c ON c.id = m.cluster_id
           WHERE m.cluster_id = ?
           ORDER BY p.id = c.reference_page_id DESC, m.similarity IS NULL,
                    m.similarity DESC, p.id""",
        (cluster_id,),
    )
    return [
        MemberRow(pid, key, title, url, site, sim, bool(is_ref),
                  tuple(sorted(int(t) for t in tag_ids.split(","))) if tag_ids else (), share,
                  bool(excluded))
        for pid, key, title, url, site, sim, is_ref, tag_ids, share, excluded in rows
    ]


def page_tags(conn: sqlite3.Connection, page_id: int) -> tuple[PageTag, ...]:
    rows = conn.execute(
        "SELECT t.id, t.name, c.name, pt.tagged_at, pt.via_cluster_id FROM page_tags pt "
        "JOIN tags t ON t.id = pt.tag_id JOIN coders c ON c.id = pt.coder_id "
        "WHERE pt.page_id = ? ORDER BY t.name COLLATE NOCASE",
        (page_id,),
    )
    return tuple(PageTag(*r) for r in rows)


def page(conn: sqlite3.Connection, page_id: int) -> PageDetail | None:
    row = conn.execute(
        'SELECT id, key, source, "offset", url, capture_date, http_status, content_type, '
        "encoding, title, checksum, signature_count, skip_reason, site, title_tag, url_from, "
        f"captured_from, published, {PUBLISHED_FROM} FROM pages WHERE id = ?", (page_id,),
    ).fetchone()
    if row is None:
        return None
    # Named one by one (not ``*row``): the fields after them are then checkably in place.
    (pid, key, source, offset, url, capture_date, http_status, content_type, encoding, title,
     checksum, signature_count, skip_reason, site, title_tag, url_from, captured_from, published,
     published_from) = row
    return PageDetail(pid, key, source, offset, url, capture_date, http_status, content_type,
                      encoding, title, checksum, signature_count, skip_reason, site,
                      cluster_of_page(conn, page_id), page_tags(conn, page_id), title_tag,
                      url_from, captured_from, published, published_from)


def page_id_by_key(conn: sqlite3.Connection, key: str) -> int | None:
    row = conn.execute("SELECT id FROM pages WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def counts(conn: sqlite3.Connection) -> Counts:
    """The status bar's figures, kept by summary.refresh (never a count of every cluster)."""
    row = conn.execute(
        f"SELECT {', '.join(summary.TOTAL_COLUMNS)} FROM cluster_totals WHERE id = 1").fetchone()
    return Counts(*row)


def _run(row: tuple[Any, ...]) -> RunInfo:
    rid, created, method, params, timings, version, n = row
    return RunInfo(rid, created, method, json.loads(params), json.loads(timings), version, n)


# page_count is stored when a run is saved; counting is the fallback of last resort.
_RUN_SELECT = """SELECT r.id, r.created_at, r.method, r.params, r.timings, r.software_version,
    coalesce(r.page_count, (SELECT count(*) FROM run_pages WHERE run_id = r.id)) FROM runs r"""


def runs(conn: sqlite3.Connection) -> list[RunInfo]:
    return [_run(r) for r in conn.execute(_RUN_SELECT + " ORDER BY r.id")]


def current_run(conn: sqlite3.Connection) -> RunInfo | None:
    run_id = summary.current_run(conn)
    if run_id is None:
        return None
    row = conn.execute(_RUN_SELECT + " WHERE r.id = ?", (run_id,)).fetchone()
    return _run(row) if row else None


def skipped_pages(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(name, reason) of what the current run left out: inputs that gave no page
    (file path, or path#offset for an archive record), then pages with too little text."""
    run_id = summary.current_run(conn)
    inputs = [
        (source if offset is None else f"{source}#{offset}", reason)
        for source, offset, reason in conn.execute(
            "SELECT source, offset, reason FROM run_skips WHERE run_id = ? ORDER BY rowid", (run_id,)
        )
    ]
    # From the few skipped pages (index pages_skipped, in key order) to the run, not
    # from the run's million pages to their skip reasons.
    return inputs + conn.execute(
        "SELECT p.key, p.skip_reason FROM pages p INDEXED BY pages_skipped "
        "WHERE p.skip_reason IS NOT NULL AND EXISTS "
        "(SELECT 1 FROM run_pages r WHERE r.run_id = ? AND r.page_id = p.id) ORDER BY p.key",
        (run_id,),
    ).fetchall()


def pair_similarity(conn: sqlite3.Connection, a: int, b: int) -> float | None:
    """Similarity of two pages in the current run (None: below τ or not compared)."""
    if a == b:
        return 1.0
    row = conn.execute(
        "SELECT similarity FROM pairs WHERE run_id = ? AND a = ? AND b = ?",
        (summary.current_run(conn), min(a, b), max(a, b)),
    ).fetchone()
    return row[0] if row else None
