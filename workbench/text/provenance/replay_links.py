"""A web-archive capture's time and address, read from the links the replay rewrote.

A page served by the Wayback Machine (or Archive-It, pywb) has every link and asset
rewritten to ``<prefix>/<timestamp>[modifier_]/<original>``, all with the timestamp of
the capture being served. A page saved from a replay without the replay's own script,
notes or address (a "Save As" copy whose banner was cut, a wget mirror) still carries
that timestamp in hundreds of links: the most common one is the capture time. Its own
address is among those links too when it links to itself (a "print", "comments" or
section link): the link whose original path ends in the name the page was saved under.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from html import unescape
from pathlib import PurePosixPath
from urllib.parse import urlsplit

# The timestamp segment right before an original "http(s)://": 14 digits (a whole
# capture time), an optional rewrite modifier (im_, js_, cs_, if_ ...).
_STAMP_BEFORE = re.compile(r"/(\d{14})([a-z]{2}_)?/\Z")
# The longest "/<14 digits><modifier>/" looked back at from an "/http" hit.
_LOOK_BACK = 20
# Where a link's address ends inside markup (an attribute's quote, a CSS url's paren).
_ADDRESS_END = re.compile(r"""["'\s<>)]""")
# Evidence enough to call a page a replay: the most common timestamp on this many links,
# on at least half of the rewritten links and a third of all the page's links and assets
# (a replay rewrites them all but "#top", "mailto:" and scripts' own addresses). An
# article that cites archived pages is no replay, even three of one capture (a 2017
# chaos-2017 story cites three EPA pages archived at 20170413052024, among 61 links).
MIN_LINKS = 3
MIN_SHARE = 0.5
MIN_SHARE_OF_ALL = 1 / 3
_ANY_LINK = re.compile(r"""(?<![\w-])(?:href|src)\s*=""", re.I)
# Names a page is saved under that say nothing of which page it is.
_GENERIC_NAMES = frozenset({"", "index", "default", "home", "main", "start", "page", "article", "story"})
_PAGE_SUFFIXES = (".html", ".htm", ".shtml", ".xhtml")


@dataclass(frozen=True, slots=True)
class LinkEvidence:
    """What the rewritten links say: the capture's timestamp (14 digits) and the page's
    own original URL, each None when the links do not say."""

    stamp: str | None
    url: str | None


def rewritten_links(markup: str) -> list[tuple[str, str | None, str]]:
    """(timestamp digits, modifier or None, original URL) of each rewritten address in
    the markup, in order.

    Found from each "/http" (rare outside replays: a site's own links begin with
    "http", not "/http"), looking back for the timestamp segment.
    """
    found = []
    pos = 0
    while (hit := markup.find("/http", pos)) != -1:
        pos = hit + 5
        stamp = _STAMP_BEFORE.search(markup, max(0, hit - _LOOK_BACK), hit + 1)
        if stamp is None:
            continue
        end = _ADDRESS_END.search(markup, hit + 1)
        original = _original(markup[hit + 1:end.start() if end else len(markup)])
        if original:
            found.append((stamp.group(1), stamp.group(2), original))
    return found


def _original(address: str) -> str | None:
    """``http:/host/x`` (rewriters collapse the slashes) as ``http://host/x``."""
    address = unescape(address)
    scheme, sep, rest = address.partition(":")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    rest = rest.lstrip("/")
    if not rest or not rest[0].isalnum():
        return None
    return f"{scheme.lower()}://{rest}"


def link_evidence(markup: str, saved_as: str | None = None) -> LinkEvidence:
    """The capture time and own URL the page's rewritten links give.

    ``saved_as``: the path the page was read from (a saved file), whose last name is
    matched against the links' original paths; without it no URL is guessed.
    """
    if "/http" not in markup:  # almost every page that is no replay stops here
        return LinkEvidence(None, None)
    links = rewritten_links(markup)
    if not links:
        return LinkEvidence(None, None)
    stamps = Counter(stamp for stamp, _, _ in links)
    stamp, count = stamps.most_common(1)[0]
    if count < MIN_LINKS or count < MIN_SHARE * len(links):
        return LinkEvidence(None, None)
    # Counted only now: few pages that are no replay get this far.
    if count < MIN_SHARE_OF_ALL * len(_ANY_LINK.findall(markup)):
        return LinkEvidence(None, None)
    pages = [original for s, modifier, original in links if s == stamp and modifier is None]
    return LinkEvidence(stamp, own_link(pages, saved_as))


def own_link(originals: list[str], saved_as: str | None) -> str | None:
    """The most common of ``originals`` whose path ends in the name the page was saved
    under (browsers add ".html" to a name without one), or None.

    A name like "index.html" says nothing: every site links to its own.
    """
    name = _page_name(saved_as) if saved_as else ""
    if not name or name.casefold() in _GENERIC_NAMES:
        return None
    matches: Counter[str] = Counter()
    for original in originals:
        try:
            parts = urlsplit(original)
        except ValueError:
            continue
        last = parts.path.rstrip("/").rsplit("/", 1)[-1]
        if last and _page_name(last).casefold() == name.casefold():
            matches[parts._replace(fragment="").geturl()] += 1
    return matches.most_common(1)[0][0] if matches else None


def _page_name(path: str) -> str:
    """The file name without the suffix a saved page gets ("story.html" -> "story")."""
    name = PurePosixPath(path.replace("\\", "/")).name
    lowered = name.lower()
    for suffix in _PAGE_SUFFIXES:
        if lowered.endswith(suffix):
            return name[:-len(suffix)]
    return name
