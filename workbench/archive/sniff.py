"""Tell what a file (or a record payload) is from its first bytes, not from its name."""

from __future__ import annotations

import codecs
import re
import zlib
from dataclasses import dataclass

from workbench.text.decode import looks_utf16

SNIFF_BYTES = 16 * 1024

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")

# Compressions that a crawl may use but that we cannot read with the standard library
# (or that nobody uses for WARC): the reason names them so the archivist can convert.
_UNSUPPORTED_COMPRESSION = (
    (b"\x04\x22\x4d\x18", "LZ4"),
    (b"\x28\xb5\x2f\xfd", "Zstandard"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
)

# Magic numbers of common non-page files found in mirrors and "Save As" folders.
_BINARY_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"BM", None),  # bitmap: too short to trust alone, checked with the NUL test below
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
    (b"\x1aE\xdf\xa3", "video/webm"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
    (b"\x00\x01\x00\x00\x00", "font/ttf"),
    (b"OTTO", "font/otf"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"Rar!\x1a\x07", "application/vnd.rar"),
    (b"\x7fELF", "application/x-executable"),
    (b"SQLite format 3\x00", "application/vnd.sqlite3"),
    (b"CWS", None),
    (b"FWS", None),
    (b"{\\rtf", "application/rtf"),
)

# ARC v1 record line: URL, IP address, 14-digit date, MIME type, length.
_ARC_LINE = re.compile(rb"^\S+ \S+ \d{14} \S* \d+\r?\n")
_HTML_MARKERS = re.compile(
    r"<(?:!doctype\s+html|html|head|body|title|meta|frameset|p|div|table|h[1-6]|br|a\s)[\s>/]",
    re.I,
)
_XML_DECL = re.compile(r"^\s*<\?xml", re.I)
_SVG_OR_FEED = re.compile(r"<(svg|rss|feed|urlset|sitemapindex|rdf:rdf)[\s>]", re.I)

# Text files that are never pages in a mirror, known by their extension.
NON_PAGE_TEXT_EXT = {
    ".css": "text/css",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".map": "application/json",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".svg": "image/svg+xml",
    ".rss": "application/rss+xml",
    ".atom": "application/atom+xml",
    ".ics": "text/calendar",
    ".vcf": "text/vcard",
    ".srt": "text/srt",
    ".vtt": "text/vtt",
}

_CONTROL_BYTES = bytes([c for c in range(32) if c not in (9, 10, 12, 13, 27)] + [127])

_BOM_CODECS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True, slots=True)
class Sniffed:
    """What the bytes are.

    ``kind`` is one of ``warc``, ``arc``, ``gzip``, ``zip``, ``html``, ``text``,
    ``unsupported`` (a compression we cannot read) or ``binary`` (not a page);
    ``mime`` names the type for pages and binaries, ``detail`` the compression.
    """

    kind: str
    mime: str | None = None
    detail: str | None = None


def _head_text(head: bytes) -> str:
    for bom, enc in _BOM_CODECS:
        if head.startswith(bom):
            return head[len(bom) :].decode(enc, errors="replace")
    if looks_utf16(head):
        le = head[1::2].count(0) > head[0::2].count(0)
        return head.decode("utf-16-le" if le else "utf-16-be", errors="replace")
    return head.decode("latin-1")


def _is_textual(head: bytes) -> bool:
    if any(head.startswith(bom) for bom, _ in _BOM_CODECS) or looks_utf16(head):
        return True
    if b"\x00" in head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls <= max(2, len(head) // 100)


def sniff(head: bytes, suffix: str = "") -> Sniffed:
    """Classify ``head`` (the first bytes of a file or payload).

    ``suffix`` (the lower-cased extension, e.g. ``".css"``) only breaks ties for
    text that is not HTML: a stylesheet is text but never a page.
    """
    if not head:
        return Sniffed("empty")
    if head.startswith(GZIP_MAGIC):
        return Sniffed("gzip")
    if head.startswith(ZIP_MAGIC):
        return Sniffed("zip")
    for magic, name in _UNSUPPORTED_COMPRESSION:
        if head.startswith(magic):
            return Sniffed("unsupported", detail=name)
    stripped = head.lstrip(b"\r\n")
    if stripped.startswith(b"WARC/"):
        return Sniffed("warc")
    if stripped.startswith(b"filedesc://") or _ARC_LINE.match(stripped):
        return Sniffed("arc")
    if not _is_textual(head):
        for magic, mime in _BINARY_MAGIC:
            if mime and head.startswith(magic):
                return Sniffed("binary", mime)
        if head[4:8] == b"ftyp":
            return Sniffed("binary", "video/mp4")
        if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
            return Sniffed("binary", "image/webp")
        return Sniffed("binary", "application/octet-stream")
    for magic, mime in _BINARY_MAGIC:
        if mime and len(magic) >= 4 and head.startswith(magic):
            return Sniffed("binary", mime)
    text = _head_text(head)
    if _HTML_MARKERS.search(text):
        return Sniffed("html", "text/html")
    if _XML_DECL.match(text) or _SVG_OR_FEED.search(text):
        found = _SVG_OR_FEED.search(text)
        if found and found.group(1).lower() == "svg":
            return Sniffed("binary", "image/svg+xml")
        return Sniffed("binary", "application/xml")
    if suffix in NON_PAGE_TEXT_EXT:
        return Sniffed("binary", NON_PAGE_TEXT_EXT[suffix])
    return Sniffed("text", "text/plain")


def gunzip_head(data: bytes, limit: int = SNIFF_BYTES) -> bytes | None:
    """The first ``limit`` bytes inside gzip data, or None if they cannot be decompressed."""
    decomp = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = decomp.decompress(data, limit)
    except zlib.error:
        return None
    return out
