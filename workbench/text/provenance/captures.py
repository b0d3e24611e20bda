"""Pages saved from web-archive replays: strip the replay's inserts, recover provenance.

A page read from the Wayback Machine, Archive-It or a pywb instance carries the
replay's toolbar (real prose about crawls that makes unrelated stories look alike),
scripts and styles injected at the top of ``<head>`` and comments appended at the end.
Its address and links are rewritten as ``<prefix>/<timestamp>[modifier_]/<original>``.

Everything here works on strings: the inserts sit in known places (top of the head,
top of the body, end of the document), so scans are limited to those places and a
page without any trace of a replay costs a handful of substring searches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from html import unescape
from typing import Literal, cast
from urllib.parse import unquote, urljoin, urlsplit

from workbench.text.provenance.replay_links import link_evidence

# Where a page's URL came from: the archive record, a replay address (the record's, the
# replay's own script, a rewritten hint, the path a mirror saved it under), the page's
# canonical link, og:url, <base href>, a browser's "saved from" note, or the replay's
# rewritten links that point to the page itself.
UrlFrom = Literal["archive", "replay", "canonical", "og:url", "base", "saved-from", "links"]
# Where its capture time came from: the archive record, a replay address or script, the
# notes a replay appends ("FILE ARCHIVED ON"), or the most common timestamp of the
# replay's rewritten links.
CapturedFrom = Literal["archive", "replay", "notes", "links"]

# Replays inject right after <head>; the first 32 K characters hold the injection of
# any real page (pages rarely carry more than a few hundred characters before <head>).
_HEAD_CHARS = 32 * 1024
# <link>, <meta>, <base> and the "saved from" comment live in the head; 64 K covers
# heads with large inline styles.
_HINT_CHARS = 64 * 1024
# The notes a replay appends after </html>, or the script old Wayback appended before
# </body>, lie within the last few K.
_TAIL_CHARS = 16 * 1024
# Scripts the toolbar loads right before its <div> when its comment markers are gone.
_BEFORE_TOOLBAR_CHARS = 8 * 1024

# ---------------------------------------------------------------- timestamps

_MONTHS = {name: i for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}


def _iso_time(digits: str) -> str | None:
    """A replay timestamp (4 to 14 digits) as ISO 8601 with the precision it has, or None.

    ``20170315123456`` -> ``2017-03-15T12:34:56Z``, ``20170315`` -> ``2017-03-15``,
    ``2017`` -> ``2017``. A trailing odd digit is half a field and says nothing.
    """
    if not 4 <= len(digits) <= 14 or not digits.isdigit():
        return None
    fields = [int(digits[:4])] + [int(digits[i:i + 2]) for i in range(4, len(digits) - 1, 2)]
    # The web starts in 1990 (web archives in 1996): a number outside this range is no year.
    if not 1990 <= fields[0] <= 2099:
        return None
    year, month, day, hour, minute, second = fields + [1, 1, 0, 0, 0][len(fields) - 1:]
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    parts = [f"{year:04d}", f"-{month:02d}", f"-{day:02d}", f"T{hour:02d}", f":{minute:02d}",
             f":{second:02d}"][:len(fields)]
    return "".join(parts) + ("Z" if len(fields) > 3 else "")


def _more_precise(first: str, other: str) -> bool:
    """Whether ``other`` is the same moment as ``first`` known to more digits."""
    return len(other) > len(first) and other.startswith(first.removesuffix("Z"))


# ---------------------------------------------------------------- replay addresses

# The replay server's own scheme and host, or nothing for a root-relative address.
_REPLAY_SERVER = re.compile(r"(?:(?:https?:)?//(?P<host>[^/?#\s]+))?(?=/)", re.I)
# A path segment holding the capture timestamp and an optional rewrite modifier
# (id_, im_, js_, cs_, if_, fw_, mp_, oe_ ...), followed by the original URL.
_STAMP_SEGMENT = re.compile(r"(?<=/)(\d{4,14})([a-z]{2}_)?/")
_SCHEME = re.compile(r"(https?):/*", re.I)
# A host without a scheme, as Wayback accepts in /web/<ts>/www.example.com/x.
_BARE_HOST = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?P<tld>[a-z]{2,24})(?::\d{1,5})?(?=[/?#]|$)", re.I)
# Endings that look like a top-level domain but are a file name (".../20170315/story.html").
_FILE_ENDINGS = frozenset(
    {"html", "htm", "shtml", "xhtml", "php", "asp", "aspx", "jsp", "cgi", "pl", "js", "css", "json",
     "xml", "txt", "pdf", "jpg", "jpeg", "png", "gif", "svg", "webp", "ico", "mp3", "mp4", "zip"})
# Replay hosts that also accept scheme-less originals.
_REPLAY_HOSTS = frozenset({"web.archive.org", "wayback.archive.org", "wayback.archive-it.org"})


def replay_address(url: str) -> tuple[str, str | None] | None:
    """The original URL and capture time (ISO 8601) of a replay address, else None.

    Handles ``/web/<ts>[mod_]/<original>`` (Wayback), ``/<collection id>/<ts>/…``
    (Archive-It) and ``/<collection>/<ts>[mod_]/…`` (pywb, other OpenWayback
    instances), absolute or root-relative. The capture time is None when the digits
    are not a valid date (the address is still a replay).
    """
    url = url.strip()
    server = _REPLAY_SERVER.match(url)
    if server is None or _STAMP_SEGMENT.search(url) is None:  # most addresses stop here
        return None
    host = (server.group("host") or "").lower()
    path = url[server.end():]
    # Only the replay's own path may hold the timestamp, not its query or fragment.
    own_path_end = min((i for i in (path.find("?"), path.find("#")) if i >= 0), default=len(path))
    for stamp in _STAMP_SEGMENT.finditer(path, 0, own_path_end):
        prefix = path[:stamp.start() - 1]
        lenient = prefix.rsplit("/", 1)[-1].lower() == "web" or host in _REPLAY_HOSTS
        original = _original_url(path[stamp.end():], lenient)
        if original is None:
            continue
        when = _iso_time(stamp.group(1))
        # Elsewhere an address needs a real date to count as a replay, so that a site's
        # own "/<collection>/<number>/http://…" is not read as one by accident.
        if when is None and not lenient:
            continue
        return original, when
    return None


def _original_url(rest: str, lenient: bool) -> str | None:
    """The original URL from what follows the timestamp segment, or None."""
    if rest[:8].lower() in ("http%3a%", "https%3a"):
        rest = unquote(rest)
    scheme = _SCHEME.match(rest)
    if scheme:
        # Rewriters collapse "http://" to "http:/" (or add slashes): put back two.
        body = rest[scheme.end():]
        if not body or not (body[0].isalnum() or body[0] == "["):
            return None
        return f"{scheme.group(1).lower()}://{body}"
    if not lenient:
        return None
    body = rest[2:] if rest.startswith("//") else rest  # protocol-relative: http, as Wayback does
    host = _BARE_HOST.match(body)
    if host is None or host.group("tld").lower() in _FILE_ENDINGS:
        return None
    return "http://" + body


def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced "[" in the host
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


# ---------------------------------------------------------------- a small tag scanner


def _any_case(word: str) -> str:
    # Spelled-out letter classes: re.IGNORECASE would stop the regex engine from
    # skipping ahead to the next "<" quickly (measured: 2.6 times slower).
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


def _tag_pattern(*names: str) -> re.Pattern[str]:
    """Start tags (or end tags, for names with a "/") of ``names``, and comment openings."""
    alternatives = "|".join(_any_case(name) for name in names)
    return re.compile(rf"<(?:(?P<comment>!--)|(?P<name>{alternatives})(?![\w-])(?P<attrs>[^>]*)>)")


_RAW_TEXT_END = {"script": re.compile(rf"</{_any_case('script')}\s*>"),
                 "style": re.compile(rf"</{_any_case('style')}\s*>")}


@dataclass(frozen=True, slots=True)
class _Token:
    name: str  # lower case, "!--" for a comment
    start: int
    end: int
    attrs: str = ""
    text: str = ""  # the content of a comment, script or style


def _scan(markup: str, tags: re.Pattern[str], lo: int, hi: int) -> Iterator[_Token]:
    """The tags matched by ``tags`` in markup[lo:hi], stepping over the content of
    comments, scripts and styles as a browser does (a "<div" in a script is no div).

    Stops at an unclosed comment, script or style: the rest is its content.
    """
    pos = lo
    while tag := tags.search(markup, pos, hi):
        if tag.group("comment"):
            close = markup.find("-->", tag.end(), hi)
            if close < 0:
                return
            yield _Token("!--", tag.start(), close + 3, text=markup[tag.end():close])
            pos = close + 3
            continue
        name = tag.group("name").lower()
        end_tag = _RAW_TEXT_END.get(name)
        if end_tag is None:
            yield _Token(name, tag.start(), tag.end(), tag.group("attrs"))
            pos = tag.end()
            continue
        closing = end_tag.search(markup, tag.end(), hi)
        if closing is None:
            return
        yield _Token(name, tag.start(), closing.end(), tag.group("attrs"), markup[tag.end():closing.start()])
        pos = closing.end()


# ---------------------------------------------------------------- stripping

# Cheap evidence that a page may be a replay, by where each kind of insert lives.
# Each search of a whole 170 KB page costs ~80 us, so only the toolbar's id is looked
# for everywhere: every Wayback and Archive-It toolbar has a "wm-ipp" <div>.
_HEAD_CLUES = ("Wayback", "WB Insert", "__wm", "wombat", "wbinfo", "archive.org", "archive-it",
               "wbhack", "iconochive", "banner-styles")
_PYWB_CLUES = ("WB Insert", "wbinfo")
_NOTES_CLUE = "WAYBACK"  # "JAVASCRIPT APPENDED BY WAYBACK MACHINE", "OPENWAYBACK INSTANCE"

_WAYBACK_MARKERS = (re.compile(r"<!--\s*BEGIN WAYBACK TOOLBAR INSERT\s*-->"),
                    re.compile(r"<!--\s*END WAYBACK TOOLBAR INSERT\s*-->"))
_PYWB_MARKERS = (re.compile(r"<!--\s*WB Insert\s*-->"), re.compile(r"<!--\s*End WB Insert\s*-->"))
_REWRITE_INCLUDE_END = re.compile(r"<!--\s*End Wayback Rewrite JS Include\s*-->", re.I)
_ELEMENTS = _tag_pattern("script", "style", "link")
# Assets of the replay itself: its static folders on archive.org / archive-it.org hosts
# (web.archive.org/_static/, web-static.archive.org, archive.org/includes/) and file
# names no site of its own uses, also as a browser's "Save As" renamed them.
_REPLAY_ASSET = re.compile(
    r"(?:^|//)(?:[\w-]+\.)*archive(?:-it)?\.org(?::\d+)?/(?:_static|static|includes)/"
    r"|(?:^|/)(?:wombat|wombatProxyMode|bundle-playback|banner-styles|iconochive|wbhack"
    r"|ait-client-rewrite|wb_frame_insert|default_banner|disclaim-element|graph-calc)"
    r"\.(?:js|css)(?:\.download)?(?:[?#]|$)",  # Chrome's "Save As" appends .download
    re.I)
# Inline scripts only a replay writes.
_INLINE_CLUES = ("__wm.", "WB_wombat_Init", "_WBWombatInit", "__wbhack", "archive_analytics",
                 "wbinfo.", "sWayBackCGI")
_SRC = re.compile(r"""(?<![\w-])(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)

_WAYBACK_TOOLBAR_ID = "wm-ipp"  # also finds wm-ipp-base and wm-ipp-print
_PYWB_BANNER_IDS = ("_wb_plain_banner", "_wb_frame_top_banner")
_TOOLBAR_DIV = re.compile(
    r"""<div\b[^<>]*?(?<![\w-])id\s*=\s*["']?"""
    r"""(?:wm-ipp(?:-base|-print)?|_wb_plain_banner|_wb_frame_top_banner)(?=["'\s/>])[^<>]*>""",
    re.I)
# A depth count over <div> (the scanner steps over comments, scripts and styles, which
# may hold "<div" in strings); </body> ends the count: the toolbar is not closed.
_DIVS = _tag_pattern("script", "style", "div", "/div", "/body")
_NOTE_CLUES = ("FILE ARCHIVED ON", "playback timings")
_CLOSERS = {"</script": re.compile(r"</script[^>]*>", re.I), "-->": re.compile("-->")}


def strip_replay_inserts(markup: str) -> tuple[str, bool]:
    """The markup without web-archive replay inserts, and whether there were any.

    Removed: the Wayback / Archive-It toolbar (between its comment markers, or its
    ``wm-ipp`` <div> subtree when the markers are gone), the scripts and styles a
    replay injects into the head, pywb's head insert and banner, and the notes Wayback
    appends at the end. A page without inserts comes back as the very same string.
    """
    head = markup[:_HEAD_CHARS]
    in_head = any(clue in head for clue in _HEAD_CLUES)
    has_toolbar = _WAYBACK_TOOLBAR_ID in markup
    has_notes = _NOTES_CLUE in markup[-_TAIL_CHARS:]
    if not (in_head or has_toolbar or has_notes):
        return markup, False
    spans: list[tuple[int, int]] = _marked_blocks(markup, *_WAYBACK_MARKERS)
    pywb = in_head and any(clue in head for clue in _PYWB_CLUES)
    if pywb:
        spans += _marked_blocks(markup, *_PYWB_MARKERS)
    if in_head:
        spans += _rewrite_include(markup)
        spans += _injected_elements(markup, 0, min(len(markup), _HEAD_CHARS))
    # pywb draws its banner from a script, so its <div> is only in pages saved from
    # a browser's DOM, where the head insert is still there to give it away.
    ids = (_WAYBACK_TOOLBAR_ID,) * has_toolbar + _PYWB_BANNER_IDS * pywb
    spans += _toolbar_divs(markup, ids, spans)
    if has_notes:
        spans += _archive_notes(markup)
    if not spans:
        return markup, False
    return _cut(markup, spans), True


def _marked_blocks(markup: str, begin_re: re.Pattern[str], end_re: re.Pattern[str]) -> list[tuple[int, int]]:
    """A toolbar (Wayback, Archive-It) or head insert (pywb) between its comment markers."""
    spans = []
    pos = 0
    while begin := begin_re.search(markup, pos):
        end = end_re.search(markup, begin.end())
        # A block whose end marker is lost: drop the marker; the toolbar <div> and the
        # injected scripts are found on their own.
        stop = end.end() if end else begin.end()
        spans.append((begin.start(), stop))
        pos = stop
    return spans


def _rewrite_include(markup: str) -> list[tuple[int, int]]:
    """Wayback's head injection: from its first injected element to the closing marker.

    Between them sit scripts that prove nothing on their own (a Ruffle config, say),
    so the whole stretch goes, not only the elements recognised one by one.
    """
    spans = []
    for marker in _REWRITE_INCLUDE_END.finditer(markup, 0, _HEAD_CHARS):
        lo = max(0, marker.start() - _HEAD_CHARS)
        first = next(iter(_injected_elements(markup, lo, marker.start())), None)
        spans.append((first[0] if first else marker.start(), marker.end()))
    return spans


def _injected_elements(markup: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Spans of <script> and <link> elements in markup[lo:hi] that the replay injected."""
    spans = []
    for element in _scan(markup, _ELEMENTS, lo, hi):
        if element.name not in ("script", "link"):
            continue
        source = _SRC.search(element.attrs)
        if source:
            address = next(g for g in source.groups() if g is not None)
            injected = bool(_REPLAY_ASSET.search(address)) and replay_address(address) is None
        else:
            injected = any(clue in element.text for clue in _INLINE_CLUES)
        if injected:
            spans.append((element.start, element.end))
    return spans


def _toolbar_divs(markup: str, ids: tuple[str, ...], known: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Toolbar <div> subtrees (Wayback, Archive-It, pywb) not inside a span already found.

    This is what is left when a browser's "Save As" dropped the comment markers, so
    the subtree is found by counting <div> depth, as the HTML parser would nest it.
    """
    spans: list[tuple[int, int]] = []
    for needle in ids:
        pos = 0
        while (hit := markup.find(needle, pos)) != -1:
            pos = hit + len(needle)
            if _inside(hit, known) or _inside(hit, spans):
                continue
            tag_start = markup.rfind("<", 0, hit)
            tag = _TOOLBAR_DIV.match(markup, tag_start) if tag_start >= 0 else None
            if tag is None:
                continue  # the name in a style sheet, a script or text, not a toolbar <div>
            end = _div_end(markup, tag.end())
            if end is None:
                continue  # unbalanced: better keep the banner than cut the page
            spans.append((tag_start, end))
            lo = max(0, tag_start - _BEFORE_TOOLBAR_CHARS)
            spans += _injected_elements(markup, lo, tag_start)
            pos = end
    return spans


def _div_end(markup: str, pos: int) -> int | None:
    """Where the <div> opened just before ``pos`` closes, or None if it never does."""
    depth = 1
    for token in _scan(markup, _DIVS, pos, len(markup)):
        if token.name == "/body":
            return None
        if token.name in ("div", "/div"):
            depth += 1 if token.name == "div" else -1
            if depth == 0:
                return token.end
    return None


def _archive_notes(markup: str) -> list[tuple[int, int]]:
    """The comments (or, before 2013, the script) a replay appends at the end."""
    lo = max(0, len(markup) - _TAIL_CHARS)
    tail = markup[lo:]
    spans = []
    for clue in _NOTE_CLUES:
        pos = 0
        while (hit := tail.find(clue, pos)) != -1:
            span = _note_span(tail, hit)
            if span is None:
                pos = hit + len(clue)
                continue  # the words in the page's own text or comments: not ours
            spans.append((lo + span[0], lo + span[1]))
            pos = span[1]
    return spans


def _note_span(tail: str, hit: int) -> tuple[int, int] | None:
    """The replay's note around ``hit``: a comment that opens with it, or (Wayback
    before 2013) the script that says it was appended by the Wayback Machine."""
    script = _enclosing(tail, hit, "<script", "</script")
    if script:
        return script if "APPENDED BY WAYBACK" in tail[script[0]:script[1]] else None
    comment = _enclosing(tail, hit, "<!--", "-->")
    if comment and not tail[comment[0] + 4:hit].strip():
        return comment
    return None


def _enclosing(text: str, pos: int, opener: str, closer: str) -> tuple[int, int] | None:
    """The span of the ``opener … closer`` construct containing ``pos``, if any."""
    start = _rfind_ci(text, opener, pos)
    if start == -1 or _rfind_ci(text, closer, pos) > start:
        return None
    match = _CLOSERS[closer].search(text, pos)
    return (start, match.end()) if match else None


def _rfind_ci(text: str, needle: str, end: int) -> int:
    """Last position of an ASCII needle in text[:end], ignoring case (tags of 2006 shout)."""
    return max(text.rfind(needle, 0, end), text.rfind(needle.upper(), 0, end))


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in spans)


def _cut(markup: str, spans: list[tuple[int, int]]) -> str:
    """The markup without the (possibly overlapping) spans."""
    pieces = []
    kept_from = 0
    for start, end in sorted(spans):
        pieces.append(markup[kept_from:start])  # empty where spans overlap
        kept_from = max(kept_from, end)
    pieces.append(markup[kept_from:])
    return "".join(pieces)


# ---------------------------------------------------------------- what the page says


@dataclass(frozen=True, slots=True)
class UrlHints:
    """What a page says about its own address (raw values, entity references decoded).

    ``replay_url`` and ``replay_time`` come from the script a replay injects
    (``__wm.wombat(...)``, pywb's ``wbinfo``), which names the capture it serves.
    """

    canonical: str | None = None
    og_url: str | None = None
    base: str | None = None
    saved_from: str | None = None
    replay_url: str | None = None
    replay_time: str | None = None


# One pass over the head: comments (for "saved from"), scripts (read for a replay's own
# declaration), styles (skipped), the three tags we want; it stops at <body>.
_HEAD_TAGS = _tag_pattern("script", "style", "link", "meta", "base", "body")
_HINT_WORDS = {"link": "canonical", "meta": "og:url", "base": "href"}
_ATTR = re.compile(r"""([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_SAVED_FROM = re.compile(r"^\s*saved from url=\(\s*(\d+)\s*\)", re.I)
# Browsers write "saved from" before <html>; the same comment further down comes from a
# fragment the saved page had included (a menu, an ad) and names that fragment.
_PROLOGUE = re.compile(r"\ufeff?\s*(?:(?:<!DOCTYPE[^>]*>|<\?xml[^>]*>|<!--.*?-->)\s*)*", re.I | re.S)
_URL_WHITESPACE = re.compile(r"[\t\n\r]")
_WOMBAT_CALL = re.compile(r"""__wm\.wombat\(\s*(["'])(.*?)\1\s*,\s*(["'])(\d{4,14})\3""")
_WBINFO = re.compile(r"""wbinfo\.(url|timestamp)\s*=\s*(["'])(.*?)\2""")
_WOMBAT_INIT = re.compile(r"""WB_wombat_Init\(\s*(["'])[^"']*\1\s*,\s*(["'])(\d{4,14})\2""")


def url_hints(markup: str) -> UrlHints:
    """Canonical link, og:url, <base href>, "saved from url" comment and replay script."""
    found: dict[str, str] = {}
    # The prologue pattern matches the empty string too: there is always a match.
    prologue_end = cast(re.Match[str], _PROLOGUE.match(markup, 0, _HINT_CHARS)).end()
    for token in _scan(markup, _HEAD_TAGS, 0, _HINT_CHARS):
        if token.name == "body":
            break
        if token.name == "!--":
            if token.start < prologue_end:
                _read_comment(token.text, found)
        elif token.name == "script":
            _read_replay_script(token.text, found)
        elif token.name in _HINT_WORDS and _HINT_WORDS[token.name] in token.attrs.lower():
            # Only tags that can be a hint get their attributes parsed: heads have
            # dozens of <meta> and <link> tags, and parsing is the costly part.
            _read_tag(token.name, _attributes(token.attrs), found)
    return UrlHints(**found)


def _attributes(text: str) -> dict[str, str]:
    """Attribute names (lower case) to values, first one of a name wins as in HTML."""
    attrs: dict[str, str] = {}
    for m in _ATTR.finditer(text):
        value = next((g for g in m.group(2, 3, 4) if g is not None), "")
        attrs.setdefault(m.group(1).lower(), value)
    return attrs


def _clean_url(value: str) -> str:
    # Browsers drop tabs and newlines inside URL attributes and trim the ends.
    return _URL_WHITESPACE.sub("", unescape(value)).strip()


def _read_tag(tag: str, attrs: dict[str, str], found: dict[str, str]) -> None:
    if tag == "link" and "href" in attrs and "canonical" in attrs.get("rel", "").lower().split():
        found.setdefault("canonical", _clean_url(attrs["href"]))
    elif tag == "meta" and "content" in attrs and "og:url" in (
            attrs.get("property", "").strip().lower(), attrs.get("name", "").strip().lower()):
        found.setdefault("og_url", _clean_url(attrs["content"]))
    elif tag == "base" and "href" in attrs:
        found.setdefault("base", _clean_url(attrs["href"]))


def _read_comment(text: str, found: dict[str, str]) -> None:
    """The "saved from url=(length)url" comment browsers write into saved pages."""
    if "saved_from" in found:
        return
    m = _SAVED_FROM.match(text)
    if m is None:
        return
    length, rest = int(m.group(1)), text[m.end():].lstrip()
    # The number is the URL's length: it tells where the URL ends even if the URL has a
    # space in it (old Internet Explorer wrote addresses as typed). Without a usable
    # number, the URL ends at the first space.
    url = rest[:length] if 0 < length <= len(rest.rstrip()) else (rest.split() or [""])[0]
    if url.strip():
        found["saved_from"] = url.strip()


def _read_replay_script(text: str, found: dict[str, str]) -> None:
    if "replay_time" in found or not ("wombat" in text or "wbinfo" in text):
        return
    text = text.replace("\\/", "/")  # JSON-escaped slashes in pywb's wbinfo
    if m := _WOMBAT_CALL.search(text):
        url, stamp = m.group(2), m.group(4)
    else:
        info = {m.group(1): m.group(3) for m in _WBINFO.finditer(text)}
        url, stamp = info.get("url"), info.get("timestamp")
        if stamp is None and (init := _WOMBAT_INIT.search(text)):
            stamp = init.group(3)  # old Wayback names the time and the host only
    when = _iso_time(stamp) if stamp else None
    if url and _is_web_url(url):
        found["replay_url"] = url
    if when:
        found["replay_time"] = when


# ---------------------------------------------------------------- provenance


@dataclass(frozen=True, slots=True)
class Provenance:
    """A page's original URL and capture date, where each came from, and whether the
    page is a web-archive replay."""

    url: str | None
    capture_date: str | None
    url_from: UrlFrom | None
    replay: bool
    captured_from: CapturedFrom | None = None


_ARCHIVED_ON = re.compile(
    r"FILE ARCHIVED ON\s+(?:(?P<digits>\d{14})"
    r"|(?P<h>\d{1,2}):(?P<m>\d{2}):(?P<s>\d{2})\s+(?P<mon>[A-Za-z]{3})\s+(?P<d>\d{1,2}),?\s+(?P<y>\d{4}))")
_HINT_ORDER: tuple[tuple[UrlFrom, str], ...] = (
    ("canonical", "canonical"), ("og:url", "og_url"), ("saved-from", "saved_from"), ("base", "base"))
# A folder's index page names the folder (a section), not an article.
_INDEX_NAME = re.compile(r"(?:index|default|home|main)\.\w+", re.I)
# A last folder that still names an article: a slug of three or more words
# ("/2017/03/15/choir-festival-returns/") or a long number (an article id).
_ARTICLE_FOLDER = re.compile(r"(?:[^/_-]+[_-]){2,}[^/_-]+|.*\d{5}", re.I)


@dataclass(frozen=True, slots=True)
class _Hint:
    kind: UrlFrom
    url: str
    when: str | None
    replay: bool


def recover_provenance(url: str | None, capture_date: str | None, markup: str, *,
                       inserts: bool | None = None, saved_as: str | None = None) -> Provenance:
    """The page's original URL and capture date from its record, address and markup.

    ``markup`` is the page as read (before ``strip_replay_inserts``: the notes a replay
    appends hold the capture time). ``inserts`` is what ``strip_replay_inserts``
    returned, if the caller has it, to spare a second scan. ``saved_as``: the path of
    the file the page was read from (a mirror may have saved it under its replay
    address; its name finds the page's own link among the replay's rewritten links).

    When nothing better says it, the rewritten links of a replay give the capture time
    (their most common timestamp) and the URL (the link to the page's own name). A
    ``<base href>`` that names a site's root or a section is never taken for the page's
    URL: several stories of a site share it.
    """
    hints = url_hints(markup)
    resolved = _resolve_hints(hints)
    stamps: list[tuple[str | None, CapturedFrom]] = []  # capture times from the replay, best first
    chosen: tuple[str, UrlFrom] | None = None
    record_is_replay = False
    if url:
        decoded = replay_address(url)
        if decoded:
            chosen, record_is_replay = (decoded[0], "replay"), True
            stamps.append((decoded[1], "replay"))
        else:
            chosen = (url, "archive")
    if chosen is None:
        chosen, stamp = _url_from_hints(hints, resolved)
        stamps.append((stamp, "replay"))
    saved_replay = replay_address("/" + saved_as.lstrip("/")) if saved_as and chosen is None else None
    if saved_replay:
        chosen = (saved_replay[0], "replay")
        stamps.append((saved_replay[1], "replay"))
    if inserts is None:
        inserts = strip_replay_inserts(markup)[1]
    replay = (inserts or record_is_replay or saved_replay is not None or any(h.replay for h in resolved)
              or hints.replay_url is not None or hints.replay_time is not None)
    date = capture_date
    date_from: CapturedFrom | None = "archive" if capture_date else None
    if replay:
        stamps.append((hints.replay_time, "replay"))
        stamps += [(h.when, "replay") for h in resolved if h.replay]
        # The record's date, if any, is when the replay was fetched, not the capture.
        best = _best_time(stamps, markup)
        if best:
            date, date_from = best
    if chosen is None or date is None:
        links = link_evidence(markup, saved_as)
        if links.stamp:
            replay = True
            if chosen is None and links.url:
                chosen = (links.url, "links")
            when = _iso_time(links.stamp)
            if date is None and when:
                date, date_from = when, "links"
    url_out, url_from = chosen if chosen else (None, None)
    return Provenance(url=url_out, capture_date=date, url_from=url_from, replay=replay,
                      captured_from=date_from if date else None)


def names_a_page(url: str) -> bool:
    """Whether ``url`` can be one page's address: not a site's root ("http://a.example/")
    nor a section ("http://a.example/politics/", ".../politics/index.html"), which
    a ``<base href>`` often names for every page of a site."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.query:
        return True  # "/?p=123", "/story.php?id=9"
    path = parts.path
    if path in ("", "/"):
        return False
    last = path.rsplit("/", 1)[-1]
    if _INDEX_NAME.fullmatch(last):
        return False
    if last:
        return True
    folder = path.rstrip("/").rsplit("/", 1)[-1]
    return _ARTICLE_FOLDER.fullmatch(folder) is not None


def _resolve_hints(hints: UrlHints) -> list[_Hint]:
    """The hints that name an http(s) page, in the order they are trusted.

    Replay addresses are decoded; a relative hint is resolved against the first
    absolute one (``<base>`` first, as a browser would). A hint with another scheme
    (``about:internet``, ``file:``) stays as it is when joined, and is dropped.
    """
    raw = [(kind, getattr(hints, field)) for kind, field in _HINT_ORDER]
    done: dict[str, _Hint] = {}
    replays: set[str] = set()
    for kind, value in raw:
        if not value:
            continue
        decoded = replay_address(value)
        if decoded:
            replays.add(kind)  # a replay address is never a relative one to resolve
            if _is_web_url(decoded[0]):
                done[kind] = _Hint(kind, decoded[0], decoded[1], True)
        elif _is_web_url(value):
            done[kind] = _Hint(kind, value, None, False)
    anchor = next((done[k].url for k in ("base", "canonical", "og:url", "saved-from") if k in done), None)
    for kind, value in raw:
        if value and kind not in done and kind not in replays and anchor:
            joined = _join(anchor, value)
            if joined and _is_web_url(joined):
                done[kind] = _Hint(kind, joined, None, False)
    return [done[kind] for kind, _ in _HINT_ORDER if kind in done]


def _join(anchor: str, value: str) -> str | None:
    try:
        return urljoin(anchor, value)
    except ValueError:  # e.g. "http://[::1/x": no address at all
        return None


def _url_from_hints(hints: UrlHints, resolved: list[_Hint]) -> tuple[tuple[str, UrlFrom] | None, str | None]:
    """The best URL the page names for itself, and the capture time that came with it.

    A ``<base href>`` naming a root or section gives no URL (a rewritten one still
    gives its capture time)."""
    # The replay's own script names exactly the capture it serves; a rewritten
    # canonical names the site's preferred address of it.
    if hints.replay_url:
        return (hints.replay_url, "replay"), hints.replay_time
    usable = [h for h in resolved if h.kind != "base" or names_a_page(h.url)]
    when = next((h.when for h in resolved if h.replay), None)
    for hint in usable:
        if hint.replay:
            return (hint.url, "replay"), hint.when
    if usable:
        return (usable[0].url, usable[0].kind), when
    return None, when


def _best_time(stamps: list[tuple[str | None, CapturedFrom]], markup: str
               ) -> tuple[str, CapturedFrom] | None:
    """The first known capture time, refined by a later one that agrees to more digits,
    and where it came from."""
    known = [(s, kind) for s, kind in stamps if s]
    if not known or len(known[0][0]) < 20:  # 2017-03-15T12:34:56Z is 20 characters
        archived = _archived_on(markup)
        if archived:
            known.append((archived, "notes"))
    if not known:
        return None
    best = known[0]
    for other in known[1:]:
        if _more_precise(best[0], other[0]):
            best = other
    return best


def _archived_on(markup: str) -> str | None:
    """The capture time in Wayback's "FILE ARCHIVED ON 12:34:56 Mar 15, 2017" note (UTC)."""
    m = _ARCHIVED_ON.search(markup, max(0, len(markup) - _TAIL_CHARS))
    if m is None:
        return None
    if m.group("digits"):
        return _iso_time(m.group("digits"))
    month = _MONTHS.get(m.group("mon").lower())
    if month is None:
        return None
    day, hour = int(m.group("d")), int(m.group("h"))
    return _iso_time(f"{m.group('y')}{month:02d}{day:02d}{hour:02d}{m.group('m')}{m.group('s')}")
