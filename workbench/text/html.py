"""HTML to visible text, split into layout blocks, with character offsets.

The extracted text is what the GUI shows and highlights, so every token span the
detector reports must index into exactly this string. Blocks (paragraphs, cells,
list items, headings...) are kept so that spot chains need not spill from one
layout block into the next and navigation-like blocks can be filtered out.

The page is parsed once, with Lexbor (workbench.text.lexbor): the blocks of the whole page,
those of its main content and its headings come from that one tree.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from operator import add

from workbench.text.headline import MIN_HEADING_WORDS, TITLE_MAX_CHARS, headline_candidates
from workbench.text.lexbor import read_page
from workbench.text.provenance.captures import Provenance
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
    # The publication date the page states (YYYY-MM-DD) and where it was read
    # (workbench.text.provenance.published), filled by workbench.detect.spotsigs.extract.
    published: tuple[str, str] | None = None


# Characters that are no text, and the markers workbench.text.chunks uses if a page
# contains them.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ue000-\ue002]")


def extract(markup: str, main_content: bool = False, hosts: Sequence[str | None] = ()) -> Extracted:
    """Visible text of an HTML page (or plain text) with its blocks and title.

    With ``main_content``, the blocks that make up the page's article are marked. The title
    is the page's headline (:func:`workbench.text.headline.headline_candidates`); ``hosts``
    (the page's own, when known) help tell a headline from the site's name.

    The blocks, their words and link words, the main content and the headings come from
    one parse (:func:`workbench.text.lexbor.read_page`); Python only builds a Block a block.
    """
    page = read_page(markup, main_content)
    if page is None:
        return Extracted("", "")
    title = page.title
    if not title:  # pages without <title>: the first heading names them best
        title = page.headings[0][1][:300] if page.headings else ""
    texts, words, links = page.blocks
    main_found = page.main is not None
    flags: Iterable[bool] = page.main.tolist() if page.main is not None else repeat(False)
    blocks: list[Block] = []
    length = 0
    if title:
        blocks.append(Block(0, len(title), len(words_of(title)), 0, "title"))  # \w+ runs
        length = len(title) + 1
    # Every block's start and end, and the blocks, by C loops (map, accumulate), not a
    # Python step a block: a small page has about 60.
    sizes = list(map(len, texts))
    starts = list(accumulate([size + 1 for size in sizes], initial=length))  # one more: the end
    body = list(map(Block, starts, map(add, starts, sizes), words, links, repeat("block"), flags))
    blocks += body
    parts = [title, *texts] if title else texts
    shown = title
    if not title and blocks:  # no title, no heading: the first words of the page
        first = parts[0]
        shown = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"
    text = "\n".join(parts) + "\n" if parts else ""
    link_host = _dominant(page.hosts)
    main = page.main.tolist() if page.main is not None else []
    main_texts = frozenset(compress(texts, main)) if main_found else None
    found = headline_candidates(page.candidates, [*hosts, link_host], main_texts)
    headline = (found[0] if found else "") or shown
    others = tuple(t[:TITLE_MAX_CHARS] for t in found if t != headline)[:MAX_OTHER_TITLES]
    article = zip(compress(texts, main), compress(body, main), strict=True)
    return Extracted(text, headline[:TITLE_MAX_CHARS], blocks, link_host, main_found,
                     title_tag=page.candidates.title_tag[:TITLE_MAX_CHARS], other_titles=others,
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
