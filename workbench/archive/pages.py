"""Single-page files: HTML or text, plain or gzip-compressed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from workbench.archive.common import PAGE_LIMIT_BYTES, mb, skipped, too_large
from workbench.archive.inflate import gunzip
from workbench.archive.sniff import Sniffed
from workbench.core.records import RawPage, SkipRecord

# Internet Explorer's "Mark of the Web" left by browser "Save As": the page's address.
_SAVED_FROM = re.compile(rb"<!--\s*saved from url=\(\d+\)\s*([^\s>]+?)\s*-->", re.I)


def saved_from_url(data: bytes) -> str | None:
    match = _SAVED_FROM.search(data[:4096])
    if not match:
        return None
    return match.group(1).decode("ascii", errors="replace")


def read_page(path: Path, rel: str, size: int, found: Sniffed) -> RawPage | SkipRecord:
    """A plain HTML or text file, read whole (it is at most the page limit)."""
    if size > PAGE_LIMIT_BYTES:
        return SkipRecord(rel, too_large(size))
    try:
        with open(path, "rb") as fh:
            data = fh.read(PAGE_LIMIT_BYTES + 1)
    except OSError as exc:
        return SkipRecord(rel, f"cannot read: {exc.strerror or exc}")
    if len(data) > PAGE_LIMIT_BYTES:  # grew while we looked
        return SkipRecord(rel, too_large(len(data)))
    if not data:
        return SkipRecord(rel, "empty file")
    return RawPage(source=rel, data=data, url=saved_from_url(data), content_type=found.mime)


def read_gzip_page(path: Path, rel: str, inner: Sniffed) -> Iterator[RawPage | SkipRecord]:
    """A gzip-compressed page, decompressed up to the page limit (so a gzip bomb is harmless).

    A file cut short or damaged gives the page as far as it could be decompressed and a
    note saying how much was kept; only a file with nothing usable is skipped.
    """
    try:
        with open(path, "rb") as fh:
            got = gunzip(fh, PAGE_LIMIT_BYTES)
    except OSError as exc:
        yield SkipRecord(rel, f"cannot read: {exc.strerror or exc}")
        return
    if got.too_large:
        yield SkipRecord(rel, too_large(after="after decompression"))
        return
    data = got.data
    if got.cut_short:
        lost = "truncated gzip file: the compressed page ends"
    elif got.damage:
        lost = f"damaged gzip data ({got.damage})"
    else:
        lost = ""
    if not data:
        yield SkipRecord(rel, f"{lost} before any of it could be decompressed"
                         if got.cut_short else lost or "empty file (gzip-compressed)")
        return
    url = saved_from_url(data)
    yield RawPage(source=rel, data=data, url=url, content_type=inner.mime)
    if lost:
        early = " early" if got.cut_short else ""
        yield skipped(rel, f"{lost}{early}; kept the first {kept(len(data))}", url=url,
                      page_kept=True)


def kept(n: int) -> str:
    """How much of a page was kept: '7,363 bytes', '2.0 MB'."""
    return f"{n:,} bytes" if n < 2**20 else mb(n)
