"""The date a page says it was published, kept apart from when an archive captured it.

Two ways, by cost (measured on 300 dev Gold Set pages, one core):

* :func:`stated_date`, run on every page inside extraction: the machine-readable
  statements only — ``<meta>`` tags (``article:published_time``, ``datePublished``,
  ``pubdate``, Dublin Core ...), JSON-LD ``datePublished`` and ``<time datetime>`` —
  read with plain string scans of the markup extraction already holds (tens of
  microseconds a page).
* :func:`htmldate_published`: htmldate, the maintained library, which also reads the
  dates of bylines and date elements in the visible text ("Posted April 8, 2005" in a
  ``class="byline"``), the URL and many more clues. It parses the page again with lxml:
  1.6 ms a page (on the 942 dev Gold Set pages that state no date for machines; it dates
  511 of them) against 0.85 ms for the whole of extraction, so it runs only on pages the
  cheap pass left without a date, after a run, and is imported only then (dateparser
  takes 0.5 s). Its extensive search (any date-like text anywhere) dated all 942 but
  cost 6.8 ms a page and took more stray dates (copyright lines, other stories): 12 %
  of its dates lay outside the weeks the Gold Set was collected, against 6.5 %.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Literal

from workbench.text.provenance.captures import _attributes, _scan, _tag_pattern

# Where a publication date came from.
PublishedFrom = Literal["meta", "json-ld", "time", "htmldate"]

# <meta> names (name=, property=, itemprop=, lower case) that state a publication date,
# best first: a statement of the first publication beats a "date" of unknown meaning.
_META_NAMES = (
    "article:published_time", "og:published_time", "datepublished", "originalpublicationdate",
    "publishdate", "publish-date", "publish_date", "pubdate", "publicationdate", "publication_date",
    "dc.date.issued", "dcterms.issued", "dcterms.created", "dc.date.created", "sailthru.date",
    "parsely-pub-date", "article.published", "article_date_original", "rnews:datepublished",
    "displaydate", "dc.date", "dcterms.date", "date", "createdate", "creation_date",
)
_META_RANK = {name: rank for rank, name in enumerate(_META_NAMES)}
# A word each of those names holds (a tag without one is not parsed).
_DATE_WORDS = ("date", "publish", "issued", "created")
_HEAD_TAGS = _tag_pattern("script", "style", "meta", "body")
_HEAD_CHARS = 64 * 1024
_JSON_LD = re.compile(r"""application/ld\+json""", re.I)
_JSON_PUBLISHED = re.compile(r'"datePublished"\s*:\s*"([^"]{4,40})"')
_TIME_TAG = _tag_pattern("time")
_BODY_CLUE = re.compile("date(?:Published|time)")
# Machine-readable dates: 2005-04-08(T...), 2005/04/08, 2005.04.08, 20050408.
_ISO = re.compile(r"\s*(\d{4})[-/.]?(\d{2})[-/.]?(\d{2})(?!\d)")
_MONTHS = {name: i for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
# "Jan 09, 2007", "9 January 2007": common in old <meta> tags.
_MONTH_DAY_YEAR = re.compile(r"\s*([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})\b")
_DAY_MONTH_YEAR = re.compile(r"\s*(\d{1,2})\.?\s+([A-Za-z]{3})[a-z]*\.?,?\s+(\d{4})\b")


def machine_date(value: str) -> str | None:
    """``value`` as YYYY-MM-DD when it is a date a machine wrote, else None."""
    if m := _ISO.match(value):
        return _valid(m.group(1), m.group(2), m.group(3))
    if m := _MONTH_DAY_YEAR.match(value):
        month = _MONTHS.get(m.group(1).lower())
        return _valid(m.group(3), str(month), m.group(2)) if month else None
    if m := _DAY_MONTH_YEAR.match(value):
        month = _MONTHS.get(m.group(2).lower())
        return _valid(m.group(3), str(month), m.group(1)) if month else None
    return None


def _valid(year: str, month: str, day: str) -> str | None:
    try:
        found = date(int(year), int(month), int(day))
    except ValueError:
        return None
    # The web starts in 1990; a later year is a template's placeholder.
    return found.isoformat() if 1990 <= found.year <= 2099 else None


def stated_date(markup: str) -> tuple[str, PublishedFrom] | None:
    """The publication date the page's markup states for machines, and where."""
    best: tuple[int, str] | None = None
    json_ld = False
    for token in _scan(markup, _HEAD_TAGS, 0, min(len(markup), _HEAD_CHARS)):
        if token.name == "body":
            break
        if token.name == "script":
            json_ld = json_ld or bool(_JSON_LD.search(token.attrs))
            continue
        if token.name != "meta":
            continue
        # Parsing a tag's attributes is the costly part: only tags that can name a date.
        low = token.attrs.lower()
        if "content" not in low or not any(word in low for word in _DATE_WORDS):
            continue
        attrs = _attributes(token.attrs)
        for key in ("property", "name", "itemprop"):
            rank = _META_RANK.get(attrs.get(key, "").strip().lower())
            if rank is not None and (best is None or rank < best[0]):
                found = machine_date(attrs.get("content", ""))
                if found:
                    best = (rank, found)
    if best is not None:
        return best[1], "meta"
    # One search for what JSON-LD and <time> need, "datePublished" or "datetime" (a
    # search for "<time" would be slow: every "<td" and "<tr" starts like it; <time> came
    # with HTML5, so no page of the era of upper-case tags has one). Most pages have
    # neither and stop here.
    clue = _BODY_CLUE.search(markup)
    if clue is None:
        return None
    if json_ld or clue.group() == "datePublished" or "datePublished" in markup[clue.end():]:
        found = _json_ld_date(markup)
        if found:
            return found, "json-ld"
    if "datetime" in markup:
        found = _time_date(markup)
        if found:
            return found, "time"
    return None


def _json_ld_date(markup: str) -> str | None:
    """The first ``datePublished`` of the page's JSON-LD (or microdata-like JSON)."""
    for m in _JSON_PUBLISHED.finditer(markup):
        try:
            value = json.loads(f'"{m.group(1)}"')
        except ValueError:
            continue
        found = machine_date(value)
        if found:
            return found
    return None


def _time_date(markup: str) -> str | None:
    """The date of the article's ``<time datetime>``: the one marked ``pubdate`` or
    ``itemprop=datePublished`` if any, else the first."""
    first = None
    for token in _scan(markup, _TIME_TAG, 0, len(markup)):
        if token.name != "time":
            continue
        attrs = _attributes(token.attrs)
        found = machine_date(attrs.get("datetime", ""))
        if not found:
            continue
        if "pubdate" in attrs or attrs.get("itemprop", "").lower() == "datepublished":
            return found
        first = first or found
    return first


def htmldate_published(markup: str, *, latest: str | None = None) -> str | None:
    """The publication date htmldate finds (bylines and date elements of the visible
    text, the URL and the other clues it knows, without its extensive search), as
    YYYY-MM-DD, not later than ``latest`` (a capture date), else None."""
    from htmldate import find_date  # dateparser is a slow import: only when needed

    limit = latest[:10] if latest and machine_date(latest) else None
    try:
        found = find_date(markup, original_date=True, extensive_search=False, max_date=limit)
    except (ValueError, TypeError):  # a page htmldate cannot parse has no date to give
        return None
    return machine_date(found) if found else None
