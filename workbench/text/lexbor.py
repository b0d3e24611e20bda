"""A page's text, blocks, main content and headline from one parse (Lexbor, through resiliparse).

The page is parsed once into resiliparse's ``HTMLTree``. Its visible text is written by
resiliparse's own extractor twice from that tree, as "minimal HTML" (one layout block a line,
links, headings and paragraphs kept as tags): once for the whole page and once for its main
content (the article). Both go through the same compiled pass
(:func:`workbench.text.chunks.minimal_html_chunks`) into blocks, so a main-content block is
found among the page's blocks by its exact text, in order: no matching of one parser's lines
against another's. Headings and links are read from the whole page's minimal HTML; the
declared titles (og:title...) from the tree (a CSS query of its head, an attribute search).

Two kinds of damaged or hostile markup need care:

* an unclosed ``<title>``: HTML reads everything after it as the title, scripts and footer
  included, and leaves the body empty (50 of the 621 L3S-GN1 Google News pages of 2008
  have one). The title is then closed where its first tag starts and the page parsed
  again, so its article is read and its scripts are not.
* deep nesting: Lexbor builds a tree of any depth and the text extractor reads it fine, but
  main-content extraction grows with depth times size (minutes on 100,000 levels). A page
  nested deeper than :data:`MAX_MAIN_DEPTH` is taken whole, as before.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal, TypedDict

import numpy as np
from numba import njit
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.html import HTMLTree

from workbench.text.chunks import minimal_html_chunks
from workbench.text.headline import TITLE_MAX_CHARS, TitleCandidates

# Deeper than this, main content is not looked for (libxml2's default limit, at which
# pages were flattened and taken whole when lxml parsed them).
MAX_MAIN_DEPTH = 256
# Whether an element is deeper than MAX_MAIN_DEPTH: Lexbor matches right to left, so an
# element costs as many steps as it is deep, up to the limit.
_TOO_DEEP = ":root" + " > *" * MAX_MAIN_DEPTH

class ExtractOptions(TypedDict):
    """The options of resiliparse's extract_plain_text this module sets."""

    preserve_formatting: bool | Literal["minimal_html"]
    main_content: bool
    links: bool
    list_bullets: bool
    alt_texts: bool
    form_fields: bool
    noscript: bool
    comments: bool
    skip_elements: list[str]


# resiliparse's options for both extractions: no list bullets, alt texts, form fields or
# <noscript> content (none is text a reader sees in the page), links kept as tags.
_WHOLE: ExtractOptions = {"preserve_formatting": "minimal_html", "main_content": False, "links": True,
                          "list_bullets": False, "alt_texts": False, "form_fields": False,
                          "noscript": False, "comments": False, "skip_elements": []}
# Photo galleries, slideshows and carousels sit inside many articles with captions that
# read like prose; one gallery embedded in two different stories of a site made them near
# duplicates (chaos-2017). They are not the story: left out of the main content.
_NOT_THE_STORY = [f'[{attr}*="{word}" i]' for attr in ("class", "id")
                  for word in ("gallery", "slideshow", "carousel")]
# The same options but for main content: the lines of both are then alike. (Without the links'
# tags, main content writes a line the whole page splits where a link holds a block.)
_MAIN: ExtractOptions = {**_WHOLE, "main_content": True, "skip_elements": _NOT_THE_STORY}


def main_content_options() -> ExtractOptions:
    """The options of resiliparse's extract_plain_text for a page's main content."""
    return _MAIN.copy()


# A main content whose blocks found in the page hold less than this share of its words
# is not trusted (the page is taken whole).
_MIN_COVERAGE = 0.3

_TAG = re.compile(r"<[^>]*>")
_HEADING = re.compile(r"<(h[123])>(.*?)</h[123]>", re.S)
_LINK_HOST = re.compile(r'<a href="https?://([^/:?#"\s]+)', re.I)
_ESCAPES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'"}
_ESCAPE = re.compile("|".join(_ESCAPES))
# A title that holds a tag: an unclosed <title> that took the rest of the page.
_MARKUP_IN_TITLE = re.compile(r"<[a-zA-Z/!]")
_TITLE_OPEN = re.compile(r"<title\b[^>]*>", re.I)
_TITLE_CLOSE = re.compile(r"</title\s*>", re.I)
# Where a page declares a title or its site's name.
_DECLARED = ("og:title", "twitter:title", "og:site_name", "application-name", "twitter:site")
_DECLARED_QUERY = ", ".join(f'meta[{attr}="{name}" i]' for name in _DECLARED for attr in ("property", "name"))
_TITLES = ("og:title", "twitter:title")


class Page:
    """One page parsed: what workbench.text.html builds its Extracted from."""

    __slots__ = ("blocks", "candidates", "headings", "hosts", "main", "title")

    def __init__(self, title: str, blocks: tuple[list[str], list[int], list[int]],
                 main: np.ndarray | None, candidates: TitleCandidates, hosts: Counter[str],
                 headings: tuple[tuple[str, str], ...]) -> None:
        self.title = title  # the <title> (whitespace collapsed), '' without one
        self.headings = headings  # the visible <h1>, <h2> and <h3>: (tag, text) in order
        self.blocks = blocks  # texts, words, link words of the visible text's blocks
        self.main = main  # bool per block: part of the main content; None when not found
        self.candidates = candidates
        self.hosts = hosts  # hosts of the page's absolute links, counted


def read_page(markup: str, main_content: bool) -> Page | None:
    """The page's blocks, main content, title candidates and link hosts (None: no page)."""
    if not markup.strip():
        return None
    try:
        data = markup.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, which no parser takes
        data = markup.encode("utf-8", "replace")
        markup = data.decode("utf-8")
    tree = HTMLTree.parse(markup)
    title = tree.title or ""
    if _MARKUP_IN_TITLE.search(title):
        tree, title = _title_closed(markup, tree, title)
    whole = extract_plain_text(tree, **_WHOLE)
    blocks = minimal_html_chunks(whole)
    main = None
    if main_content and blocks[0] and not _too_deep(data, tree):
        main = _main_blocks(tree, blocks)
    headings = headings_of(whole)
    candidates = _candidates(tree, data, tuple(h for h in headings if h[0] != "h3"), title[:TITLE_MAX_CHARS])
    hosts = Counter(host.lower().removeprefix("www.") for host in _LINK_HOST.findall(whole))
    return Page(title, blocks, main, candidates, hosts, headings)


def _title_closed(markup: str, tree: HTMLTree, title: str) -> tuple[HTMLTree, str]:
    """The page parsed again with its unclosed <title> closed where its first tag starts.

    A title that spells a tag but is closed, and is no longer than a title can be shown
    (``<title>Why <br> breaks lines</title>``), is a title."""
    opened = _TITLE_OPEN.search(markup)
    if opened is None:
        return tree, title
    closed = _TITLE_CLOSE.search(markup, opened.end())
    if closed is not None and len(title) <= TITLE_MAX_CHARS:
        return tree, title
    end = markup.find("<", opened.end())
    if end < 0:
        return tree, title
    tree = HTMLTree.parse(markup[:end] + "</title>" + markup[end:])
    return tree, tree.title or ""


def _too_deep(data: bytes, tree: HTMLTree) -> bool:
    """Whether the page is nested deeper than MAX_MAIN_DEPTH.

    Asking the tree costs each element as many steps as it is deep (a fifth of main-content
    extraction on a small page), so it is asked only when a bound read from the markup in
    one compiled pass over its bytes (:func:`_nesting_bound`) is too deep."""
    if _nesting_bound(np.frombuffer(data, dtype=np.uint8), _VOID_NAMES) <= MAX_MAIN_DEPTH:
        return False
    document = tree.document
    return document is not None and document.query_selector(_TOO_DEEP) is not None


# Elements that never hold anything (HTML's void elements), lower-case, 0-padded.
_VOIDS = ("area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
          "keygen", "link", "meta", "param", "source", "track", "wbr")
_VOID_NAMES = np.zeros((len(_VOIDS), 9), dtype=np.uint8)
for _k, _name in enumerate(_VOIDS):
    _VOID_NAMES[_k, : len(_name)] = list(_name.encode())


# How far down the open elements a closing tag looks for its own: as far as one that closes
# elements left open (a <div> around unclosed <p>s and <li>s) needs; further down, it is
# taken for a stray tag that closes nothing (a parser may close more: only a bound is kept).
_CLOSE_REACH = 8


@njit(cache=True, nogil=True)
def _nesting_bound(data: np.ndarray, voids: np.ndarray) -> int:
    """How deep the markup's elements may nest, read from its tags: the most elements open at
    once, an element opened by any opening tag but a void or self-closed one, and closed by
    a closing tag of its name when it is among the last few opened (:data:`_CLOSE_REACH`),
    with those opened after it.

    A parser closes at least those elements, and more (a <p> before the next <p>), so a page
    comes out no deeper than this; a '<' in a script only makes it deeper. Closing tags of
    nothing close nothing here, so they cannot hide depth.
    """
    n = len(data)
    names = np.empty(n // 2 + 1, dtype=np.int64)  # the open elements' names, hashed
    depth = 0
    deepest = 0
    k = 0
    while k < n - 1:
        if data[k] != 60:  # '<'
            k += 1
            continue
        closing = data[k + 1] == 47  # '/'
        start = k + 2 if closing else k + 1
        if start >= n or not 97 <= (data[start] | 32) <= 122:  # no letter: no tag
            k += 1
            continue
        end = start
        name = np.int64(1469598103)
        while end < n and (97 <= (data[end] | 32) <= 122 or 48 <= data[end] <= 57):
            name = name * np.int64(1099511628211) + np.int64(data[end] | 32)
            end += 1
        length = end - start
        void = False
        if not closing and length < voids.shape[1]:  # a void name: its letters, then its end (a 0)
            for v in range(voids.shape[0]):
                same = voids[v, length] == 0
                for j in range(length):
                    if not same or (data[start + j] | 32) != voids[v, j]:
                        same = False
                        break
                if same:
                    void = True
                    break
        while end < n and data[end] != 62:  # '>'
            end += 1
        if closing:
            for down in range(1, min(depth, _CLOSE_REACH) + 1):
                if names[depth - down] == name:
                    depth -= down
                    break
        elif not void and data[end - 1] != 47:  # not "<x ... />"
            names[depth] = name
            depth += 1
            if depth > deepest:
                deepest = depth
        k = end + 1
    return deepest


def _main_blocks(tree: HTMLTree, blocks: tuple[list[str], list[int], list[int]]) -> np.ndarray | None:
    """Which of the page's blocks are its main content: resiliparse's main-content blocks
    found, in order, among the page's (None when there are none or too few are found)."""
    try:
        found = minimal_html_chunks(extract_plain_text(tree, **_MAIN) or "")
    except Exception:  # noqa: BLE001 - a page the extractor cannot read is taken whole
        return None
    if not found or not found[0]:
        return None
    texts, words, _ = blocks
    main_texts, main_words, _ = found
    page = np.fromiter(map(hash, texts), dtype=np.int64, count=len(texts))
    main = np.fromiter(map(hash, main_texts), dtype=np.int64, count=len(main_texts))
    flags = _in_order(page, main)
    covered = int(np.asarray(words, dtype=np.int64)[flags].sum())
    if covered < _MIN_COVERAGE * sum(main_words):
        return None
    return flags


@njit(cache=True, nogil=True)
def _in_order(page: np.ndarray, main: np.ndarray) -> np.ndarray:
    """For each page block, whether it is matched by a main block: main blocks are matched
    in order, each to the first page block after the last match with the same text (a main
    block with no such page block is passed over)."""
    flags = np.zeros(len(page), dtype=np.bool_)
    at = 0
    for m in range(len(main)):
        k = at
        while k < len(page) and page[k] != main[m]:
            k += 1
        if k < len(page):
            flags[k] = True
            at = k + 1
    return flags


def _candidates(tree: HTMLTree, data: bytes, headings: tuple[tuple[str, str], ...],
                title: str) -> TitleCandidates:
    """What the page offers as its headline: declared titles and site names (meta tags,
    microdata), its visible <h1> and <h2> headings in order, and its <title>.

    Meta tags are looked for in the head (a CSS query costs Lexbor a step an element it
    searches: the whole of a large page cost 0.2 ms), and in the whole page only when the
    head declares no title although the page's bytes name one."""
    declared: list[str] = []
    twitter: list[str] = []
    sites: list[str] = []
    document = tree.document
    if document is None:
        return TitleCandidates((), headings, title, ())
    head = tree.head
    metas = head.query_selector_all(_DECLARED_QUERY) if head is not None else []
    if not any((m.getattr("property") or m.getattr("name") or "").lower() in _TITLES for m in metas) and (
            b"og:title" in data or b"twitter:title" in data):
        metas = document.query_selector_all(_DECLARED_QUERY)
    for meta in metas:
        name = (meta.getattr("property") or meta.getattr("name") or "").strip().lower()
        content = " ".join((meta.getattr("content") or "").split())
        if not content:
            continue
        if name == "og:title":
            declared.append(content)
        elif name == "twitter:title":
            twitter.append(content)
        else:
            sites.append(content)
    declared += twitter
    # Lexbor's own search by attribute, a C loop: a CSS query for it cost as much as the
    # meta tags' over the whole page.
    for element in document.get_elements_by_attr("itemprop", "headline"):
        text = " ".join((element.getattr("content") or element.text or "").split())
        if text:
            declared.append(text)
            break
    return TitleCandidates(tuple(declared), headings, title, tuple(sites))


def headings_of(whole: str) -> tuple[tuple[str, str], ...]:
    """The page's visible <h1>, <h2> and <h3> headings, in order: (tag, text)."""
    return tuple((tag, text) for tag, inner in _HEADING.findall(whole)
                 if (text := _unescaped(" ".join(_TAG.sub(" ", inner).split()))))


def _unescaped(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group()], text) if "&" in text else text
