"""When a page appeared: the one place that decides which date a figure uses for it."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime
from typing import Literal

WhenFrom = Literal["published", "captured"]

# 2017-03-15, 2017-03-15T12:34:56Z, 2017-03-15 12:34:56+02:00, 20170315123456 (Wayback).
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?")
_DIGITS = re.compile(r"(\d{4})(\d{2})(\d{2})(\d{2})?(\d{2})?(\d{2})?$")


def parse_when(text: str | None) -> datetime | None:
    """A stored date as a naive datetime (its time zone dropped: a figure needs the day,
    not the hour), or None when it names no day.

    Only dates down to the day are used: a bare year or month would put a page at the
    first of the month and make it look first when it may not be."""
    if not text:
        return None
    text = text.strip()
    if len(text) >= 10 and text[4] == "-" and text[7] == "-":
        try:  # the common case, stored ISO dates, in C (2.5 times the regex's speed)
            return datetime.fromisoformat(text).replace(tzinfo=None)
        except ValueError:
            pass
    m = _ISO.match(text) or _DIGITS.match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in m.groups())
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:  # 2017-02-30: no such day
        return None


def page_when(captured: str | None, published: str | None = None
              ) -> tuple[datetime, WhenFrom] | None:
    """The date a figure places a page at and where it came from: the date the page
    says it was published, else when it was captured; None for an undated page.

    Every figure asks this one function, so that once pages carry a stored publication
    date (``published``) the timeline and the dashboard use it without other changes."""
    day = parse_when(published)
    if day is not None:
        return day, "published"
    day = parse_when(captured)
    if day is not None:
        return day, "captured"
    return None



def published_column(conn: sqlite3.Connection) -> str:
    """The SQL for a page's stored publication date: ``p.published``, or ``NULL`` in a
    project file older than schema 14 opened without its upgrade (read-only)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(pages)")}
    return "p.published" if "published" in columns else "NULL"
