"""HTML to visible text, split into layout blocks, with character offsets.

The extracted text is what the GUI shows and highlights, so every token span the
detector reports must index into exactly this string. Blocks (paragraphs, cells,
list items, headings...) are kept so that spot chains need not spill from one
layout block into the next and navigation-like blocks can be filtered out.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

import lxml.etree as etree
import numpy as np

from workbench.text.captures import Provenance
from workbench.text.chunks import BREAK, LINK_CLOSE, LINK_OPEN, UNSPACED_RANGES, chunk_texts
from workbench.text.elements import BLOCK, INVISIBLE
from workbench.text.headline import MIN_HEADING_WORDS, TITLE_MAX_CHARS, TitleCandidates, headline_candidates
from workbench.text.lexbor import read_page
from workbench.text.maincontent import main_blocks, main_content_text
from workbench.text.parse import parse_html
from workbench.text.tokenize import words_of

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which made
# creating a page's blocks several times slower; nothing changes a Block after extraction.
@dataclass(slots=True)
class Block:
    """A run of text in one layout block: ``text[start:end]``."""

    start: int
    end: int
    words: int
    link_words: int
    tag: str
    main: bool = False  # part of the page's main content (the article), when that is known

    @property
    def link_ratio(self) -> float:
        return self.link_words / self.words if self.words else 0.0


@dataclass(slots=True)
class Extracted:
    text: str
    # The title a coder sees: the page's headline (workbench.text.headline), which need not
    # be the first line of ``text`` (that stays the <title>, so detection never depends on
    # which headline was chosen).
    title: str
    blocks: list[Block] = field(default_factory=list)
    # The host most of the page's absolute links point to: for a page saved without its
    # URL (a browser "Save As" copy), the best guess at the site it came from.
    link_host: str | None = None
    # Whether main content was found: then ``Block.main`` marks the article's blocks.
    main_found: bool = False
    # Where the page came from when the record does not say (or is a replay address):
    # filled by workbench.detect.spotsigs.extract from the markup before it was cleaned.
    provenance: Provenance | None = None
    # What of the page was left unread because it was over the size limit (in words for
    # the coder; workbench.text.limit), or None when all of it was read.
    unread: str | None = None
    # The page's <title> as written ('' without one): often the site's name.
    title_tag: str = ""
    # What else could be shown as the title, best first (headline_candidates less the
    # title), and the first words of the article: when many pages of a site share the
    # title, it is the site's label and one of these stands in (workbench.text.site_titles).
    other_titles: tuple[str, ...] = ()
    opening: str = ""


# Markers in the visible text (workbench.text.chunks).
_LINK_OPEN, _LINK_CLOSE, _BREAK = LINK_OPEN, LINK_CLOSE, BREAK
_MARKERS = re.compile("[\ue000\ue001]")
_HOST = re.compile(r"https?://([^/:?#\s]+)", re.I)
_MARKER_SPLIT = re.compile("([\ue000\ue001])")
# Characters lxml refuses in text nodes, and our own markers if a page contains them.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ue000-\ue002]")


# Scripts written without spaces between words (Chinese, Japanese kana and kanji, Thai).
_UNSPACED = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in UNSPACED_RANGES) + "]")


def _count_words(text: str) -> int:
    """Words for the block filter: whitespace-separated runs (a cheap, C-speed count); in
    scripts written without spaces, about one word per two characters, so a paragraph of
    Japanese or Chinese is not taken for a one-word navigation item."""
    words = len(text.split())
    if text.isascii():
        return words
    return max(words, len(_UNSPACED.findall(text)) // 2)


def _link_words(chunk: str, in_link: bool) -> tuple[int, bool]:
    """Words inside links in a chunk with link markers, and whether a link stays open."""
    count = 0
    depth = 1 if in_link else 0
    for piece in _MARKER_SPLIT.split(chunk):
        if piece == _LINK_OPEN:
            depth += 1
        elif piece == _LINK_CLOSE:
            depth = max(0, depth - 1)
        elif depth:
            count += _count_words(piece)
    return count, depth > 0


# Which parser extracts a page: "lexbor" (one parse with resiliparse's HTMLTree: see
# workbench.text.lexbor) or "lxml" (lxml's tree for the blocks, resiliparse's main content
# matched back to them). The environment variable is read at import, so that worker
# processes follow the process that started them.
EXTRACTION_ENV = "WORKBENCH_EXTRACTION"
ONE_PARSE = os.environ.get(EXTRACTION_ENV, "lxml") == "lexbor"


def extract(markup: str, main_content: bool = False, hosts: Sequence[str | None] = ()) -> Extracted:
    """Visible text of an HTML page (or plain text) with its blocks and title: by one parse
    with Lexbor (:func:`extract_one_parse`) or by lxml (:func:`extract_lxml`)."""
    if ONE_PARSE:
        return extract_one_parse(markup, main_content, hosts)
    return extract_lxml(markup, main_content, hosts)


def extract_one_parse(markup: str, main_content: bool = False, hosts: Sequence[str | None] = ()) -> Extracted:
    """:func:`extract` from one Lexbor parse (workbench.text.lexbor)."""
    if _LINK_OPEN in markup or _LINK_CLOSE in markup or _BREAK in markup:
        markup = _CONTROL.sub(" ", markup)
    page = read_page(markup, main_content, microdata="itemprop" in markup or "ITEMPROP" in markup.upper())
    if page is None:
        return Extracted("", "")
    title = page.title
    if not title:  # pages without <title>: the first heading names them best
        title = page.headings[0][1][:300] if page.headings else ""
    texts, words, links = page.blocks
    parts: list[str] = []
    blocks: list[Block] = []
    length = 0
    if title:
        parts.append(title)
        blocks.append(Block(0, len(title), len(words_of(title)), 0, "title"))  # \w+ runs
        length = len(title) + 1
    starts = accumulate([len(text) + 1 for text in texts], initial=length)  # one more: the end
    body = len(blocks)
    blocks += [Block(start, start + len(text), n, k, "block")
               for text, start, n, k in zip(texts, starts, words, links, strict=False)]
    parts += texts
    shown = title
    if not title and blocks:  # no title, no heading: the first words of the page
        first = parts[0]
        shown = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"
    text = "\n".join(parts) + "\n" if parts else ""
    main_found = page.main is not None
    if page.main is not None:
        for k in np.flatnonzero(page.main).tolist():
            blocks[body + k].main = True
    link_host = _dominant(page.hosts)
    main_texts = frozenset(t for t, b in zip(parts, blocks, strict=True) if b.main) if main_found else None
    found = headline_candidates(page.candidates, [*hosts, link_host], main_texts)
    headline = (found[0] if found else "") or shown
    others = tuple(t[:TITLE_MAX_CHARS] for t in found if t != headline)[:MAX_OTHER_TITLES]
    article = ((t, b) for t, b in zip(parts, blocks, strict=True) if b.main) if main_found else ()
    return Extracted(text, headline[:TITLE_MAX_CHARS], blocks, link_host, main_found,
                     title_tag=page.candidates.title_tag[:TITLE_MAX_CHARS], other_titles=others,
                     opening=opening_of(article))


def extract_lxml(markup: str, main_content: bool = False, hosts: Sequence[str | None] = ()) -> Extracted:
    """Visible text of an HTML page (or plain text) with its blocks and title.

    With ``main_content``, the blocks that make up the page's article are marked
    (:mod:`workbench.text.maincontent`). The title is the page's headline
    (:func:`workbench.text.headline.headline_candidates`); ``hosts`` (the page's own, when
    known) help tell a headline from the site's name.

    Work is pushed into lxml's C code: invisible elements are stripped, block elements
    get a break marker before and after, links get open/close markers, and the tree
    is serialised as text once; Python then only walks the (few) blocks.
    """
    if _LINK_OPEN in markup or _LINK_CLOSE in markup or _BREAK in markup:
        markup = _CONTROL.sub(" ", markup)
    parsed = parse_html(markup)
    if parsed is None:
        return Extracted("", "")
    flattened = parsed.depth is not None
    candidates, title, flat, links = _marked_text(parsed.root, parsed.microdata)
    # The tree is often the largest thing a page puts in memory: it goes before resiliparse
    # builds its own, so that one page never holds both.
    del parsed
    text, blocks, shown, texts = _blocks(title, flat)
    del flat
    main_found = False
    # A page flattened for its depth has lost the structure main content is found by, and
    # resiliparse's time grows with depth times size (nine minutes on 100,000 levels).
    if main_content and blocks and not flattened:
        body = 1 if title else 0  # the title takes no flag
        # Block texts are whitespace-normalised already, as main_blocks compares them.
        flags = main_blocks(main_content_text(markup), texts[body:], normalised=True)
        if flags is not None:
            main_found = True
            for block, flag in zip(blocks[body:], flags, strict=True):
                if flag:
                    block.main = True
    link_host = _dominant(links)
    main_texts = frozenset(t for t, b in zip(texts, blocks, strict=True) if b.main) if main_found else None
    found = headline_candidates(candidates, [*hosts, link_host], main_texts)
    headline = (found[0] if found else "") or shown
    others = tuple(t[:TITLE_MAX_CHARS] for t in found if t != headline)[:MAX_OTHER_TITLES]
    # Without an article found, a page's first blocks are its site's navigation: no opening.
    article = ((t, b) for t, b in zip(texts, blocks, strict=True) if b.main) if main_found else ()
    return Extracted(text, headline[:TITLE_MAX_CHARS], blocks, link_host, main_found,
                     title_tag=candidates.title_tag[:TITLE_MAX_CHARS], other_titles=others,
                     opening=opening_of(article))


# Titles kept besides the one shown (workbench.text.site_titles takes the first that is
# no site's label), and the words of the article's opening kept with a page.
MAX_OTHER_TITLES = 2
OPENING_WORDS = 13  # one more than site_titles shows, so it can tell the opening was cut


def opening_of(blocks: Iterable[tuple[str, Block]]) -> str:
    """The first words (:data:`OPENING_WORDS`) of the article's first sentence: from its
    first block that reads like prose (a sentence of some words, few of them links; a
    line of a date, a weather report or links is none)."""
    for text, block in blocks:
        if block.words < MIN_SENTENCE_WORDS or block.link_ratio > MAX_OPENING_LINKS:
            continue
        sentence = _SENTENCE_END.split(text, maxsplit=1)
        if len(sentence) < 2 and not text.rstrip().endswith((".", "!", "?", '"', "”")):
            continue
        words = sentence[0].split()
        if len(words) >= MIN_HEADING_WORDS:
            return " ".join(words[:OPENING_WORDS])
    return ""


MIN_SENTENCE_WORDS = 8
MAX_OPENING_LINKS = 0.2
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“'‘(])")


def _normal(element: etree._Element) -> str:
    return " ".join("".join(element.itertext()).split())


# Where a page declares its site's name.
_DECLARED_SITE = ("og:site_name", "application-name", "twitter:site")


def _title_candidates(root: etree._Element, title: str, microdata: bool = True) -> TitleCandidates:
    """What the page offers as its headline. Headings are read after invisible elements
    are gone (a heading in a <noscript> or <template> is not seen) and before markers go in."""
    og_title: list[str] = []
    twitter_title: list[str] = []
    sites: list[str] = []
    for meta in root.iter("meta"):
        name = (meta.get("property") or meta.get("name") or "").strip().lower()
        content = " ".join((meta.get("content") or "").split())
        if not content:
            continue
        if name == "og:title":
            og_title.append(content)
        elif name == "twitter:title":
            twitter_title.append(content)
        elif name in _DECLARED_SITE:
            sites.append(content)
    declared = og_title + twitter_title
    for element in root.iterfind(".//*[@itemprop='headline']") if microdata else ():
        text = " ".join((element.get("content") or "").split()) or _normal(element)
        if text:
            declared.append(text)
            break
    return TitleCandidates(tuple(declared), (), title, tuple(sites))


def _marked_text(root: etree._Element,
                 microdata: bool = True) -> tuple[TitleCandidates, str, str, Counter[str]]:
    """What the page offers as a title, the title its text starts with, its visible text
    with block and link markers, and its links' hosts.

    ``microdata``: whether an element may have an itemprop attribute (Parsed.microdata).
    Changes the tree: invisible elements go.
    """
    title_el = next(root.iterdescendants("title"), None)
    title = _SPACE.sub(" ", "".join(title_el.itertext())).strip() if title_el is not None else ""
    candidates = _title_candidates(root, title[:TITLE_MAX_CHARS], microdata)
    if not title:  # pages without <title>: the first heading names them best
        heading = next((h for h in root.iter("h1", "h2", "h3") if "".join(h.itertext()).strip()), None)
        if heading is not None:
            title = _SPACE.sub(" ", "".join(heading.itertext())).strip()[:300]
    etree.strip_elements(root, *INVISIBLE, etree.Comment, etree.ProcessingInstruction,
                         with_tail=False)
    headings = tuple((h.tag, text) for h in root.iter("h1", "h2") if (text := _normal(h)))
    candidates = TitleCandidates(candidates.declared, headings, candidates.title_tag,
                                 candidates.site_names)
    hosts: Counter[str] = Counter()
    for href in _HREFS(root):
        if href[:4].lower() == "http" and (match := _HOST.match(href)):
            hosts[match.group(1).lower().removeprefix("www.")] += 1
    return candidates, title, str(_marker_transform()(root)), hosts


# Every link's address, in document order: one call instead of one per link; plain
# strings, not lxml's "smart" strings that remember their element.
_HREFS = etree.XPath("descendant-or-self::a/@href", smart_strings=False)


def _names(tags: frozenset[str]) -> str:
    return "|".join(sorted(tags))


def _is_one_of(tags: frozenset[str]) -> str:
    return " or ".join(f"self::{tag}" for tag in sorted(tags))


# The visible text with its markers, written by libxslt in one pass over the tree (setting
# the markers into the tree element by element and serialising it cost a Python call per
# element, a third of a small page's extraction). The text is what
# ``tostring(root, method="text", with_tail=False)`` gives after these changes to the tree:
# a break before and after every block element's content, a link's content between link
# markers, a space after <br> and <img>; invisible elements are gone by then. Only the root
# element is read: libxml2 puts what follows </html> into a second <html> beside it, which
# lxml's strip_elements and tostring never see. The root has no tail, so it only opens its
# marker.
_MARKER_STYLESHEET = f"""<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="UTF-8"/>
<xsl:template match="/"><xsl:apply-templates select="*[1]"/></xsl:template>
<xsl:template match="/*"><xsl:if test="{_is_one_of(BLOCK)}">{_BREAK}</xsl:if><xsl:if test="self::a"
>{_LINK_OPEN}</xsl:if><xsl:apply-templates/></xsl:template>
<xsl:template match="{_names(BLOCK)}">{_BREAK}<xsl:apply-templates/>{_BREAK}</xsl:template>
<xsl:template match="a">{_LINK_OPEN}<xsl:apply-templates/>{_LINK_CLOSE}</xsl:template>
<xsl:template match="br|img"><xsl:apply-templates/><xsl:text> </xsl:text></xsl:template>
</xsl:stylesheet>"""
_LOCAL = threading.local()


def _marker_transform() -> etree.XSLT:
    """The calling thread's compiled stylesheet (lxml's XSLT objects are not shared between
    threads here, as its parsers are not: see workbench.text.parse)."""
    transform = getattr(_LOCAL, "marker_transform", None)
    if transform is None:
        transform = _LOCAL.marker_transform = etree.XSLT(etree.XML(_MARKER_STYLESHEET))
    return transform


def _blocks(title: str, flat: str) -> tuple[str, list[Block], str, list[str]]:
    """The text shown (title first, one block a line), its blocks, the title to show, and
    the text of each block."""
    parts: list[str] = []
    blocks: list[Block] = []
    length = 0
    if title:
        parts.append(title)
        blocks.append(Block(0, len(title), len(words_of(title)), 0, "title"))  # \w+ runs
        length = len(title) + 1
    found = chunk_texts(flat)
    if found is None:  # a link inside a link
        # str.split() collapses the same Unicode whitespace as \s+, several times faster.
        for text, block in _chunk_blocks_one_by_one(" ".join(flat.split()), length):
            parts.append(text)
            blocks.append(block)
    else:
        texts, words, links = found
        starts = accumulate([len(text) + 1 for text in texts], initial=length)  # one more: the end
        blocks += [Block(start, start + len(text), n, k, "block")
                   for text, start, n, k in zip(texts, starts, words, links, strict=False)]
        parts += texts
    if not title and blocks:  # no title, no heading: the first words of the page
        first = parts[0]
        title = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"
    return ("\n".join(parts) + "\n" if parts else ""), blocks, title, parts


def _chunk_blocks_one_by_one(collapsed: str, start: int) -> list[tuple[str, Block]]:
    """The blocks of ``collapsed`` (markers in, whitespace collapsed), chunk by chunk, as
    :func:`workbench.text.chunks.chunk_texts` finds them when links do not nest: here a
    link inside a link counts for two levels, until the end of its chunk."""
    out: list[tuple[str, Block]] = []
    in_link = False  # a link may wrap block elements, so its span can cross breaks
    chunks = [c for c in collapsed.split(_BREAK) if len(c) > 1 or (c and c != " ")]
    for chunk in chunks:
        link_words = 0
        if in_link or _LINK_OPEN in chunk or _LINK_CLOSE in chunk:
            link_words, in_link = _link_words(chunk, in_link)
            chunk = _MARKERS.sub("", chunk)
            if "  " in chunk:
                chunk = " ".join(chunk.split())
        text = chunk.strip()
        if not text:
            continue
        words = _count_words(text)
        out.append((text, Block(start, start + len(text), words, min(link_words, words), "block")))
        start += len(text) + 1
    return out


def _dominant(hosts: Counter[str]) -> str | None:
    """The host of most absolute links, if it is clearly the page's own (a third of them
    and at least three): ad and share links spread over many hosts."""
    if not hosts:
        return None
    host, n = hosts.most_common(1)[0]
    return host if n >= 3 and n * 3 >= sum(hosts.values()) else None


def extract_plain(text: str) -> Extracted:
    """Plain text: one block per paragraph (blank-line separated); the first is the title."""
    parts: list[str] = []
    blocks: list[Block] = []
    length = 0
    for para in re.split(r"\n\s*\n", _CONTROL.sub(" ", text)):
        clean = _SPACE.sub(" ", para).strip()
        if not clean:
            continue
        blocks.append(Block(length, length + len(clean), len(_WORD.findall(clean)), 0, "p"))
        parts += [clean, "\n"]
        length += len(clean) + 1
    full = "".join(parts)
    title = full[blocks[0].start : blocks[0].end][:200] if blocks else ""
    return Extracted(full, title, blocks)
