"""After a run: publication dates from htmldate for the clustered pages that state none
for machines.

Extraction reads the dates a page states in ``<meta>``, JSON-LD and ``<time>`` on every
page (workbench.text.published.stated_date, tens of microseconds). htmldate also reads
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

import sqlite3
from collections.abc import Iterator

from workbench.archive.reread import read_raw
from workbench.core.progress import ProgressFn, no_progress
from workbench.store.runs import summary
from workbench.text.decode import decode_bytes
from workbench.text.limit import bounded
from workbench.text.published import htmldate_published

_UNDATED = """SELECT DISTINCT p.id, p.source, p."offset", p.capture_date
    FROM cluster_summary s JOIN cluster_members m ON m.cluster_id = s.cluster_id
    JOIN pages p ON p.id = m.page_id
    WHERE s.active = 1 AND s.size > 1 AND p.published IS NULL AND p.published_from IS NULL
        AND p.skip_reason IS NULL
    ORDER BY p.id"""


def undated_clustered_pages(conn: sqlite3.Connection) -> list[tuple[int, str, int | None, str | None]]:
    """(page id, source, offset, capture date) of the current run's clustered pages
    without a publication date that htmldate has not read yet."""
    return [tuple(r) for r in conn.execute(_UNDATED)]  # type: ignore[misc]


def _found_dates(root: str, pages: list[tuple[int, str, int | None, str | None]],
                 progress: ProgressFn) -> Iterator[tuple[str | None, int]]:
    """(date or None, page id) of each page read; a page that cannot be read is left out
    (it is tried again after the next run)."""
    for n, (page_id, source, offset, captured) in enumerate(pages, start=1):
        progress("Reading publication dates", n, len(pages))
        try:
            raw = read_raw(root, source, offset)
            if raw is None:  # moved since the run: it keeps no date
                continue
            markup = decode_bytes(bounded(raw.data, True).data, raw.charset_hint).text
            found = htmldate_published(markup, latest=captured)
        except Exception:  # noqa: BLE001 - a page read wrong keeps no date; the run is saved
            continue
        yield found, page_id


def date_clustered_pages(project, root: str | None = None, progress: ProgressFn = no_progress) -> int:
    """Give the current run's clustered pages without a stated date the one htmldate
    finds (``published_from`` "htmldate", also when it finds none); return how many got a
    date. ``root``: the archive folder (the project's by default)."""
    pages = undated_clustered_pages(project.reader())
    if not pages:
        return 0
    read = list(_found_dates(root or project.archive_root, pages, progress))
    if not read:
        return 0
    dated = [page_id for found, page_id in read if found]
    with project.bookkeeping() as conn:
        conn.executemany("UPDATE pages SET published = ?, published_from = 'htmldate' "
                         "WHERE id = ? AND published IS NULL", read)
        summary.refresh(conn, summary.clusters_of_pages(conn, dated))
    return len(dated)
