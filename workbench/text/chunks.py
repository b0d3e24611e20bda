"""The blocks of a page's visible text in one compiled pass over it.

resiliparse writes a page's visible text as "minimal HTML" (see below), which is read as
the visible text with markers in it: a break between two layout blocks, and the opening
and closing of each link. A block is the text between two
breaks without the link markers, its whitespace collapsed (one space between words, none at
either end); blocks with no text are left out. Its words are its whitespace-separated runs
(in a script written without spaces, at least one word per two of its characters), and its
link words those of its pieces inside links, a piece ending at a marker.

Block by block in Python that cost several string operations a block, and collapsing the
whitespace made a Python string of every word of the page: a sixth of a small page's
extraction. Here one loop compiled with numba (the project's JIT compiler) reads the page's
UTF-16 code units once; whitespace and the scripts written without spaces are looked up in
tables of all 65,536 units, built from ``str.isspace`` so that the whitespace is exactly
what ``str.split()`` splits at.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Private-use characters as markers (a page's own are replaced before it is read).
LINK_OPEN, LINK_CLOSE, BREAK = "\ue000", "\ue001", "\ue002"

# Scripts written without spaces between words: Thai, Japanese kana, CJK ideographs (all in
# the Basic Multilingual Plane, so each is one UTF-16 unit).
UNSPACED_RANGES = ((0x0E00, 0x0E7F), (0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))

# What each UTF-16 unit is: whitespace as str.split() takes it (a surrogate, half of a
# character beyond the Basic Multilingual Plane, never is), a character of a script written
# without spaces, a marker; anything else is part of a word.
_WORD, _UNSPACED, _SPACE, _OPEN, _CLOSE, _BREAK = range(6)  # the first two make words
_KIND = np.full(0x10000, _WORD, dtype=np.uint8)
_KIND[[unit for unit in range(0x10000) if chr(unit).isspace()]] = _SPACE
for _first, _last in UNSPACED_RANGES:
    _KIND[_first : _last + 1] = _UNSPACED
_KIND[[ord(LINK_OPEN), ord(LINK_CLOSE), ord(BREAK)]] = (_OPEN, _CLOSE, _BREAK)
_NEWLINE = ord("\n")
_SPACE_UNIT = ord(" ")


@njit(cache=True, nogil=True)
def _scan(units: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The blocks' texts, each followed by a newline, the number of units of that, and each
    block's words and link words; a count of -1 when a link opens inside a link."""
    n = len(units)
    out = np.empty(n + 1, dtype=np.uint16)
    block_words = np.empty(n + 1, dtype=np.int64)
    block_links = np.empty(n + 1, dtype=np.int64)
    at = 0  # units written
    blocks = 0
    in_link = False
    text_words = 0  # whitespace-separated runs of the block so far
    unspaced = 0  # its characters of scripts written without spaces
    links = 0  # its link words so far, pieces ended
    piece_words = 0  # the current piece's runs (a piece ends at a marker or a break)
    piece_unspaced = 0
    after_space = True  # the last unit (markers aside) was whitespace or a break
    piece_start = True  # the last unit was whitespace, a break or a marker
    has_text = False
    space_due = False  # a space goes before the block's next word
    for k in range(n + 1):
        what = kind[units[k]] if k < n else _BREAK
        if what <= _UNSPACED:  # part of a word
            if after_space:
                text_words += 1
                if space_due:
                    out[at] = _SPACE_UNIT
                    at += 1
            if piece_start:
                piece_words += 1
            if what == _UNSPACED:
                unspaced += 1
                piece_unspaced += 1
            out[at] = units[k]
            at += 1
            has_text = True
            space_due = False
            after_space = False
            piece_start = False
            continue
        if what == _SPACE:
            after_space = True
            piece_start = True
            space_due = has_text
            continue
        # A marker or a break ends the piece.
        if in_link:
            links += max(piece_words, piece_unspaced // 2)
        piece_words = 0
        piece_unspaced = 0
        piece_start = True
        if what == _OPEN:
            if in_link:
                return out, -1, block_words, block_links
            in_link = True
        elif what == _CLOSE:
            in_link = False
        else:  # a break: the block ends
            if has_text:
                words = max(text_words, unspaced // 2)
                block_words[blocks] = words
                block_links[blocks] = min(links, words)
                blocks += 1
                out[at] = _NEWLINE
                at += 1
            text_words = 0
            unspaced = 0
            links = 0
            has_text = False
            space_due = False
            after_space = True
    return out, at, block_words[:blocks], block_links[:blocks]


# resiliparse's "minimal HTML" text (workbench.text.lexbor): the visible text, one layout
# block a line, a table row's cells apart by tabs, with a few tags left in (headings,
# paragraphs, lists, <pre>, <br>, and links) and &, <, > and " escaped. It is turned into the
# marked text _scan reads, in the same compiled loop: a link's tags become link markers, <br>
# (and the line end resiliparse writes after it) a space, any other tag, a line end or a tab
# a break; the five escapes are read back.
_LT, _GT, _AMP, _QUOTE, _TAB = ord("<"), ord(">"), ord("&"), ord('"'), ord("\t")
_SLASH, _LOWER_A, _LOWER_B, _LOWER_R = ord("/"), ord("a"), ord("b"), ord("r")
_ESCAPES = (("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"))
_ESCAPE_UNITS = np.zeros((len(_ESCAPES), 6), dtype=np.uint16)  # each escape, 0-padded
_ESCAPE_LENGTHS = np.array([len(e) for e, _ in _ESCAPES], dtype=np.int64)
_ESCAPED = np.array([ord(c) for _, c in _ESCAPES], dtype=np.uint16)
for _k, (_escape, _) in enumerate(_ESCAPES):
    _ESCAPE_UNITS[_k, : len(_escape)] = [ord(c) for c in _escape]


def minimal_html_chunks(minimal: str) -> tuple[list[str], list[int], list[int]]:
    """The text, words and link words of every block of resiliparse's minimal-HTML text of a
    page (see above) whose text is not empty, in order."""
    units = np.frombuffer(minimal.encode("utf-16-le", "surrogatepass"), dtype="<u2")
    out, count, words, links = _scan_minimal(units, _KIND, _ESCAPE_UNITS, _ESCAPE_LENGTHS, _ESCAPED)
    if count < 0:  # a link inside a link, which _marked never writes
        raise ValueError("links nested in the marked text")
    texts = out[:count].tobytes().decode("utf-16-le", "surrogatepass").split("\n")
    texts.pop()  # every block ends with a newline
    return texts, words.tolist(), links.tolist()


@njit(cache=True, nogil=True)
def _scan_minimal(units: np.ndarray, kind: np.ndarray, escapes: np.ndarray, lengths: np.ndarray,
                  escaped: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    return _scan(_marked(units, escapes, lengths, escaped), kind)


@njit(cache=True, nogil=True)
def _marked(units: np.ndarray, escapes: np.ndarray, lengths: np.ndarray, escaped: np.ndarray) -> np.ndarray:
    """The minimal-HTML text as the marked text _scan reads (never longer than it).

    resiliparse writes no end tag for a link with nothing in it (``<a href=x></a>`` comes
    out as ``<a href="x">``), so a link is only opened when its end tag comes before the
    next link's start; an end tag of no open link is passed over."""
    n = len(units)
    out = np.empty(n, dtype=np.uint16)
    at = 0
    in_link = False
    k = 0
    while k < n:
        unit = units[k]
        if unit == _LT:
            end = k + 1  # the tag's '>', outside its quoted attribute values
            quoted = False
            while end < n and (quoted or units[end] != _GT):
                if units[end] == _QUOTE:
                    quoted = not quoted
                end += 1
            first = units[k + 1] if k + 1 < n else 0
            second = units[k + 2] if k + 2 < n else 0
            third = units[k + 3] if k + 3 < n else 0
            if first == _LOWER_A and second in (_GT, _SPACE_UNIT):
                if not in_link and _closed(units, end + 1):
                    out[at] = _OPEN_UNIT
                    at += 1
                    in_link = True
                k = end + 1
                continue
            if first == _SLASH and second == _LOWER_A and third == _GT:
                if in_link:
                    out[at] = _CLOSE_UNIT
                    at += 1
                    in_link = False
                k = end + 1
                continue
            if first == _LOWER_B and second == _LOWER_R and third == _GT:
                out[at] = _SPACE_UNIT
                if end + 1 < n and units[end + 1] == _NEWLINE:
                    end += 1
            else:
                out[at] = _BREAK_UNIT
            at += 1
            k = end + 1
            continue
        if unit == _AMP:
            found = -1
            for e in range(len(lengths)):
                length = lengths[e]
                if k + length <= n:
                    same = True
                    for j in range(length):
                        if units[k + j] != escapes[e, j]:
                            same = False
                            break
                    if same:
                        found = e
                        break
            if found >= 0:
                out[at] = escaped[found]
                at += 1
                k += lengths[found]
                continue
        if unit in (_NEWLINE, _TAB):
            out[at] = _BREAK_UNIT
        elif _OPEN_UNIT <= unit <= _BREAK_UNIT:  # the page's own marker characters: no markers
            out[at] = _SPACE_UNIT
        else:
            out[at] = unit
        at += 1
        k += 1
    return out[:at]


@njit(cache=True, nogil=True)
def _closed(units: np.ndarray, k: int) -> bool:
    """Whether a link's end tag comes at or after ``k`` before any link's start tag."""
    n = len(units)
    while k < n - 3:
        if units[k] == _LT:
            if units[k + 1] == _SLASH and units[k + 2] == _LOWER_A and units[k + 3] == _GT:
                return True
            if units[k + 1] == _LOWER_A and units[k + 2] in (_GT, _SPACE_UNIT):
                return False
        k += 1
    return False


_OPEN_UNIT, _CLOSE_UNIT, _BREAK_UNIT = ord(LINK_OPEN), ord(LINK_CLOSE), ord(BREAK)
