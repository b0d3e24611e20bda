"""HTML to visible text, split into layout blocks, with character offsets.

The extracted text is what the GUI shows and highlights, so every token span the
detector reports must index into exactly this string. Blocks (paragraphs, cells,
list items, headings...) are kept so that spot chains need not spill from one
layout block into the next and navigation-like blocks can be filtered out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import lxml.etree as etree

from workbench.text.captures import Provenance
from workbench.text.elements import BLOCK, INVISIBLE
from workbench.text.headline import TITLE_MAX_CHARS, TitleCandidates, choose_headline
from workbench.text.maincontent import main_blocks, main_content_text
from workbench.text.parse import parse_html

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
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
    # filled by workbench.detect.extract from the markup before it was cleaned.
    provenance: Provenance | None = None
    # What of the page was left unread because it was over the size limit (in words for
    # the coder; workbench.text.limit), or None when all of it was read.
    unread: str | None = None
    # The page's <title> as written ('' without one): often the site's name.
    title_tag: str = ""


# Private-use characters as markers: lxml refuses control characters in text.
_LINK_OPEN, _LINK_CLOSE, _BREAK = "\ue000", "\ue001", "\ue002"
_MARKERS = re.compile("[\ue000\ue001]")
_HOST = re.compile(r"https?://([^/:?#\s]+)", re.I)
_MARKER_SPLIT = re.compile("([\ue000\ue001])")
# Characters lxml refuses in text nodes, and our own markers if a page contains them.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ue000-\ue002]")


# Scripts written without spaces between words (Chinese, Japanese kana and kanji, Thai).
_UNSPACED = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


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


def extract(markup: str, main_content: bool = False, hosts: Sequence[str | None] = ()) -> Extracted:
    """Visible text of an HTML page (or plain text) with its blocks and title.

    With ``main_content``, the blocks that make up the page's article are marked
    (:mod:`workbench.text.maincontent`). The title is the page's headline
    (:func:`workbench.text.headline.choose_headline`); ``hosts`` (the page's own, when
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
    candidates, title, flat, links = _marked_text(parsed.root)
    # The tree is often the largest thing a page puts in memory: it goes before resiliparse
    # builds its own, so that one page never holds both.
    del parsed
    text, blocks, shown = _blocks(title, flat)
    del flat
    main_found = False
    # A page flattened for its depth has lost the structure main content is found by, and
    # resiliparse's time grows with depth times size (nine minutes on 100,000 levels).
    if main_content and blocks and not flattened:
        body = [b for b in blocks if b.tag != "title"]
        flags = main_blocks(main_content_text(markup), [text[b.start : b.end] for b in body])
        if flags is not None:
            main_found = True
            marked = iter(flags)
            # Only blocks in the main content need a new record (most blocks are not); the
            # title takes no flag.
            blocks = [b if b.tag == "title" or not next(marked)
                      else Block(b.start, b.end, b.words, b.link_words, b.tag, True) for b in blocks]
    link_host = _dominant(links)
    main_texts = frozenset(text[b.start : b.end] for b in blocks if b.main) if main_found else None
    headline = choose_headline(candidates, [*hosts, link_host], main_texts) or shown
    return Extracted(text, headline[:TITLE_MAX_CHARS], blocks, link_host, main_found,
                     title_tag=candidates.title_tag[:TITLE_MAX_CHARS])


def _normal(element: etree._Element) -> str:
    return " ".join("".join(element.itertext()).split())


# Where a page declares its site's name.
_DECLARED_SITE = ("og:site_name", "application-name", "twitter:site")


def _title_candidates(root: etree._Element, title: str) -> TitleCandidates:
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
    for element in root.iterfind(".//*[@itemprop='headline']"):
        text = " ".join((element.get("content") or "").split()) or _normal(element)
        if text:
            declared.append(text)
            break
    return TitleCandidates(tuple(declared), (), title, tuple(sites))


def _marked_text(root: etree._Element) -> tuple[TitleCandidates, str, str, Counter[str]]:
    """What the page offers as a title, the title its text starts with, its visible text
    with block and link markers, and its links' hosts.

    Changes the tree: invisible elements go, markers are added.
    """
    title_el = root.find(".//title")
    title = _SPACE.sub(" ", "".join(title_el.itertext())).strip() if title_el is not None else ""
    candidates = _title_candidates(root, title[:TITLE_MAX_CHARS])
    if not title:  # pages without <title>: the first heading names them best
        heading = next((h for h in root.iter("h1", "h2", "h3") if "".join(h.itertext()).strip()), None)
        if heading is not None:
            title = _SPACE.sub(" ", "".join(heading.itertext())).strip()[:300]
    etree.strip_elements(root, *INVISIBLE, etree.Comment, etree.ProcessingInstruction,
                         with_tail=False)
    headings = tuple((h.tag, text) for h in root.iter("h1", "h2") if (text := _normal(h)))
    candidates = TitleCandidates(candidates.declared, headings, candidates.title_tag,
                                 candidates.site_names)
    for el in root.iter(*BLOCK):
        el.text = _BREAK + el.text if el.text else _BREAK
        el.tail = _BREAK + el.tail if el.tail else _BREAK
    for el in root.iter("br", "img"):
        el.tail = " " + el.tail if el.tail else " "
    hosts: Counter[str] = Counter()
    for el in root.iter("a"):
        el.text = _LINK_OPEN + el.text if el.text else _LINK_OPEN
        el.tail = _LINK_CLOSE + el.tail if el.tail else _LINK_CLOSE
        href = el.get("href")
        if href and href[:4].lower() == "http":
            match = _HOST.match(href)
            if match:
                hosts[match.group(1).lower().removeprefix("www.")] += 1
    return candidates, title, etree.tostring(root, method="text", encoding="unicode", with_tail=False), hosts


def _blocks(title: str, flat: str) -> tuple[str, list[Block], str]:
    """The text shown (title first, one block a line), its blocks, and the title to show."""
    parts: list[str] = []
    blocks: list[Block] = []
    length = 0
    if title:
        parts.append(title)
        blocks.append(Block(0, len(title), len(_WORD.findall(title)), 0, "title"))
        length = len(title) + 1
    in_link = False  # a link may wrap block elements, so its span can cross breaks
    # str.split() collapses the same Unicode whitespace as \s+, several times faster.
    chunks = [c for c in " ".join(flat.split()).split(_BREAK) if len(c) > 1 or (c and c != " ")]
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
        blocks.append(Block(length, length + len(text), words, min(link_words, words), "block"))
        parts.append(text)
        length += len(text) + 1
    if not title and blocks:  # no title, no heading: the first words of the page
        first = parts[0]
        title = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"
    return ("\n".join(parts) + "\n" if parts else ""), blocks, title


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
