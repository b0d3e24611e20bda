"""Hostile archives built on the fly: records with huge header lines, and compression bombs
(zeros streamed into the compressor a megabyte at a time, so a 300 MB bomb is a 300 KB file
and never exists inflated, on disk or in memory)."""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

Write = Callable[[bytes], object]
_ZEROS = bytes(2**20)


def record(uri: str, body: bytes = b"", *, warc_extra: bytes = b"", http_extra: bytes = b"",
           declared: int | None = None) -> bytes:
    """A WARC response record; ``declared`` is the payload length written in its header
    when the payload is written apart (:func:`zeros`)."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + http_extra + b"\r\n"
    size = len(http) + (len(body) if declared is None else declared)
    head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
            + warc_extra + b"WARC-Date: 2020-01-01T00:00:00Z\r\n"
            b"Content-Type: application/http; msgtype=response\r\n"
            b"Content-Length: %d\r\n\r\n" % size)
    if declared is not None:
        return head + http
    return head + http + body + b"\r\n\r\n"


def page(n: int) -> bytes:
    return f"<html><title>Story {n}</title><p>The council voted on story {n}.</p></html>".encode()


def zeros(write: Write, n: int) -> None:
    """Write ``n`` zero bytes (a whole number of megabytes) a megabyte at a time."""
    assert n % len(_ZEROS) == 0
    for _ in range(n // len(_ZEROS)):
        write(_ZEROS)


def gzip_member(fill: Callable[[Write], None]) -> bytes:
    """One gzip member holding what ``fill`` writes."""
    c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out: list[bytes] = []
    fill(lambda data: out.append(c.compress(data)))
    out.append(c.flush())
    return b"".join(out)


def bomb_record(uri: str, n: int) -> Callable[[Write], None]:
    """A record whose payload is ``n`` zero bytes, as a ``fill`` for :func:`gzip_member`."""
    def fill(write: Write) -> None:
        write(record(uri, declared=n))
        zeros(write, n)
        write(b"\r\n\r\n")
    return fill


def plain(data: bytes) -> Callable[[Write], None]:
    return lambda write: write(data)


def wacz(path: Path, members: dict[str, Callable[[Write], None]]) -> None:
    """A WACZ (ZIP) package whose members are deflated as they are written."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, fill in members.items():
            with zf.open(name, "w", force_zip64=True) as fh:
                fill(fh.write)
