"""Single-page files: HTML or text, plain or gzip-compressed."""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

from workbench.archive.common import CHUNK, PAGE_LIMIT_BYTES, mb, too_large
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


def read_gzip_page(path: Path, rel: str, inner: Sniffed) -> RawPage | SkipRecord:
    """A gzip-compressed page, decompressed up to the page limit (so a gzip bomb is harmless)."""
    parts: list[bytes] = []
    size = 0
    try:
        with gzip.open(path, "rb") as gz:
            while True:
                block = gz.read(CHUNK)
                if not block:
                    break
                size += len(block)
                if size > PAGE_LIMIT_BYTES:
                    return SkipRecord(rel, too_large(after="after decompression"))
                parts.append(block)
    except EOFError:
        return SkipRecord(rel, f"truncated gzip file: the page ends early (after {mb(size)} "
                          "of text)" if size >= 2**20 else
                          f"truncated gzip file: the page ends early (after {size:,} bytes)")
    except (gzip.BadGzipFile, zlib.error) as exc:
        return SkipRecord(rel, f"damaged gzip data after {size:,} bytes ({exc})")
    except OSError as exc:
        return SkipRecord(rel, f"cannot read: {exc.strerror or exc}")
    data = b"".join(parts)
    if not data:
        return SkipRecord(rel, "empty file (gzip-compressed)")
    return RawPage(source=rel, data=data, url=saved_from_url(data), content_type=inner.mime)
