"""Bytes to text: BOM, then the HTTP charset, then <meta>, then a detector.

The order is the one browsers use. Declarations are checked against the bytes:
a page whose ``<meta>`` says UTF-8 but that a browser re-saved as windows-1252
(common in "Save As" folders) is not turned into replacement characters; UTF-16 without
a BOM is known by its zero bytes whatever is declared; and a page declared in a single-byte
charset whose bytes read as Japanese, Chinese or Korean (a Shift-JIS page left with a
windows-1252 ``<meta>``) is not turned into windows-1252 garbage.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

import charset_normalizer
from resiliparse.parse.encoding import detect_encoding

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# <meta charset="x"> and <meta http-equiv="Content-Type" content="text/html; charset=x">.
# Browsers look only at the first 1024 bytes; saved pages of 2006 often carry long
# scripts before the <meta>, so we look further (the declaration is still checked).
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""", re.I)
_SNIFF_BYTES = 32 * 1024
_DETECT_BYTES = 200_000

# Labels that pages declare but that browsers read as a superset (WHATWG encoding
# spec), keyed by Python's canonical codec name.
_SUPERSETS = {
    "latin-1": "cp1252",
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc_kr": "cp949",
    "shift_jis": "cp932",
    "big5": "big5hkscs",
}
# Label spellings that Python does not know but pages use.
_ALIASES = {
    "x-sjis": "shift_jis",
    "x-euc-jp": "euc_jp",
    "ks_c_5601-1987": "euc_kr",
    "windows-31j": "cp932",
    "x-gbk": "gbk",
    "x-mac-roman": "mac_roman",
    "unicode-1-1-utf-8": "utf-8",
    "utf8": "utf-8",
    "x-user-defined": "cp1252",
}
# Single-byte code pages that a detector may pick for a mostly-English page with a
# handful of bytes such as (c) or a curly quote; the web almost never used them.
_HIGH_BYTES = bytes(range(128, 256))
_HIGH_RUN = re.compile(rb"[\x80-\xff]{2,}")
# Multi-byte encodings of East Asian scripts, as normalise_label names them.
_EAST_ASIAN = {"cp932", "euc_jp", "iso2022_jp", "gb18030", "big5hkscs", "cp949", "iso2022_kr"}
_DOS_PAGES = {"cp437", "cp850", "cp852", "cp775", "cp858", "cp860", "cp863", "cp865"}
_LATIN_PAGES = {"cp1250", "cp1254", "cp1257", "cp1258", "iso8859-2", "iso8859-15", "mac-roman",
                "mac-latin2", "iso8859-13", "iso8859-4", "iso8859-10", "iso8859-16"}


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    encoding: str  # the codec actually used
    source: str  # "bom", "http", "meta", "detected" or "fallback"


def normalise_label(label: str | None) -> str | None:
    """A Python codec name for a declared charset label, or None if unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").strip().lower()
    label = _ALIASES.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return _SUPERSETS.get(name, name)


# Bytes that Python's cp1252 leaves undefined but browsers map to C1 controls.
_CP1252_HOLES = {0xDC00 + b: b for b in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        if encoding == "cp1252":
            text = data.decode("cp1252", errors="surrogateescape")
            return text.translate(_CP1252_HOLES)
        return None
    except LookupError:
        return None


def _single_byte(encoding: str) -> bool:
    try:
        return len("\u00e9".encode(encoding, errors="replace")) == 1 and encoding != "utf-8"
    except LookupError:
        return False


def _utf8_with_multibyte(data: bytes) -> str | None:
    """The text if ``data`` is valid UTF-8 with non-ASCII characters, else None.

    Valid UTF-8 that uses multi-byte sequences almost never happens by accident
    in a single-byte encoding, so it beats a declared single-byte charset (a
    server default of ISO-8859-1, or a page re-saved in UTF-8 keeping its old <meta>).
    """
    if data.isascii():
        return None
    return _strict(data, "utf-8")


def _mostly_utf8(data: bytes) -> str | None:
    """UTF-8 text with a few bad bytes (a page edited in two editors), or None.

    Accepted when the valid multi-byte characters clearly outnumber the bad bytes.
    """
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    good = len(text) - len(text.encode("ascii", "ignore")) - bad  # non-ASCII characters, at C speed
    return text if good >= 4 * bad and good > 0 else None


def declared_charsets(data: bytes, http_charset: str | None = None) -> list[tuple[str, str]]:
    """(codec, where) for each usable declaration, in the order browsers trust them."""
    declared: list[tuple[str, str]] = []
    if (enc := normalise_label(http_charset)) is not None:
        declared.append((enc, "http"))
    head = data[:_SNIFF_BYTES]
    for pattern in (_XML_ENCODING, _META_CHARSET):
        match = pattern.search(head)
        if not match:
            continue
        enc = normalise_label(match.group(1).decode("ascii", "ignore"))
        # A page in ASCII-compatible bytes cannot be UTF-16/32: ignore such claims.
        if enc is not None and not enc.startswith(("utf-16", "utf-32")):
            declared.append((enc, "meta"))
            break
    return declared


def _detect(data: bytes) -> str | None:
    high = len(data) - len(data.translate(None, _HIGH_BYTES))
    if high <= max(20, len(data) // 300) and _strict(data, "cp1252") is not None:
        # Mostly ASCII with a few stray bytes (a (c), a curly quote, an n-tilde): this is
        # what windows-1252 pages look like, and no detector can do better on so little.
        return "cp1252"
    best = charset_normalizer.from_bytes(data[:_DETECT_BYTES]).best()
    if best is None or not best.encoding:
        return None
    enc = normalise_label(best.encoding) or best.encoding
    if enc in _DOS_PAGES or enc in _LATIN_PAGES:
        # Prefer windows-1252 when it reads the bytes just as well: the detector
        # often cannot tell Western code pages apart on a few accented bytes.
        # A page in a Central European language has many accented letters; an
        # English page with a stray (c) or n-tilde has a few, and is windows-1252.
        equivalent = {normalise_label(e) for e in best.could_be_from_charset}
        if ("cp1252" in equivalent or enc in _DOS_PAGES) and _strict(
            data, "cp1252"
        ) is not None:
            return "cp1252"
    return enc


def decode_bytes(data: bytes, http_charset: str | None = None) -> Decoded:
    """Decode page bytes the way a careful browser would.

    A declared charset that does not fit the bytes is not trusted blindly: the
    detector gets a say before we fall back to a lossy decode.
    """
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return Decoded(data[len(bom) :].decode(enc, errors="replace"), enc, "bom")
    if (utf16 := utf16_codec(data)) is not None:
        # Markup in ASCII-compatible bytes has no NUL bytes at all: whatever a header or a
        # <meta> (found between the NULs) declares, these bytes are UTF-16.
        return Decoded(data.decode(utf16, errors="replace"), utf16, "detected")
    declared = declared_charsets(data, http_charset)
    if declared and _single_byte(declared[0][0]):
        if text := _utf8_with_multibyte(data):
            return Decoded(text, "utf-8", "detected")
        if (found := _east_asian_instead(data)) is not None:
            return found
    for enc, how in declared:
        text = _strict(data, enc)
        if text is not None:
            return Decoded(text, enc, how)
    for enc, how in declared:
        if enc == "utf-8" and (text := _mostly_utf8(data)) is not None:
            return Decoded(text, enc, how)
    text = _strict(data, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8", "detected")
    detected = _detect(data)
    if detected is not None:
        try:
            return Decoded(data.decode(detected, errors="replace"), detected, "detected")
        except LookupError:
            pass
    enc = declared[0][0] if declared else "cp1252"
    return Decoded(data.decode(enc, errors="replace"), enc, "fallback")


def _east_asian_instead(data: bytes) -> Decoded | None:
    """A Japanese, Chinese or Korean encoding for bytes declared in a single-byte charset,
    when they are plainly in one; else None.

    Only asked when the bytes look it: many bytes above 127 (1 % of the page at least), most
    of them next to another (every character of these scripts is two bytes above 127, or
    more; in Latin-script text such bytes stand alone, "café"). Then uchardet (Mozilla's
    detector, through resiliparse) must name such an encoding, and the whole page must
    decode in it without an error. A Cyrillic or Greek page runs its bytes together too, but
    the detector names its own single-byte code page, and the declaration stands.
    """
    sample = data[:_DETECT_BYTES]
    high = len(sample) - len(sample.translate(None, _HIGH_BYTES))
    if high < 64 or high * 100 < len(sample):
        return None
    if 2 * sum(map(len, _HIGH_RUN.findall(sample))) < high:
        return None
    enc = normalise_label(detect_encoding(sample, max_len=_DETECT_BYTES, html5_compatible=False))
    if enc not in _EAST_ASIAN or (text := _strict(data, enc)) is None:
        return None
    return Decoded(text, enc, "detected")


# Characters that text has almost never: C0 and C1 controls, and undecodable units.
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")
_UTF16_SAMPLE = 4096


def utf16_codec(data: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` for UTF-16 text without a BOM, else None.

    Markup, spaces and digits are ASCII, and an ASCII character in UTF-16 has a zero byte:
    at odd offsets in little-endian, even ones in big-endian. Text in any script has such
    characters; the other side's bytes are rarely zero (U+3000, U+4E00...). What the sample
    then reads as must be text: hardly any control characters, which 16-bit numbers or other
    binary data with a similar pattern of zeros are full of.
    """
    sample = data[:_UTF16_SAMPLE]
    sample = sample[: len(sample) // 2 * 2]
    units = len(sample) // 2
    if units < 8:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd >= 0.05 * units and even * 2 <= odd:
        enc = "utf-16-le"
    elif even >= 0.05 * units and odd * 2 <= even:
        enc = "utf-16-be"
    else:
        return None
    odd_ones = len(_NOT_TEXT.findall(sample.decode(enc, errors="replace")))
    return enc if odd_ones <= max(1, units // 100) else None


def looks_utf16(data: bytes) -> bool:
    """Whether ``data`` is UTF-16 text without a BOM (see :func:`utf16_codec`)."""
    return utf16_codec(data) is not None
