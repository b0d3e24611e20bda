"""Saving what the pipeline produced: scanned files and detection runs.

The bulk of a run (its pages, pairs and clusters) is written with the undo recorder
paused: a run is a fact about the archive, and tags live on pages, so a new run never
touches them. A run that replaces the current one is made current inside one undoable
action that also carries the coder's decisions over (workbench.store.coding.carry).
"""

from __future__ import annotations

import json
import re
import sqlite3
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice, repeat
from typing import Any, Protocol
from urllib.parse import urlsplit

import numpy as np

from workbench import __version__
from workbench.core.clusters.calibration import run_floor
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import Cluster, PageInfo, Pair, RunFilters, SkipRecord
from workbench.store.clock import utc_now
from workbench.store.coding import recorder
from workbench.store.runs import summary
from workbench.store.runs.pairs import run_page_ids

_BATCH = 5_000


class PairArrays(Protocol):
    """Pairs as three parallel arrays (the matcher's PairResult): page indexes ``a`` and
    ``b`` and their ``similarity``. save_run takes them as they are, so a run of a
    million pages needs no Pair object per pair."""

    a: Any
    b: Any
    similarity: Any

    def __len__(self) -> int: ...


Pairs = Sequence[Pair] | PairArrays


def record_files(conn: sqlite3.Connection, files: Iterable[tuple[str, int, float]]) -> int:
    """Insert or update (path, size, mtime) of scanned files; return how many."""
    now = utc_now()
    rows = [(str(p), int(s), float(m), now) for p, s, m in files]
    conn.executemany(
        "INSERT INTO files (path, size, mtime, recorded_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, "
        "recorded_at = excluded.recorded_at",
        rows,
    )
    return len(rows)


# The common case of a URL ("http://host[:port]/..."), read without urlsplit, which
# took a third of saving a million pages. Anything else goes to urlsplit.
_PLAIN_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([A-Za-z0-9._-]+)(?::[0-9]*)?(?:[/?#]|$)")


def site_of(page: PageInfo, *, folder_sites: bool = True) -> str:
    """The site a coder recognises: the URL's host (without a leading "www."), else the
    host most of the page's links point to (``link_host``), else, when ``folder_sites``,
    the first folder of its path, else "" (unknown: the cluster list shows no site).

    ``folder_sites`` is for an archive whose pages lie in several top-level folders
    (one per site, as wget and HTTrack save them); the one folder of a flat folder of
    saved pages is no site (:func:`folders_are_sites`).
    """
    if page.url:
        plain = _PLAIN_HOST.match(page.url)
        try:
            host = plain.group(1).lower() if plain else urlsplit(page.url).hostname
        except ValueError:  # a malformed URL (an unclosed IPv6 bracket) names no host
            host = None
        if host:
            return host.removeprefix("www.")
    if page.link_host:
        return page.link_host.lower().removeprefix("www.")
    if not folder_sites:
        return ""
    head, sep, _ = page.source.partition("/")
    return head if sep else ""


def folders_are_sites(pages: Iterable[PageInfo]) -> bool:
    """Whether the pages lie in two or more top-level folders of the archive."""
    first = None
    for page in pages:
        head, sep, _ = page.source.partition("/")
        if not sep:
            continue
        if first is None:
            first = head
        elif head != first:
            return True
    return False


def validate(pages: Sequence[PageInfo], pairs: Pairs, clusters: Sequence[Cluster]) -> bytearray:
    """Reject inconsistent pipeline output before anything is written.

    Returns one flag per page: 1 for a page in one of ``clusters``.
    """
    n = len(pages)
    if len({p.key for p in pages}) != n:
        seen_keys: set[str] = set()
        for p in pages:
            if p.key in seen_keys:
                raise ValueError(f"page key {p.key!r} occurs twice in one run")
            seen_keys.add(p.key)
    _validate_pairs(pairs, n)
    in_cluster = bytearray(n)  # a byte a page, not a set of a million ints
    for i, cluster in enumerate(clusters):
        if not cluster.members or cluster.members[0] != cluster.reference:
            raise ValueError(f"cluster {i}: members must start with the reference page")
        if cluster.similarities and len(cluster.similarities) != len(cluster.members):
            raise ValueError(f"cluster {i}: one similarity per member is required")
        if cluster.boilerplate_share is not None and \
                len(cluster.boilerplate_share) != len(cluster.members):
            raise ValueError(f"cluster {i}: one boilerplate share per member is required")
        for m in cluster.members:
            if not 0 <= m < n:
                raise ValueError(f"cluster {i} refers to page {m} outside 0..{n - 1}")
            if in_cluster[m]:
                raise ValueError(f"page {pages[m].key!r} is in two clusters")
            if pages[m].skip_reason:
                raise ValueError(f"skipped page {pages[m].key!r} cannot be in a cluster")
            in_cluster[m] = 1
    return in_cluster


def _validate_pairs(pairs: Pairs, n: int) -> None:
    if not isinstance(pairs, Sequence):  # arrays: checked at once, the first bad one told
        a, b = np.asarray(pairs.a), np.asarray(pairs.b)
        bad = np.flatnonzero((a < 0) | (a >= n) | (b < 0) | (b >= n) | (a == b))
        if not len(bad):
            return
        pairs = [Pair(int(a[bad[0]]), int(b[bad[0]]), float(pairs.similarity[bad[0]]))]
    for a_, b_, s in pair_triples(pairs):
        if not (0 <= a_ < n and 0 <= b_ < n) or a_ == b_:
            raise ValueError(f"pair {Pair(a_, b_, s)} refers to pages outside 0..{n - 1}")


def pair_triples(pairs: Pairs, chunk: int = 65_536) -> Iterator[tuple[int, int, float]]:
    """(a, b, similarity) of each pair, whether given as Pair objects or as arrays;
    arrays are turned into Python numbers a chunk at a time, never all at once."""
    if isinstance(pairs, Sequence):
        for pair in pairs:
            yield pair.a, pair.b, pair.similarity
        return
    for start in range(0, len(pairs), chunk):
        end = start + chunk
        yield from zip(pairs.a[start:end].tolist(), pairs.b[start:end].tolist(),
                       pairs.similarity[start:end].tolist(), strict=True)


_UPSERT_PAGE = """INSERT INTO pages (key, source, "offset", url, capture_date, http_status,
        content_type, encoding, title, checksum, signature_count, skip_reason, site, title_tag,
        url_from, captured_from, published, published_from)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(key) DO UPDATE SET source = excluded.source, "offset" = excluded."offset",
        url = excluded.url, capture_date = excluded.capture_date,
        http_status = excluded.http_status, content_type = excluded.content_type,
        encoding = excluded.encoding, title = excluded.title, checksum = excluded.checksum,
        signature_count = excluded.signature_count, skip_reason = excluded.skip_reason,
        site = excluded.site, title_tag = excluded.title_tag, url_from = excluded.url_from,
        captured_from = excluded.captured_from,
        published = CASE WHEN @HTMLDATE_KEPT@ THEN pages.published ELSE excluded.published END,
        published_from = CASE WHEN @HTMLDATE_KEPT@ THEN pages.published_from
                              ELSE excluded.published_from END"""
# What htmldate read of a page after an earlier run (a date, or "htmldate" with none:
# workbench.usecases.published_dates) holds while its text is the same, so no page is
# read for it twice. (SQLite evaluates every SET against the row as it was.)
_HTMLDATE_KEPT = ("excluded.published IS NULL AND pages.published_from = 'htmldate' "
                  "AND pages.checksum = excluded.checksum")
_UPSERT_PAGE = _UPSERT_PAGE.replace("@HTMLDATE_KEPT@", _HTMLDATE_KEPT)
# The same without the date columns, for a file of an older schema written by
# this code (the tests' way of making one: nothing else writes an unmigrated file).
_UPSERT_PAGE_UNDATED = """INSERT INTO pages (key, source, "offset", url, capture_date, http_status,
        content_type, encoding, title, checksum, signature_count, skip_reason, site, title_tag)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(key) DO UPDATE SET source = excluded.source, "offset" = excluded."offset",
        url = excluded.url, capture_date = excluded.capture_date,
        http_status = excluded.http_status, content_type = excluded.content_type,
        encoding = excluded.encoding, title = excluded.title, checksum = excluded.checksum,
        signature_count = excluded.signature_count, skip_reason = excluded.skip_reason,
        site = excluded.site, title_tag = excluded.title_tag"""


def _page_rows(pages: Sequence[PageInfo]) -> Iterator[tuple[object, ...]]:
    folders = folders_are_sites(pages)
    for p in pages:
        yield (p.key, p.source, p.offset, p.url, p.capture_date, p.http_status, p.content_type,
               p.encoding, p.title, p.checksum, p.signature_count, p.skip_reason,
               site_of(p, folder_sites=folders), p.title_tag, p.url_from, p.captured_from,
               p.published, p.published_from)


def _upsert_pages(conn: sqlite3.Connection, run_id: int, pages: Sequence[PageInfo]) -> array[int]:
    """Insert new pages, refresh provenance of known ones (matched by key), list them in
    ``run_pages``; return the page ids by page index.

    Rows are streamed to SQLite (no list of a million tuples) and SQLite matches keys
    to ids itself, so no dict of every key in the project is built either.
    """
    dated = "published" in {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    rows = _page_rows(pages)
    conn.executemany(_UPSERT_PAGE if dated else _UPSERT_PAGE_UNDATED,
                     rows if dated else (row[:14] for row in rows))
    conn.executemany(
        "INSERT INTO run_pages (run_id, page_id, idx) SELECT ?, id, ? FROM pages WHERE key = ?",
        ((run_id, i, p.key) for i, p in enumerate(pages)),
    )
    conn.execute("UPDATE runs SET page_count = ? WHERE id = ?", (len(pages), run_id))
    return _page_id_array(conn, run_id, len(pages))


def _page_id_array(conn: sqlite3.Connection, run_id: int, n: int) -> array[int]:
    """Page ids of a run by index, 8 bytes each (a list would hold an int object each)."""
    ids = array("q", bytes(8 * n))
    for page_id, idx in conn.execute("SELECT page_id, idx FROM run_pages WHERE run_id = ?",
                                     (run_id,)):
        ids[idx] = page_id
    return ids


# A run in progress, by the settings it was asked for (``meta`` key). Written before the
# run reads anything and removed by the transaction that saves it, so a run killed half
# way (crash, power cut, task manager) leaves it behind: the previous run is still the
# current one, and the coder can be offered the new settings again instead of finding
# them silently dropped.
_PENDING = "pending_run"


def begin_run(conn: sqlite3.Connection, params: dict[str, Any]) -> None:
    """Record that a run with ``params`` is starting (replaces an earlier pending one)."""
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (_PENDING, json.dumps(params, sort_keys=True, default=str)))


def pending_run(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """The params of a run that was started and never saved, or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_PENDING,)).fetchone()
    return json.loads(row[0]) if row else None


def forget_pending_run(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM meta WHERE key = ?", (_PENDING,))


def _new_run(conn: sqlite3.Connection, method: str, params: dict[str, Any], timings: dict[str, float]) -> int:
    """A row for a new run (its parameters, timings and the software that made it)."""
    run_id = conn.execute(
        "INSERT INTO runs (created_at, method, params, timings, software_version) "
        "VALUES (?, ?, ?, ?, ?)",
        (utc_now(), method, json.dumps(params, sort_keys=True, default=str),
         json.dumps(timings, sort_keys=True), __version__),
    ).lastrowid
    assert run_id is not None
    return run_id


def save_run(
    conn: sqlite3.Connection, params: dict[str, Any], method: str, timings: dict[str, float],
    pages: Sequence[PageInfo], pairs: Pairs, clusters: Sequence[Cluster],
    *, singletons: bool = True, progress: ProgressFn = no_progress,
    filters: RunFilters | None = None, skipped: Sequence[SkipRecord] = (),
    current: bool = True,
) -> int:
    """Store a detection run and (``current``) make it current; return its id.

    ``pairs``: Pair objects or parallel arrays (:class:`PairArrays`).
    ``singletons``: every page that is neither skipped nor in a cluster gets a
    one-page cluster, so every story appears in the list and can be tagged.
    A cluster whose pages already carry differing tags (from coding an earlier
    run) is flagged for review.

    Nothing proportional to the run is built in Python beyond an 8-byte page id and a
    flag byte per page: rows go to SQLite as they are made. The run is no longer pending
    (:func:`begin_run`) once this commits.
    """
    in_cluster = validate(pages, pairs, clusters)
    total = len(pages) + len(pairs) + len(clusters)
    progress("save", 0, total)
    with recorder.paused(conn):
        run_id = _new_run(conn, method, params, timings)
        page_ids = _upsert_pages(conn, run_id, pages)
        progress("save", len(pages), total)
        # An upsert, not INSERT OR REPLACE: a pair given twice keeps the last similarity
        # either way, and REPLACE's delete path took twice as long.
        conn.executemany(
            "INSERT INTO pairs (run_id, a, b, similarity) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (run_id, a, b) DO UPDATE SET similarity = excluded.similarity",
            _pair_rows(run_id, page_ids, pairs),
        )
        progress("save", len(pages) + len(pairs), total)
        singles = (i for i, p in enumerate(pages) if not in_cluster[i] and not p.skip_reason) \
            if singletons else iter(())
        _insert_clusters(conn, run_id, page_ids, clusters, singles,
                         lambda done: progress("save", len(pages) + len(pairs) + done, total))
        if filters is not None:
            _save_filters(conn, run_id, filters)
        conn.executemany(
            "INSERT INTO run_skips (run_id, source, offset, reason) VALUES (?, ?, ?, ?)",
            [(run_id, sk.source, sk.offset, sk.reason) for sk in skipped])
        _finish(conn, run_id, current)
        forget_pending_run(conn)
    progress("save", total, total)
    return run_id


def _pair_rows(run_id: int, page_ids: array[int], pairs: Pairs,
               chunk: int = 65_536) -> Iterator[tuple[int, int, int, float]]:
    """The pairs table's rows, in the order of its key (run, a, b): rows in the matcher's
    order landed all over the table's B-tree (1.2 million pairs took 32 s to insert,
    4.9 s in key order, at a load average of 13). The sort is stable, so of a pair given
    twice the last similarity still wins."""
    if isinstance(pairs, Sequence):
        a = np.fromiter((p.a for p in pairs), dtype=np.int64, count=len(pairs))
        b = np.fromiter((p.b for p in pairs), dtype=np.int64, count=len(pairs))
        similarity = np.fromiter((p.similarity for p in pairs), dtype=np.float64, count=len(pairs))
    else:
        a, b, similarity = np.asarray(pairs.a), np.asarray(pairs.b), np.asarray(pairs.similarity)
    ids = np.frombuffer(page_ids, dtype=np.int64) if len(page_ids) else np.empty(0, np.int64)
    x, y = ids[a], ids[b]
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    del x, y
    order = np.lexsort((hi, lo))
    for start in range(0, len(order), chunk):
        at = order[start : start + chunk]
        yield from zip(repeat(run_id), lo[at].tolist(), hi[at].tolist(), similarity[at].tolist())


def _share(value: float | None) -> float | None:
    # NaN or a negative share means "not measured", as NULL does.
    return None if value is None or not value >= 0 else float(value)


Group = tuple[Sequence[int], Sequence[float | None], Sequence[float | None], str]


def _groups(clusters: Sequence[Cluster], singles: Iterable[int], n: int) -> Iterator[Group]:
    """(members, similarities, boilerplate shares, origin) of each cluster to store: the
    given ones, then a one-page cluster for each of ``singles`` that is in none.

    A negative similarity means "not among the stored pairs" (below the run's floor),
    stored as NULL like a missing one.
    """
    clustered = bytearray(n)
    for c in clusters:
        nones = [None] * len(c.members)
        sims = [None if s is None or s < 0 else float(s) for s in c.similarities] or nones
        shares = [_share(v) for v in c.boilerplate_share] \
            if c.boilerplate_share is not None else nones
        for m in c.members:
            clustered[m] = 1
        yield c.members, sims, shares, "detected"
    for i in singles:
        if not clustered[i]:
            yield (i,), (1.0,), (None,), "singleton"


def _insert_clusters(conn: sqlite3.Connection, run_id: int, page_ids: Sequence[int],
                     clusters: Sequence[Cluster], singles: Iterable[int],
                     progress: Callable[[int], None] = lambda _done: None) -> None:
    """Store a run's clusters, then a one-page cluster for each of ``singles`` that is in
    none (so every story appears in the list and can be tagged), a batch at a time."""
    next_id = (conn.execute("SELECT coalesce(max(id), 0) FROM clusters").fetchone()[0]) + 1
    groups = _groups(clusters, singles, len(page_ids))
    done = 0
    while batch := list(islice(groups, _BATCH)):
        cluster_rows, member_rows = [], []
        for cid, (members, sims, shares, origin) in enumerate(batch, next_id + done):
            cluster_rows.append((cid, run_id, page_ids[members[0]], origin))
            member_rows += [(cid, page_ids[m], s, b)
                            for m, s, b in zip(members, sims, shares, strict=True)]
        conn.executemany(
            "INSERT INTO clusters (id, run_id, reference_page_id, origin) VALUES (?, ?, ?, ?)",
            cluster_rows,
        )
        conn.executemany(
            "INSERT INTO cluster_members (cluster_id, page_id, similarity, boilerplate_share) "
            "VALUES (?, ?, ?, ?)",
            member_rows,
        )
        done += len(batch)
        progress(min(done, len(clusters)))


def _finish(conn: sqlite3.Connection, run_id: int, current: bool = True) -> None:
    """What every new run ends with: known similarities filled in, clusters whose pages
    carry differing tags (from coding an earlier run) flagged, and (``current``) the run
    made current. A run that replaces another is made current by
    :func:`workbench.store.coding.carry.replace_run` instead, once the coder's decisions are on it."""
    _fill_missing_similarities(conn, run_id)
    _flag_mixed_tags(conn, run_id)
    if current:
        make_current(conn, run_id)


def make_current(conn: sqlite3.Connection, run_id: int, *, rebuild: bool = True) -> None:
    """Make ``run_id`` the run the window shows (inside an action, undoably: the
    ``current_run`` row is recorded) and (``rebuild``) rebuild the cluster summary for it;
    the action log rebuilds it after an action that changes the current run."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('current_run', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (str(run_id),),
    )
    if rebuild:
        summary.rebuild(conn)


def save_recluster(conn: sqlite3.Connection, base_run: int, tau: float, clusters: Sequence[Cluster],
                   timings: dict[str, float], *, current: bool = True) -> int:
    """A new current run made from ``base_run``'s stored pairs, clustered again at ``tau``.

    It reuses everything the base run read: the same page rows in the same order (so
    tags, which live on pages, stay exactly where they are, as after a detection
    re-run), the same pairs, filters and skipped inputs. Its parameters are the base
    run's with the new tau, the same floor, and ``reclustered_from``. Boilerplate
    shares are kept where a member keeps the same reference. ``clusters`` index the
    base run's pages (``run_pages.idx``).
    """
    row = conn.execute("SELECT method, params FROM runs WHERE id = ?", (base_run,)).fetchone()
    if row is None:
        raise ValueError(f"no run {base_run}")
    method, params_json = row
    params = json.loads(params_json)
    floor = run_floor(params)
    if tau < floor - 1e-9:
        raise ValueError(f"run {base_run} stored pairs down to {floor:.2f} only; "
                         f"it cannot be clustered at {tau:.2f}")
    page_ids = run_page_ids(conn, base_run)
    skipped = {r[0] for r in conn.execute(
        "SELECT r.idx FROM run_pages r JOIN pages p ON p.id = r.page_id "
        "WHERE r.run_id = ? AND p.skip_reason IS NOT NULL", (base_run,))}
    seen: set[int] = set()
    for i, c in enumerate(clusters):
        if not c.members or c.members[0] != c.reference:
            raise ValueError(f"cluster {i}: members must start with the reference page")
        for m in c.members:
            if not 0 <= m < len(page_ids) or m in seen or m in skipped:
                raise ValueError(f"cluster {i}: page {m} is not a free usable page of run {base_run}")
            seen.add(m)
    params.update(tau=float(tau), pair_floor=floor, reclustered_from=base_run)
    run_id = _new_run(conn, method, params, timings)
    conn.execute("UPDATE runs SET page_count = ? WHERE id = ?", (len(page_ids), run_id))
    for table, cols in (("run_pages", "page_id, idx"), ("pairs", "a, b, similarity"),
                        ("run_filters", "kind, site, value"), ("run_skips", "source, offset, reason")):
        conn.execute(f"INSERT INTO {table} (run_id, {cols}) SELECT ?, {cols} FROM {table} "
                     "WHERE run_id = ?", (run_id, base_run))
    usable = (i for i in range(len(page_ids)) if i not in skipped)
    with recorder.paused(conn):
        _insert_clusters(conn, run_id, page_ids, clusters, usable)
        _carry_shares(conn, base_run, run_id)
        _finish(conn, run_id, current)
    return run_id


def _carry_shares(conn: sqlite3.Connection, base_run: int, run_id: int) -> None:
    """Copy boilerplate shares from ``base_run`` where a member kept its reference: a share
    measures what a member has in common with its reference, so only then does it hold."""
    # Done in Python: as one correlated UPDATE, SQLite searched every cluster of the base
    # run for each member (seconds for 10,000 pages).
    measured = {(ref, page): share for ref, page, share in conn.execute(
        "SELECT c.reference_page_id, m.page_id, m.boilerplate_share FROM clusters c "
        "CROSS JOIN cluster_members m ON m.cluster_id = c.id "
        "WHERE c.run_id = ? AND m.boilerplate_share IS NOT NULL", (base_run,))}
    if not measured:
        return
    rows = conn.execute(
        "SELECT c.id, c.reference_page_id, m.page_id FROM clusters c "
        "CROSS JOIN cluster_members m ON m.cluster_id = c.id WHERE c.run_id = ?", (run_id,)).fetchall()
    conn.executemany(
        "UPDATE cluster_members SET boilerplate_share = ? WHERE cluster_id = ? AND page_id = ?",
        [(measured[(ref, page)], cid, page) for cid, ref, page in rows if (ref, page) in measured])


def _save_filters(conn: sqlite3.Connection, run_id: int, filters: RunFilters) -> None:
    rows: list[tuple[int, str, str | None, int]] = [
        (run_id, "common", None, v) for v in sorted(filters.common)]
    rows += [(run_id, "boilerplate", site, v) for site, ids in sorted(filters.boilerplate.items())
             for v in sorted(ids)]
    conn.executemany("INSERT INTO run_filters (run_id, kind, site, value) VALUES (?, ?, ?, ?)", rows)


def run_filters(conn: sqlite3.Connection, run_id: int) -> RunFilters:
    """What the run left out (empty for runs saved before filters were recorded)."""
    common: set[int] = set()
    boiler: dict[str, set[int]] = {}
    for kind, site, value in conn.execute(
        "SELECT kind, site, value FROM run_filters WHERE run_id = ?", (run_id,)
    ):
        if kind == "common":
            common.add(value)
        else:
            boiler.setdefault(site, set()).add(value)
    return RunFilters(frozenset(common), {k: frozenset(v) for k, v in boiler.items()})


def _fill_missing_similarities(conn: sqlite3.Connection, run_id: int) -> None:
    # A cluster given without similarities still shows each member's
    # similarity to the reference when the matcher kept that pair.
    conn.execute(
        """UPDATE cluster_members SET similarity = CASE
              WHEN page_id = (SELECT reference_page_id FROM clusters WHERE id = cluster_id)
              THEN 1.0
              ELSE (SELECT p.similarity FROM pairs p, clusters c
                    WHERE c.id = cluster_members.cluster_id AND p.run_id = c.run_id
                      AND p.a = min(c.reference_page_id, cluster_members.page_id)
                      AND p.b = max(c.reference_page_id, cluster_members.page_id)) END
           WHERE similarity IS NULL
             AND cluster_id IN (SELECT id FROM clusters WHERE run_id = ?)""",
        (run_id,),
    )


def _flag_mixed_tags(conn: sqlite3.Connection, run_id: int) -> None:
    """Flag clusters whose pages do not all carry the same set of tags.

    All members have equal tag sets exactly when every tag present is on
    either none or all of them, so one count per (cluster, tag) decides it.
    """
    conn.execute(
        """UPDATE clusters SET needs_review = 1 WHERE run_id = :r AND id IN (
              SELECT m.cluster_id FROM cluster_members m
              JOIN page_tags pt ON pt.page_id = m.page_id
              JOIN clusters c ON c.id = m.cluster_id AND c.run_id = :r
              GROUP BY m.cluster_id, pt.tag_id
              HAVING count(*) < (SELECT count(*) FROM cluster_members m2
                                 WHERE m2.cluster_id = m.cluster_id))""",
        {"r": run_id},
    )
