"""Bounds on what one record may cost: the length of a header line, and how far compressed
data may inflate.

Both are about hostile or broken input, not about size as such: a WARC file of 50 GB is read
whole, at the speed of its bytes. But a header line has no business being longer than a
page's worth of text (warcio reads one by growing a byte string, so a 150 MB line cost over
ten minutes), and a few megabytes that inflate to gigabytes (a compression bomb) would make
a coder wait minutes for nothing. Each is stopped early with a reason that says what was met.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

from workbench.archive.common import PAGE_LIMIT_BYTES, ByteStream, mb

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

# Longest header line read (WARC, ARC or HTTP). Real ones are a few hundred bytes; the
# longest seen in practice (cookies, content security policies) stay well under this.
HEADER_LINE_LIMIT = 64 * 1024
# Most header bytes read line by line in a row (a record's WARC and HTTP headers, with the
# blank lines before them): a block of millions of short lines took seconds a megabyte.
HEADERS_LIMIT = 256 * 1024
# Compressed data is a bomb when it has inflated past INFLATE_FLOOR bytes at more than
# BOMB_RATIO bytes a compressed byte. Web pages and WARC headers inflate 3 to 15 times,
# and the most repetitive markup seldom 50; zeros inflate about 1,000 times. Below the
# floor nothing is judged, so a page of spaces a little over the page limit is still
# reported as such ("larger than the 50 MB page limit"); a bomb costs at most about the
# floor (0.1 to 0.2 s) whatever it would inflate to.
BOMB_RATIO = 100
INFLATE_FLOOR = 2 * PAGE_LIMIT_BYTES


def line_limit_text() -> str:
    return f"{HEADER_LINE_LIMIT // 1024} KiB"


def headers_limit_text() -> str:
    return f"{HEADERS_LIMIT // 1024} KiB"


class LineTooLong(Exception):
    """A line went past :data:`HEADER_LINE_LIMIT` bytes without ending, or (``block``) the
    lines read in a row past :data:`HEADERS_LIMIT`. ``start``: where the line (or the
    lines) start in the stream read (None when that is not known: inside a gzip member).
    ``between_records``: it was met after a record, where the next one should start."""

    def __init__(self, start: int | None, *, block: bool = False) -> None:
        limit = headers_limit_text() if block else line_limit_text()
        super().__init__(f"{'lines' if block else 'a line'} longer than {limit}")
        self.start = start
        self.block = block
        self.between_records = False


class CompressionBomb(Exception):
    """Compressed data inflated past the floor at more than the ratio: reading it stops."""

    def __init__(self, inflated: int, compressed: int) -> None:
        self.inflated = inflated
        self.compressed = compressed
        super().__init__(self.what())

    def what(self) -> str:
        return (f"{mb(self.inflated)} out of {_size(self.compressed)} of compressed data, "
                f"over {BOMB_RATIO} times as much")


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 2**20 else mb(n)


def is_bomb(inflated: int, compressed: int) -> bool:
    """Whether ``inflated`` bytes out of ``compressed`` bytes in make a compression bomb."""
    return inflated > INFLATE_FLOOR and inflated > BOMB_RATIO * max(compressed, 1)


def read_line(fill: Callable[[], BinaryIO | None], length: int | None,
              where: Callable[[], int | None], before: int = 0) -> bytes:
    """The rest of a line (``before`` bytes of it already read), from the buffers ``fill``
    hands over (None: the data ended), in time linear in its length, ending at ``length``
    more bytes if given.

    Raises :class:`LineTooLong` once the line passes :data:`HEADER_LINE_LIMIT` bytes, so a
    line is never held whole past that, whatever ``length`` allows; ``where()`` (asked only
    then) says where the unread bytes start, or None.
    """
    parts: list[bytes] = []
    size = before
    while length is None or size - before < length:
        if size > HEADER_LINE_LIMIT:  # (a buffer of inflated data may hold all of it)
            raise LineTooLong(back(where(), size))
        buff = fill()
        if buff is None:
            break
        piece = buff.readline(-1 if length is None else length - (size - before))
        parts.append(piece)
        size += len(piece)
        if piece.endswith(b"\n"):
            break
    if size > HEADER_LINE_LIMIT:
        raise LineTooLong(back(where(), size))
    return b"".join(parts)


def back(pos: int | None, n: int) -> int | None:
    """``n`` bytes before ``pos`` (None if ``pos`` is not known)."""
    return None if pos is None else pos - n


class InflateGuard(io.RawIOBase):
    """A read-only view of an inflating stream that raises :class:`CompressionBomb` when
    what came out, against ``compressed()`` bytes gone in, makes a bomb. ``tell()`` is the
    inflated stream's own."""

    def __init__(self, inflating: ByteStream, compressed: Callable[[], int]) -> None:
        super().__init__()
        self._inflating = inflating
        self._compressed = compressed
        self.inflated = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self._inflating.read(size if size is not None and size >= 0 else -1)
        self.inflated += len(data)
        if is_bomb(self.inflated, self._compressed()):
            raise CompressionBomb(self.inflated, self._compressed())
        return data

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")  # io hands a bytearray or a memoryview of bytes
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def tell(self) -> int:
        return self._inflating.tell()
