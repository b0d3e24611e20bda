"""After a run: publication dates from htmldate for the clustered pages that state none
for machines.

Extraction reads the dates a page states in ``<meta>``, JSON-LD and ``<time>`` on every
page (workbench.text.provenance.published.stated_date, tens of microseconds). htmldate also reads
dates from bylines and other visible clues, but parses the page again with lxml: 1.6 ms a
page (measured on the 942 dev Gold Set pages that state no date for machines; it dated
511 of them), twice what the whole of extraction costs a page. So it runs once a run is saved, only on the
pages of clusters of two or more (the pages whose order in time a coder asks about), and
only on those still without a date; a page it cannot read again is passed by.

It is a stage of its own, run by the window and ``workbench dedup --project`` after a run
is saved, not part of saving: growing a crawl reads only its new files, and this reads
the new clustered ones a second time. A page htmldate found nothing in keeps
``published_from`` "htmldate" with no date, and a later run keeps that (and a date it
found) while the page's text is unchanged (workbench.store.runs.runs), so no page is read
for this twice.
"""

from __future__ import annotations

import os
import sqlite3
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future

from workbench.archive.reread.page import read_raw
from workbench.core.progress import ProgressFn, no_progress
from workbench.store.runs import summary
from workbench.text.decode import decode_bytes
from workbench.text.limit import bounded
from workbench.text.provenance.published import htmldate_published

# (page id, source, offset, capture date) of a page to read; (date or None, page id) read.
Undated = tuple[int, str, int | None, str | None]
Found = tuple[str | None, int]

_UNDATED = """SELECT DISTINCT p.id, p.source, p."offset", p.capture_date
    FROM cluster_summary s JOIN cluster_members m ON m.cluster_id = s.cluster_id
    JOIN pages p ON p.id = m.page_id
    WHERE s.active = 1 AND s.size > 1 AND p.published IS NULL AND p.published_from IS NULL
        AND p.skip_reason IS NULL
    ORDER BY p.id"""


def undated_clustered_pages(conn: sqlite3.Connection) -> list[Undated]:
    """(page id, source, offset, capture date) of the current run's clustered pages
    without a publication date that htmldate has not read yet."""
    return [tuple(r) for r in conn.execute(_UNDATED)]  # type: ignore[misc]


# Below this many pages the pass runs in the calling process: starting the worker pool
# (its fork server warms up by extracting a page) cost 1-2 s here, htmldate about 2 ms a
# page with its read; on the dev Gold Set's 917 pages two workers took 3.0-4.0 s against
# 1.9-2.6 s in the calling process (scratch timing at load 4).
POOL_PAGES = 4000
# Pages per worker task: small enough for progress and an even share, large enough that
# a task's overhead (pickling, a round trip) is small beside 100 x 1.6 ms.
TASK_PAGES = 100


def _date_of(root: str, page: Undated) -> Found | None:
    """(date or None, page id) of one page; None when it cannot be read (it is tried
    again after the next run)."""
    page_id, source, offset, captured = page
    try:
        raw = read_raw(root, source, offset)
        if raw is None:  # moved since the run: it keeps no date
            return None
        markup = decode_bytes(bounded(raw.data, True).data, raw.charset_hint).text
        return htmldate_published(markup, latest=captured), page_id
    except Exception:  # noqa: BLE001 - a page read wrong keeps no date; the run is saved
        return None


def dates_of(root: str, pages: list[Undated]) -> list[Found]:
    """The dates of a task's pages, in a worker process (a module-level function, so a
    pool can send it)."""
    return [found for page in pages if (found := _date_of(root, page)) is not None]


def _found_dates(root: str, pages: list[Undated], progress: ProgressFn,
                 workers: int = 1) -> Iterator[Found]:
    """(date or None, page id) of each page read; a page that cannot be read is left out.
    With ``workers`` > 1 and :data:`POOL_PAGES` pages or more, in the worker pool."""
    if workers <= 1 or len(pages) < POOL_PAGES:
        for n, page in enumerate(pages, start=1):
            progress("Reading publication dates", n, len(pages))
            if (found := _date_of(root, page)) is not None:
                yield found
        return
    from workbench.detect.workers.pool import worker_pool

    pool = worker_pool(workers)
    window: deque[tuple[Future[list[Found]], int]] = deque()
    done = 0

    def take() -> list[Found]:
        nonlocal done
        future, size = window.popleft()
        found = future.result()
        done += size
        progress("Reading publication dates", done, len(pages))
        return found

    try:
        for start in range(0, len(pages), TASK_PAGES):
            task = pages[start:start + TASK_PAGES]
            window.append((pool.submit(dates_of, root, task), len(task)))
            if len(window) >= 3 * workers:  # bounded: memory stays flat
                yield from take()
        while window:
            yield from take()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def date_clustered_pages(project, root: str | None = None, progress: ProgressFn = no_progress,
                         workers: int | None = 1) -> int:
    """Give the current run's clustered pages without a stated date the one htmldate
    finds (``published_from`` "htmldate", also when it finds none); return how many got a
    date. ``root``: the archive folder (the project's by default); ``workers``: processes
    to read them in (large runs; None: one a core)."""
    pages = undated_clustered_pages(project.reader())
    if not pages:
        return 0
    read = list(_found_dates(root or project.archive_root, pages, progress,
                             workers or os.cpu_count() or 1))
    if not read:
        return 0
    dated = [page_id for found, page_id in read if found]
    with project.bookkeeping() as conn:
        conn.executemany("UPDATE pages SET published = ?, published_from = 'htmldate' "
                         "WHERE id = ? AND published IS NULL", read)
        summary.refresh(conn, summary.clusters_of_pages(conn, dated))
    return len(dated)
