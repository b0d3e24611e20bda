"""Bytes to text: BOM, then the HTTP charset, then <meta>, then a detector."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

import charset_normalizer

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# <meta charset="x"> and <meta http-equiv="Content-Type" content="text/html; charset=x">,
# searched only in the head of the page as browsers do.
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_SNIFF_BYTES = 4096

# Labels that pages declare but that browsers read as a superset (WHATWG encoding spec).
_SUPERSETS = {
    "iso-8859-1": "windows-1252",
    "latin1": "windows-1252",
    "latin-1": "windows-1252",
    "us-ascii": "windows-1252",
    "ascii": "windows-1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "big5": "big5hkscs",
    "shift_jis": "cp932",
    "x-sjis": "cp932",
}


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    encoding: str  # the codec actually used
    source: str  # "bom", "http", "meta", "detected" or "fallback"


def normalise_label(label: str | None) -> str | None:
    """A Python codec name for a declared charset label, or None if unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _SUPERSETS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def decode_bytes(data: bytes, http_charset: str | None = None) -> Decoded:
    """Decode page bytes the way a careful browser would.

    A declared charset that does not fit the bytes is not trusted blindly: the
    detector gets a say before we fall back to a lossy decode.
    """
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return Decoded(data[len(bom) :].decode(enc, errors="replace"), enc, "bom")
    declared: list[tuple[str, str]] = []
    if (enc := normalise_label(http_charset)) is not None:
        declared.append((enc, "http"))
    match = _META_CHARSET.search(data[:_SNIFF_BYTES])
    if match and (enc := normalise_label(match.group(1).decode("ascii", "ignore"))) is not None:
        # A page saved as UTF-16 cannot declare itself in ASCII bytes; ignore such claims.
        if not enc.startswith("utf-16") and not enc.startswith("utf-32"):
            declared.append((enc, "meta"))
    for enc, how in declared:
        text = _strict(data, enc)
        if text is not None:
            return Decoded(text, enc, how)
    text = _strict(data, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8", "detected")
    best = charset_normalizer.from_bytes(data[:200_000]).best()
    if best is not None and best.encoding:
        enc = normalise_label(best.encoding) or best.encoding
        return Decoded(data.decode(enc, errors="replace"), enc, "detected")
    enc = declared[0][0] if declared else "windows-1252"
    return Decoded(data.decode(enc, errors="replace"), enc, "fallback")
