"""How a page's dates read for a coder: its publication and capture dates side by side,
each with where it came from, and a cluster's span."""

from __future__ import annotations

# What each source is called where space is short (the page header).
_SOURCE_WORDS = {"archive": "record", "replay": "replay address", "notes": "archive note",
                 "links": "links", "meta": "meta", "json-ld": "JSON-LD", "time": "<time>",
                 "htmldate": "page text"}


def short_time(value: str | None) -> str:
    """An ISO 8601 date or time as "2005-04-09 13:06" (a date alone stays a date)."""
    if not value:
        return ""
    day, _, rest = value.partition("T")
    return f"{day} {rest[:5]}" if len(rest) >= 5 else day


def dates_line(detail: object) -> str:
    """ "published 2005-04-08 (meta) · captured 2005-04-09 13:06 (links)" for a page
    record with ``published``/``published_from`` and ``capture_date``/``captured_from``
    (either left out when unknown; '' when neither is)."""
    parts = []
    published = getattr(detail, "published", None)
    if published:
        parts.append(f"published {short_time(published)}" + _source(getattr(detail, "published_from", None)))
    captured = getattr(detail, "capture_date", None)
    if captured:
        parts.append(f"captured {short_time(captured)}" + _source(getattr(detail, "captured_from", None)))
    return " · ".join(parts)


def _source(kind: str | None) -> str:
    return f" ({_SOURCE_WORDS.get(kind, kind)})" if kind else ""


def span_text(days: float | None) -> str:
    """A span of days as a coder reads it: "3 h", "2.5 d", "41 d" ('' when unknown)."""
    if days is None:
        return ""
    if days < 1:
        return f"{round(days * 24)} h"
    return f"{days:.1f} d" if days < 10 else f"{round(days)} d"
