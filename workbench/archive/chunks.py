"""One byte range of a large, healthy WARC file, so several workers can share the file.

A range holds the records that *start* inside it. A worker finds the first record at or
after the range's start by itself (a gzip member that opens with a WARC header, or a
``WARC/1.x`` line), reads records with the same code as :func:`~workbench.archive.warc.
read_archive` and stops at the first record that starts at or after the range's end,
reporting where that is. Whoever reads the file's ranges in order then checks that each
range began exactly where the one before it stopped: a false start (a WARC file stored
as a payload, say) cannot slip through.

Only clean reading is done here. Any damage, any doubt (an error, offsets that do not
grow, a gzip member holding several records) makes the range *unclean*, and the whole
file is then read again by ``read_archive`` itself, so that every damage report and
every skip reason stays exactly what it is when the file is read in one piece.

Gzip members are inflated by ISA-L (python-isal), about twice as fast as zlib on WARC
data and a drop-in for ``zlib.decompressobj``. Its errors are not ``zlib.error``: one
escapes the reader, and the range is unclean, which is what any damage should do here.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from isal import isal_zlib
from warcio.utils import BUFF_SIZE

from workbench.archive.common import CHUNK, ByteStream, Counted, Opener
from workbench.archive.sniff import SNIFF_BYTES, sniff

# Private pieces of the whole-file reader, used as they are so that a record read
# here becomes exactly the page or skip record it becomes there.
from workbench.archive.warc import (
    _GZIP_MEMBER,
    ReadState,
    RecordIterator,
    RecordReader,
    RevisitIndex,
    handle_record,
    warc_line_starts,
)
from workbench.core.records import RawPage, SkipRecord

# The first gzip member (the warcinfo record) must end within this many bytes for a file
# to count as gzipped record by record; a file gzipped as one stream is read whole.
_FIRST_MEMBER_LIMIT = 1024 * 1024
_FIRST_MEMBER_OUT = 16 * _FIRST_MEMBER_LIMIT
# Compressed bytes inflated to check that a gzip member found by its magic number opens
# with a WARC header.
_PROBE = 64 * 1024


@dataclass(slots=True)
class RangeEnd:
    """How reading a range ended.

    ``first``: offset of the first record read (None: no record starts in the range).
    ``next``: offset of the first record at or after the range's end (None: the file
    ended). ``clean``: no damage and no doubt. ``outputs``: pages and skip records the
    range gave (a file whose ranges gave none is read whole, for its "no web pages"
    report). ``empty``: no record starts in the range (one record of the range before runs
    through it), so it has nothing to join.
    """

    first: int | None
    next: int | None
    clean: bool
    outputs: int = 0
    empty: bool = False


def splittable(path: Path, head: bytes) -> bool | None:
    """Can this file be read in ranges? None: no; else whether it is gzipped record by record.

    Only WARC (not ARC, not WACZ) is split: plain, or gzipped one record per member.
    """
    found = sniff(head)
    if found.kind == "warc":
        return False
    if found.kind != "gzip":
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read(_FIRST_MEMBER_LIMIT)
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        # Bounded: a first member that inflates further is no small warcinfo record (and
        # may be a compression bomb); the file is then read whole, where bombs are stopped.
        inner = d.decompress(data, _FIRST_MEMBER_OUT)
    except (OSError, zlib.error):
        return None
    if sniff(inner[:SNIFF_BYTES]).kind != "warc":
        return None
    # Gzipped record by record: the first member ends early and another one follows it.
    return True if d.eof and d.unused_data.startswith(_GZIP_MEMBER) else None


def first_record(fh: BinaryIO, start: int, gzipped: bool, end: int | None = None) -> int | None:
    """Where the first record that starts at or after ``start`` (and before ``end``) seems
    to begin.

    Nothing past ``end`` is read: a range that one long record (or a long line) runs
    through would otherwise read on to that record's end, and every such range would read
    it again (a 150 MB header line cut in 16 MB ranges was read 1.3 GB in all).
    """
    stop = None if end is None else end + 64
    if gzipped:
        members = _positions(fh, start, len(_GZIP_MEMBER) - 1, _member_starts, stop)
        found = (pos for pos in members if _opens_a_record(fh, pos))
    else:
        # A record's "WARC/1.x" line follows a newline; look from one byte earlier to see it.
        lines = _positions(fh, max(start - 1, 0), 64, warc_line_starts, stop)
        found = (pos for pos in lines if pos >= start)
    pos = next(found, None)
    return None if pos is None or (end is not None and pos >= end) else pos


def _member_starts(hay: bytes) -> Iterator[int]:
    i = hay.find(_GZIP_MEMBER)
    while i >= 0:
        yield i
        i = hay.find(_GZIP_MEMBER, i + 1)


def _positions(fh: BinaryIO, at: int, overlap: int, find: Callable[[bytes], Iterator[int]],
               stop: int | None = None) -> Iterator[int]:
    """File positions from ``at`` on (up to ``stop``) where ``find`` matches, read a chunk at
    a time; the last ``overlap`` bytes of a chunk are searched again with the next, so no
    match is cut in two. The file is sought before every read (callers may read between
    matches)."""
    tail = b""
    while stop is None or at < stop:
        fh.seek(at)
        block = fh.read(CHUNK)
        if not block:
            return
        hay = tail + block
        base = at - len(tail)
        for i in find(hay):
            yield base + i
        tail = hay[-overlap:]
        at += len(block)


def _opens_a_record(fh: BinaryIO, pos: int) -> bool:
    fh.seek(pos)
    probe = fh.read(_PROBE)
    try:
        head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(probe, 64)
    except zlib.error:
        return False
    return head.lstrip(b"\r\n").startswith(b"WARC/")


class _IsalReader(RecordReader):
    """The whole-file reader's gzip-member reader, inflating with ISA-L (or not at all)."""

    def __init__(self, stream: ByteStream, gzipped: bool) -> None:
        super().__init__(stream, block_size=BUFF_SIZE)
        if not gzipped:
            # A plain range starts at a WARC header: warcio would try gzip on it, fail, and
            # read the bytes as they are; say so from the start.
            self.set_decomp(None)

    def _init_decomp(self, decomp_type: str | None) -> None:
        super()._init_decomp(decomp_type)
        if self.decompressor is not None and (decomp_type or "").lower() == "gzip":
            self.decompressor = isal_zlib.decompressobj(16 + isal_zlib.MAX_WBITS)


class _RangeIterator(RecordIterator):
    def __init__(self, fh: ByteStream, gzipped: bool) -> None:
        super().__init__(fh, "warc")
        self.reader = _IsalReader(self.fh, gzipped)


def read_range(
    path: Path,
    source: str,
    gzipped: bool,
    start: int,
    end: int,
    index: RevisitIndex,
    report: Callable[[int], None],
) -> Generator[RawPage | SkipRecord, None, RangeEnd]:
    """Yield the pages and skip records of the records that start in ``[start, end)``.

    Returns how the range ended; an unclean range's output must be thrown away.
    """
    st = ReadState(source, Opener(path), "warc", gzipped, report, index)
    with open(path, "rb") as fh:
        first = 0 if start == 0 else first_record(fh, start, gzipped, end)
        if first is None:
            return RangeEnd(None, None, True, empty=True)
        fh.seek(first)
        counted = Counted(fh, first)
        it = _RangeIterator(counted, gzipped)
        reader: RecordReader = it.reader
        records = iter(it)
        last = -1
        while True:
            report(counted.pos)
            try:
                rec = next(records)
            except StopIteration:
                break
            except Exception:  # noqa: BLE001 - damage: the whole-file reader says what it is
                return RangeEnd(first, None, False)
            offset = it.offset
            if offset <= last:
                return RangeEnd(first, None, False)
            if offset >= end:
                return RangeEnd(first, offset, True, st.outputs)
            last = offset
            try:
                damage = yield from handle_record(st, rec, offset, "raw", counted)
            except Exception:  # noqa: BLE001
                return RangeEnd(first, None, False)
            if damage is not None or reader.gzip_error:
                return RangeEnd(first, None, False)
            st.records += 1
        clean = not reader.gzip_error and not reader.truncated_member
        return RangeEnd(first, None, clean, st.outputs)
