"""HTML to visible text, split into layout blocks, with character offsets.

The extracted text is what the GUI shows and highlights, so every token span the
detector reports must index into exactly this string. Blocks (paragraphs, cells,
list items, headings...) are kept so that spot chains need not spill from one
layout block into the next and navigation-like blocks can be filtered out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import lxml.etree as etree
import lxml.html

# Elements whose content a reader never sees.
_INVISIBLE = frozenset(
    {"script", "style", "noscript", "template", "head", "iframe", "object", "embed", "svg",
     "math", "select", "textarea", "button"}
)
# Elements that start a new visual block.
_BLOCK = frozenset(
    {"address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
     "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
     "frame", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "legend", "li",
     "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td",
     "tfoot", "th", "thead", "title", "tr", "ul", "option"}
)
_SPACE = re.compile(r"\s+")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_WORD = re.compile(r"\w+")

_PARSER = lxml.html.HTMLParser(
    remove_comments=True, remove_pis=True, no_network=True, recover=True, huge_tree=False
)


@dataclass(frozen=True, slots=True)
class Block:
    """A run of text in one layout block: ``text[start:end]``."""

    start: int
    end: int
    words: int
    link_words: int
    tag: str

    @property
    def link_ratio(self) -> float:
        return self.link_words / self.words if self.words else 0.0


@dataclass(slots=True)
class Extracted:
    text: str
    title: str
    blocks: list[Block] = field(default_factory=list)


class _Builder:
    """Accumulates text pieces and closes blocks at layout boundaries."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.blocks: list[Block] = []
        self.block_start = 0
        self.block_tag = "body"
        self.words = 0
        self.link_words = 0
        self.pending_space = False

    def add(self, raw: str | None, in_link: bool) -> None:
        if not raw:
            return
        text = _SPACE.sub(" ", raw)
        if text.startswith(" "):
            self.pending_space = True
            text = text[1:]
        if not text:
            return
        if self.pending_space and self.length > self.block_start:
            self.parts.append(" ")
            self.length += 1
        self.pending_space = text.endswith(" ")
        if self.pending_space:
            text = text[:-1]
        self.parts.append(text)
        self.length += len(text)
        n = len(_WORD.findall(text))
        self.words += n
        if in_link:
            self.link_words += n

    def close(self, next_tag: str) -> None:
        if self.length > self.block_start:
            self.blocks.append(
                Block(self.block_start, self.length, self.words, self.link_words, self.block_tag)
            )
            self.parts.append("\n")
            self.length += 1
        self.block_start = self.length
        self.block_tag = next_tag
        self.words = self.link_words = 0
        self.pending_space = False


def parse_html(markup: str) -> etree._Element | None:
    """Parse markup with a parser that never fetches anything and keeps no comments."""
    markup = _XML_DECL.sub("", markup, count=1)
    if not markup.strip():
        return None
    try:
        return lxml.html.document_fromstring(markup, parser=_PARSER)
    except (etree.ParserError, ValueError):
        return None


def extract(markup: str) -> Extracted:
    """Visible text of an HTML page (or plain text) with its blocks and title."""
    root = parse_html(markup)
    if root is None:
        return Extracted("", "")
    title_el = root.find(".//title")
    title = _SPACE.sub(" ", title_el.text_content()).strip() if title_el is not None else ""

    out = _Builder()
    if title:
        out.block_tag = "title"
        out.add(title, False)
        out.close("body")
    link_depth = 0
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if not isinstance(tag, str):  # entities and the like that survived parsing
            if event == "end":
                out.add(el.tail, link_depth > 0)
            continue
        tag = tag.lower()
        if event == "start":
            if tag in _INVISIBLE:
                walker.skip_subtree()
                continue
            if tag in _BLOCK:
                out.close(tag)
            elif tag == "br":
                out.add(" ", False)
            if tag == "a":
                link_depth += 1
            out.add(el.text, link_depth > 0)
        else:
            if tag == "a" and tag not in _INVISIBLE:
                link_depth = max(0, link_depth - 1)
            if tag in _BLOCK:
                out.close("div")
            out.add(el.tail, link_depth > 0)
    out.close("div")
    text = "".join(out.parts)
    return Extracted(text, title, out.blocks)


def extract_plain(text: str) -> Extracted:
    """Plain text: one block per paragraph (blank-line separated)."""
    out = _Builder()
    for para in re.split(r"\n\s*\n", text):
        out.add(para, False)
        out.close("p")
    full = "".join(out.parts)
    first = full.split("\n", 1)[0].strip()
    return Extracted(full, first[:200], out.blocks)
