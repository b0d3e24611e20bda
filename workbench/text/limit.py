"""How much of one page is read: a bound on its markup, so that a page's memory is bounded.

Parsing costs memory in proportion to the markup: Lexbor's tree, the page's text as
resiliparse writes it (for the whole page and for its main content), a Python object per
block, a token per word. Measured (when lxml's tree and resiliparse's were both built) per
byte of markup, from 30 bytes (long paragraphs) to 90 (a ``<p>`` per word, a cell per
word); a 45 MB page of tiny elements took 3 GB, and two such pages in two workers 5.8 GB.
So a page reads at most ``MARKUP_LIMIT_BYTES`` of markup: first without its scripts,
stylesheets and comments (invisible, and most of the bytes of many large modern pages), then,
if it is still larger, up to the last tag that starts within the limit. The largest page of
the shared data (1.5 MB) is far below it; at 90 bytes a byte, two workers and the main
process stay under 1 GB (benchmarks/bench_page_memory.py).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from workbench.text.decode import utf16_codec

MARKUP_LIMIT_BYTES = 2 * 2**20
_NOTE_START = "only the first "  # of the note on a page read only in part (is_markup_cut)

# A tag that opens content nobody sees, and what ends each (as a browser ends it: the first
# closing tag, whatever the script's own text says).
_HIDDEN_START = re.compile(rb"<(script|style)\b|<!--", re.I)
_HIDDEN_END = {
    b"script": re.compile(rb"</script\s*>", re.I),
    b"style": re.compile(rb"</style\s*>", re.I),
    None: re.compile(rb"-->"),
}
# How far back from the limit a tag start or a space is looked for to cut at.
_CUT_WINDOW = 64 * 1024
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, 4), (codecs.BOM_UTF32_BE, 4), (codecs.BOM_UTF16_LE, 2),
              (codecs.BOM_UTF16_BE, 2))


@dataclass(frozen=True, slots=True)
class Bounded:
    data: bytes  # what is read: the page's bytes, or the part of them within the limit
    note: str | None = None  # what was left unread, for the person at the keyboard


def bounded(data: bytes, html: bool, limit: int = MARKUP_LIMIT_BYTES) -> Bounded:
    """The part of a page's bytes that is read (all of them unless it is over ``limit``)."""
    if len(data) <= limit:
        return Bounded(data)
    unit = _code_unit(data)
    kept = _without_hidden(data) if html and unit == 1 else data
    if len(kept) <= limit:
        return Bounded(kept)
    cut = _cut_at(kept, limit, unit)
    what = "markup" if html else "text"
    left_out = "; its scripts, stylesheets and comments were left out first" if kept is not data else ""
    return Bounded(kept[:cut], f"{_NOTE_START}{_mb(cut)} of this page's {_mb(len(data))} of {what} "
                   f"were read (at most {_mb(limit)} of a page is{left_out})")


def is_markup_cut(reason: str) -> bool:
    """Whether a note beside a kept page is this limit's (not the archive readers' notes on
    compressed data cut short or damaged), so a summary can count each for what it is."""
    return reason.startswith(_NOTE_START) and " of this page's " in reason


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


def _code_unit(data: bytes) -> int:
    """Bytes per code unit: 2 or 4 for UTF-16 and UTF-32, else 1 (ASCII-compatible)."""
    for bom, width in _WIDE_BOMS:
        if data.startswith(bom):
            return width
    return 2 if utf16_codec(data) is not None else 1


def _without_hidden(data: bytes) -> bytes:
    """The bytes without the content of scripts, stylesheets and comments.

    A linear scan: each search starts where the last one ended, and an element left open runs
    to the end of the page (as in a browser), so no page can make this quadratic.
    """
    kept: list[bytes] = []
    pos = 0
    while (start := _HIDDEN_START.search(data, pos)) is not None:
        kept.append(data[pos : start.start()])
        tag = start.group(1)
        end = _HIDDEN_END[tag.lower() if tag else None].search(data, start.end())
        if end is None:
            return b"".join(kept)
        pos = end.end()
    if not kept:
        return data
    kept.append(data[pos:])
    return b"".join(kept)


def _cut_at(data: bytes, limit: int, unit: int) -> int:
    """Where to cut ``data`` at most ``limit`` bytes in, never inside a character.

    In ASCII-compatible bytes, before the last ``<`` in the window (a tag boundary; no
    multi-byte encoding of the web uses that byte inside a character), else after the last
    space, else before the last UTF-8 lead byte. In UTF-16 and UTF-32, at a code unit.
    """
    if unit > 1:
        return limit - limit % unit
    window = max(0, limit - _CUT_WINDOW)
    tag = data.rfind(b"<", window, limit)
    if tag > 0:
        return tag
    space = max(data.rfind(c, window, limit) for c in (b" ", b"\n", b"\t", b"\r"))
    if space > 0:
        return space + 1
    cut = limit
    while cut > limit - 4 and 0x80 <= data[cut] < 0xC0:  # a UTF-8 continuation byte
        cut -= 1
    return cut
