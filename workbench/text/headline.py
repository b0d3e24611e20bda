"""The title a coder sees for a page: its headline, not the name of the site it is on.

A page's ``<title>`` is often the site's name ("680News - ALL NEWS RADIO", "Digit Online")
or the headline with the site around it ("Aide to British Premier Arrested - Forbes.com").
The headline is taken, in order, from the first of these that says more than the site's
name: the ``og:title`` / ``twitter:title`` / ``itemprop=headline`` the page declares, the
first ``<h1>``/``<h2>`` of the main content, the page's first ``<h1>``, and only then the
``<title>``, with a leading or trailing segment that is clearly the site's name taken off.

Whether a text is "just the site's name" is judged against what the page says of itself
(``og:site_name``, ``application-name``, ``twitter:site``) and the hosts it came from: a
text that is a domain ("washingtonpost.com"), equals a site name, or is short (at most
:data:`SITE_NAME_MAX_WORDS` words) and contains a host's name ("The Island Packet Online"
on islandpacket.com). Headings must also read like a headline: at least
:data:`MIN_HEADING_WORDS` words (section labels such as "Local News" or "Related" are
shorter) unless the ``<title>`` repeats them, and at most :data:`MAX_HEADING_WORDS` (a
heading wrapping half a page is not one).

Nothing here touches the extracted text: the headline is chosen beside it, so detection
(which reads the text) is the same whichever title is shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.text.tokenize import ascii_words

# Titles are cut to this many characters wherever they are kept (PageInfo.title, title_tag).
TITLE_MAX_CHARS = 500
SITE_NAME_MAX_WORDS = 5
MIN_HEADING_WORDS = 3
MAX_HEADING_WORDS = 40
# A stripped <title> must keep at least this many words, or it is kept whole: "680News -
# ALL NEWS RADIO" is better shown whole than as "ALL NEWS RADIO".
MIN_STRIPPED_WORDS = 3

# How sites join their name to a headline: " | ", " - ", " – ", " — ", " » ", " · ", " > ", "::"
# and ": " ("Las Vegas SUN: Winter No Relief ...").
_SEPARATOR = re.compile(r"(\s+[|\-–—»·>]\s+|\s*::\s*|:\s+)")
_DOMAIN = re.compile(r"(?:https?://)?(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/?", re.I)
# Host labels that name no site.
_GENERIC_LABELS = frozenset({"www", "com", "co", "org", "net", "gov", "edu", "ac", "info", "biz"})
# Shorter host labels ("ap", "in") occur inside ordinary words.
_MIN_LABEL_CHARS = 4


def compact(text: str) -> str:
    """Letters and digits only, lower case: "680News" and "680news.com" meet as "680news"."""
    lowered = text.lower()
    if lowered.isascii():  # the usual case: one C call instead of a Python step a character
        return lowered.encode("ascii").translate(None, _ASCII_NOT_ALNUM).decode("ascii")
    return "".join(ch for ch in lowered if ch.isalnum())


# The ASCII characters that are not str.isalnum(): what compact() deletes from ASCII text.
_ASCII_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


_WORD = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    """The lower-cased words of ``text`` (lower-cased before it is cut into words)."""
    return ascii_words(text) if text.isascii() else _WORD.findall(text.lower())


def _words(text: str) -> int:
    return len(_tokens(text))


_DATE_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec updated posted published last am pm et "
    "gmt".split())
# Words sites name themselves with ("The News On 6", "Independent Online Edition").
_SITE_WORDS = frozenset("news online edition radio latest home homepage headlines website site "
                        "portal tv channel".split())


@dataclass(frozen=True, slots=True)
class Site:
    """What names a site: its declared names and its hosts, compacted."""

    names: frozenset[str] = frozenset()
    labels: frozenset[str] = frozenset()  # host labels long enough to be a name

    @classmethod
    def of(cls, names: Iterable[str], hosts: Iterable[str | None]) -> Site:
        """From declared names (og:site_name, ...) and hosts (``www.example.com``)."""
        compacted = {compact(n) for n in names}
        labels: set[str] = set()
        for host in hosts:
            if not host:
                continue
            host = host.lower().removeprefix("www.")
            compacted.add(compact(host))
            parts = host.split(".")
            if len(parts) > 1:
                compacted.add(compact(".".join(parts[-2:])))
            labels.update(p for p in map(compact, parts[:-1])
                          if len(p) >= _MIN_LABEL_CHARS and p not in _GENERIC_LABELS)
        compacted.discard("")
        return cls(frozenset(compacted), frozenset(labels) | frozenset(
            n for n in compacted if len(n) >= _MIN_LABEL_CHARS))

    def claims(self, text: str) -> bool:
        """Whether ``text`` is (nothing more than) the site's name, or empty."""
        squeezed = compact(text)
        if not squeezed:
            return True
        if _DOMAIN.fullmatch(text.strip()) or squeezed in self.names:
            return True
        return _words(text) <= SITE_NAME_MAX_WORDS and any(label in squeezed for label in self.labels)


def strip_site(title: str, site: Site) -> str:
    """``title`` without leading and trailing segments that are clearly the site's name
    ("Pelosi Bans Smoking - washingtonpost.com"); whole when too little would be left."""
    pieces = _SEPARATOR.split(title)  # segment, separator, segment, ...
    segments = pieces[0::2]
    first, last = 0, len(segments)
    while last - first > 1 and site.claims(segments[last - 1]):
        last -= 1
    while last - first > 1 and site.claims(segments[first]):
        first += 1
    if (first, last) == (0, len(segments)):
        return title
    kept = "".join(pieces[2 * first : 2 * last - 1]).strip()
    return kept if _words(kept) >= MIN_STRIPPED_WORDS else title


@dataclass(frozen=True, slots=True)
class TitleCandidates:
    """What a page offers as its title, in document order within each kind."""

    declared: Sequence[str] = ()  # og:title, twitter:title, itemprop=headline
    headings: Sequence[tuple[str, str]] = ()  # (tag, text) of the h1 and h2 elements
    title_tag: str = ""
    site_names: Sequence[str] = ()  # og:site_name, application-name, twitter:site


def _reads_like_headline(heading: str, site: Site) -> bool:
    """A heading that could be a story's headline: not a section label ("Local News",
    "Related"), not a date ("Friday, January 19th, 2007"), not the site's name."""
    tokens = _tokens(heading)
    if not MIN_HEADING_WORDS <= len(tokens) <= MAX_HEADING_WORDS or site.claims(heading):
        return False
    return not all(t in _DATE_WORDS or t[:1].isdigit() for t in tokens)


def _agrees(heading: str, title_words: set[str]) -> bool:
    """Whether most of the heading's words are in the <title> (which often holds the
    headline between the site's name and section)."""
    words = {t for t in _tokens(heading) if len(t) >= 3}
    return bool(words) and len(words & title_words) * 2 >= len(words)


def _names_the_site(title: str, site: Site) -> bool:
    """Whether a <title> names the site, not a story: the site's name, too short for a
    headline, or a few words of a site's kind ("The News On 6", "Independent Online
    Edition") capitalised throughout, as a name is."""
    rest = strip_site(title, site)
    tokens = _tokens(rest)
    if site.claims(rest) or len(tokens) < MIN_STRIPPED_WORDS + 1:
        return True
    capitalised = not any(word[:1].islower() for word in re.findall(r"[^\W\d_]+", rest))
    return capitalised and len(tokens) <= SITE_NAME_MAX_WORDS and any(t in _SITE_WORDS for t in tokens)


def choose_headline(found: TitleCandidates, hosts: Iterable[str | None] = (),
                    main_texts: frozenset[str] | None = None) -> str:
    """The page's headline ('' when it offers none): the first of
    :func:`headline_candidates`."""
    candidates = headline_candidates(found, hosts, main_texts)
    return candidates[0] if candidates else ""


def headline_candidates(found: TitleCandidates, hosts: Iterable[str | None] = (),
                        main_texts: frozenset[str] | None = None) -> tuple[str, ...]:
    """The page's headline first, then what could stand in for it, best first (each
    once, none empty): the other declared titles, the headings that read like a
    headline, the ``<title>`` without the site's name. A title that many pages of one
    site share is that site's label, not a headline, which only the whole crawl tells
    (workbench.text.site_titles takes the next candidate then).

    ``main_texts`` holds the (whitespace-normalised) texts of the main content's blocks,
    when main content was found: a heading among them is the article's own.

    Headings come in this order: those of the main content, then the page's ``<h1>``s.
    When the ``<title>`` names a story, the first heading that agrees with it wins (on old
    templates the main content's first heading is as often a section label, "AP World
    News", as the headline), else the ``<title>``. When it names the site, the first
    heading that does not repeat it wins.
    """
    site = Site.of(found.site_names, hosts)
    declared = [strip_site(d, site) for d in found.declared if not site.claims(d)]
    usable = [(tag, text) for tag, text in found.headings if _reads_like_headline(text, site)]
    ordered = [text for _, text in usable if main_texts and text in main_texts]
    ordered += [text for tag, text in usable if tag == "h1"]
    title = found.title_tag
    stripped = strip_site(title, site) if title else ""
    title_words = {t for t in _tokens(title) if len(t) >= 3}
    if declared:
        first = declared[0]
    elif title and not _names_the_site(title, site):
        first = next((text for text in ordered if _agrees(text, title_words)), None) or stripped
    else:
        # A heading that repeats a <title> naming the site names the site too.
        first = next((text for text in ordered if not _agrees(text, title_words)), None) or stripped
    return tuple(dict.fromkeys(t for t in (first, *declared, *ordered, stripped) if t))
