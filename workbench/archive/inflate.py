"""Gzip data decompressed as far as it goes, so a page cut short keeps what it still holds.

``gzip.open`` raises at the end of a cut file and the caller loses everything read in
that call (the whole page, for a small one); ``zlib.decompressobj`` hands over what
it could decompress, and reports the end it did not reach.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import BinaryIO

from workbench.archive.common import CHUNK

_GZIP = 16 + zlib.MAX_WBITS
_MAGIC = b"\x1f\x8b"
_REPLAY = 64  # bytes fed at a time when finding how far damaged data decompresses


@dataclass(frozen=True, slots=True)
class Inflated:
    """What came out. ``cut_short``: the data ended inside the stream; ``damage``: why the
    rest could not be decompressed; ``too_large``: it went past the limit (``data`` is then
    empty)."""

    data: bytes
    cut_short: bool = False
    damage: str | None = None
    too_large: bool = False


def gunzip(fh: BinaryIO, limit: int) -> Inflated:
    """Decompress gzip data (one member or several, zero padding allowed) up to ``limit``
    bytes of output, keeping everything that precedes a cut or damage."""
    parts: list[bytes] = []
    size = 0
    d: zlib._Decompress | None = None  # None between members
    while chunk := fh.read(CHUNK):
        while chunk:
            if d is None:
                chunk = chunk.lstrip(b"\x00")  # padding after a member
                if not chunk:
                    break
                if not chunk.startswith(_MAGIC[: len(chunk)]):
                    return _damaged(parts, "not gzip data after the end of the compressed page")
                d = zlib.decompressobj(_GZIP)
            before = d.copy()
            try:
                out = d.decompress(chunk, limit + 1 - size)
            except zlib.error as exc:
                rest = _salvage(before, chunk, limit + 1 - size)
                if size + len(rest) > limit:
                    return Inflated(b"", too_large=True)
                return _damaged([*parts, rest], str(exc))
            parts.append(out)
            size += len(out)
            if size > limit:
                return Inflated(b"", too_large=True)
            if d.eof:
                chunk, d = d.unused_data, None
            else:
                chunk = b""
    if d is not None:
        parts.append(d.flush())
        return Inflated(b"".join(parts), cut_short=True)
    return Inflated(b"".join(parts))


def _damaged(parts: list[bytes], what: str) -> Inflated:
    return Inflated(b"".join(parts), damage=what)


def _salvage(d: zlib._Decompress, chunk: bytes, room: int) -> bytes:
    """The output of ``chunk`` up to (about) the byte where decompressing it fails, fed a
    few bytes at a time to a copy of the decompressor taken before it; at most ``room``
    bytes."""
    out: list[bytes] = []
    got = 0
    for at in range(0, len(chunk), _REPLAY):
        try:
            piece = d.decompress(chunk[at: at + _REPLAY], room - got)
        except zlib.error:
            break
        out.append(piece)
        got += len(piece)
        if got >= room:  # full: the caller reports the page as too large
            break
    return b"".join(out)
