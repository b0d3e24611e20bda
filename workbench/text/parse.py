"""Markup to an lxml tree with the text a browser would show, however the page is nested.

libxml2 reads HTML its own way, and two of its ways lost text:

* it opens some void elements (``<embed>``, ``<source>``...) as containers, so everything
  after one, up to the end of its parent, lands inside it; inside an invisible ``<embed>``
  it vanished with it. What such an element holds is put back after it, where a browser
  has it (a void element never holds anything).
* it stops at its resource limits (256 levels of nesting, text nodes of 10 MB) and the
  whole page came out empty: 300 words in 100,000 nested ``<div>`` were reported as "too
  little text". The limits stay on for the first parse: no real page comes near them (the
  deepest of the 1,592 pages of the shared data is 59 levels deep), so they cost nothing
  and tell the hostile pages apart. A page that trips one is parsed again without them
  (``huge_tree``; its size is bounded before parsing, see ``workbench.detect.spotsigs.extract``),
  and a page nested deeper than ``FLAT_DEPTH`` levels is then built through a parser target
  that keeps ``FLAT_DEPTH`` levels: deeper elements keep their text in order, a deeper
  block element leaves a break, deeper invisible elements are dropped.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

import lxml.etree as etree

from workbench.text.elements import BLOCK, INVISIBLE, VOID_OPENED_AS_CONTAINERS

# Levels of elements a page keeps: libxml2's own default limit.
FLAT_DEPTH = 256

_PARSER_OPTIONS: dict[str, Any] = {
    "encoding": "utf-8",
    "remove_comments": True,
    "remove_pis": True,
    "no_network": True,
    "recover": True,
    "huge_tree": False,
}
_NO_LIMITS = {**_PARSER_OPTIONS, "huge_tree": True}
# The error libxml2 reports at a limit (older versions name the option in the message only).
_RESOURCE_LIMIT = getattr(etree.ErrorTypes, "ERR_RESOURCE_LIMIT", -1)
# Whether a tree has an element deeper than FLAT_DEPTH (an element at that depth + 1), level by
# level in libxml2's XPath, never deeper than the tree goes.
_DEEPER_THAN_FLAT = etree.XPath("boolean(" + "/*" * (FLAT_DEPTH + 1) + ")")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
# Characters lxml refuses in text nodes: deleted from the UTF-8 bytes before parsing.
_CONTROL_BYTES = bytes(c for c in range(32) if c not in (9, 10, 13))
# lxml parser objects must not be shared between threads (the GUI reads pages on its own
# thread while a detection job extracts on another: a shared parser crashed the process),
# so every thread gets its own. A plain etree parser: lxml.html's element classes cost a
# Python call per element.
_LOCAL = threading.local()


def _parser() -> etree.HTMLParser:
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = etree.HTMLParser(**_PARSER_OPTIONS)
    return parser


@dataclass(frozen=True, slots=True)
class Parsed:
    root: etree._Element
    # For a page nested too deep for the parser: how deep, and so flattened below FLAT_DEPTH.
    depth: int | None = None
    # Whether an element may have an itemprop attribute (microdata): False when the parsed
    # bytes never spell the name, in any case (libxml2 lower-cases attribute names), which
    # spares a search of every element of most pages.
    microdata: bool = True


def parse_html(markup: str) -> Parsed | None:
    """Parse markup with a parser that never fetches anything and keeps no comments."""
    markup = _XML_DECL.sub("", markup, count=1)
    if not markup.strip():
        return None
    # Parsing UTF-8 bytes is about a third faster than parsing a str. Control bytes (which
    # lxml refuses in text nodes) never occur inside a UTF-8 sequence, so deleting them at
    # C speed is safe.
    data = markup.encode("utf-8", "replace").translate(None, _CONTROL_BYTES)
    parser = _parser()
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    depth = None
    if _hit_a_limit(parser):
        root, depth = _parse_without_limits(data)
    if root is None:
        return None
    _empty_void_elements(root)
    return Parsed(root, depth, b"itemprop" in data.lower())


def _hit_a_limit(parser: etree.HTMLParser) -> bool:
    """Whether the last parse stopped at one of libxml2's resource limits (a fatal error)."""
    return any(e.type == _RESOURCE_LIMIT or "XML_PARSE_HUGE" in e.message
               for e in parser.error_log.filter_from_fatals())


def _parse_without_limits(data: bytes) -> tuple[etree._Element | None, int | None]:
    """The tree of a page that tripped a parser limit, and its depth if it was flattened."""
    parser = etree.HTMLParser(**_NO_LIMITS)
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    # Even without limits libxml2 stops at 2048 levels.
    if root is not None and not _hit_a_limit(parser) and not _DEEPER_THAN_FLAT(root):
        return root, None
    target = _Flattening(FLAT_DEPTH)
    try:
        root = etree.fromstring(data, parser=etree.HTMLParser(target=target, **_NO_LIMITS))
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None, target.deepest
    return root, target.deepest


class _Flattening:
    """lxml parser target: the tree of the page with at most ``limit`` levels of elements.

    Every parser event costs a Python call here, so this is only for pages the ordinary
    parse could not build.
    """

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._builder = etree.TreeBuilder()
        self._depth = 0
        self._hidden = 0  # open invisible elements below the limit (their text is dropped)
        self._text_since_break = False  # a break after no text would only add an empty block
        self.deepest = 0

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self._depth += 1
        self.deepest = max(self.deepest, self._depth)
        if self._depth <= self._limit:
            self._builder.start(tag, attrib)
        elif self._hidden or tag in INVISIBLE:
            self._hidden += 1
        else:
            self._flat(tag)

    def end(self, tag: str) -> None:
        if self._depth <= self._limit:
            self._builder.end(tag)
        elif self._hidden:
            self._hidden -= 1
        else:
            self._flat(tag)
        self._depth -= 1

    def data(self, text: str) -> None:
        if not self._hidden:
            self._builder.data(text)
            self._text_since_break = self._text_since_break or not text.isspace()

    def close(self) -> etree._Element:
        return self._builder.close()

    def _flat(self, tag: str) -> None:
        """A deep element's start or end: a break for a block, a space for br and img."""
        if tag in BLOCK and self._text_since_break:
            self._builder.start("div", {})
            self._builder.end("div")
            self._text_since_break = False
        elif tag in ("br", "img"):
            self._builder.data(" ")


def _empty_void_elements(root: etree._Element) -> None:
    """Put what libxml2 nested inside void elements back after them, in document order."""
    for element in [e for e in root.iter(*VOID_OPENED_AS_CONTAINERS) if e.text or len(e)]:
        parent = element.getparent()
        if parent is None:
            continue
        after = element.tail
        element.tail, element.text = element.text, None
        at = parent.index(element)
        last = element
        for child in list(element):
            at += 1
            parent.insert(at, child)  # moves the child, and its tail with it
            last = child
        if after:
            last.tail = (last.tail or "") + after
