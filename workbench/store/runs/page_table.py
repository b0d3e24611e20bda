"""Every page of the current run with its cluster and tags, in export order."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from workbench.store.coding import memos
from workbench.store.runs import summary


@dataclass(frozen=True, slots=True)
class PageRecord:
    page_id: int
    cluster_id: int | None  # None: skipped page
    cluster_size: int | None
    is_reference: bool
    similarity: float | None
    tags: tuple[str, ...]  # names, sorted case-insensitively
    coders: tuple[str, ...]  # who put the tags on, in order of first tag
    tagged_at: str | None  # the latest of the page's tags
    source: str
    offset: int | None
    url: str | None
    capture_date: str | None
    title: str
    skip_reason: str | None
    # The coder marked the page "not this story" of its cluster (its tags are its own).
    excluded: bool = False
    cluster_memo: str = ""  # the cluster's memos joined with " | ", oldest first
    page_memo: str = ""  # the page's own memos, the same way
    # Where url and capture_date came from, and the publication date the page states
    # with where it was read (see workbench.store.runs.queries.PageDetail).
    url_from: str | None = None
    captured_from: str | None = None
    published: str | None = None
    published_from: str | None = None


def page_records(conn: sqlite3.Connection, *, coded_only: bool = False) -> Iterator[PageRecord]:
    """Pages ordered by cluster (largest first, reference first), skipped pages last.

    ``coded_only`` keeps the pages a coder has judged: those carrying a tag, marked "not
    this story", or with a memo of their own or on their cluster. An exception or a memo
    is a decision as much as a tag, so the default export must not leave it out; so is a
    coder's own tag brought in from their copy (``coder_codes``), even on a page of a
    reliability sample that has no final code yet.
    """
    run_id = summary.current_run(conn)
    if run_id is None:
        return
    tags: dict[int, list[tuple[str, str, str]]] = {}
    for page_id, name, coder, when in conn.execute(
        "SELECT pt.page_id, t.name, c.name, pt.tagged_at FROM run_pages r "
        "JOIN page_tags pt ON pt.page_id = r.page_id JOIN tags t ON t.id = pt.tag_id "
        "JOIN coders c ON c.id = pt.coder_id WHERE r.run_id = ? ORDER BY pt.tagged_at",
        (run_id,),
    ):
        tags.setdefault(page_id, []).append((name, coder, when))
    cluster_memos, page_memos = memos.export_texts(conn)
    coder_coded = {r[0] for r in conn.execute("SELECT DISTINCT page_id FROM coder_codes")}
    rows = conn.execute(
        """SELECT p.id, s.cluster_id, s.size, p.id = s.reference_page_id, m.similarity,
                  p.source, p."offset", p.url, p.capture_date, p.title, p.skip_reason,
                  coalesce(m.excluded, 0), p.url_from, p.captured_from, p.published,
                  CASE WHEN p.published IS NULL THEN NULL ELSE p.published_from END
           FROM run_pages r JOIN pages p ON p.id = r.page_id
           LEFT JOIN (cluster_members m JOIN cluster_summary s
                      ON s.cluster_id = m.cluster_id AND s.active = 1)
                ON m.page_id = p.id
           WHERE r.run_id = ?
           ORDER BY s.cluster_id IS NULL, s.size DESC, s.cluster_id,
                    p.id = s.reference_page_id DESC, m.similarity DESC, r.idx""",
        (run_id,),
    )
    for (pid, cid, size, is_ref, sim, source, offset, url, capture, title, skip,
         excluded, url_from, captured_from, published, published_from) in rows:
        page_tags = tags.get(pid, [])
        if coded_only and not (page_tags or excluded or pid in coder_coded or page_memos.get(pid)
                               or (cid is not None and cluster_memos.get(cid))):
            continue
        yield PageRecord(
            pid, cid, size, bool(is_ref), sim,
            tuple(sorted((n for n, _, _ in page_tags), key=str.casefold)),
            tuple(dict.fromkeys(c for _, c, _ in page_tags)),
            max((w for _, _, w in page_tags), default=None),
            source, offset, url, capture, title, skip, bool(excluded),
            cluster_memos.get(cid, "") if cid is not None else "", page_memos.get(pid, ""),
            url_from, captured_from, published, published_from,
        )
