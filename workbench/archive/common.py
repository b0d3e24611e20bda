"""Small pieces shared by the readers: limits, byte counting, progress, wording."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from workbench.core.progress import ProgressFn
from workbench.core.records import SkipRecord

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

PAGE_LIMIT_BYTES = 50 * 1024 * 1024
CHUNK = 1024 * 1024
_REPORT_EVERY = 1024 * 1024


@dataclass(frozen=True, slots=True)
class SkippedInput(SkipRecord):
    """A skip record that knows more: the capture's URL, and whether the page was kept.

    ``page_kept``: this record is a note beside a page that was kept in part (a gzip file
    cut short, say); it says what was lost. The project stores what every skip record
    has (source, reason, offset); the CLI's skip report writes the URL too.
    """

    url: str | None = None
    page_kept: bool = False


def skipped(source: str, reason: str, offset: int | None = None, *, url: str | None = None,
            page_kept: bool = False) -> SkipRecord:
    """A skip record, with its URL and whether the page was kept when either is known."""
    if url is None and not page_kept:
        return SkipRecord(source, reason, offset)
    return SkippedInput(source, reason, offset, url, page_kept)


def mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


def too_large(size: int | None = None, *, after: str = "") -> str:
    what = f"larger than the {PAGE_LIMIT_BYTES // 2**20} MB page limit"
    if after:
        what += f" {after}"
    return what if size is None else f"{what} ({mb(size)})"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


class Counted(io.RawIOBase):
    """A read-only view of a binary stream that knows how far it has been read.

    ``tell()`` is the absolute position in the underlying file, so offsets that
    warcio derives from it are real file offsets even after a ``seek``.
    """

    def __init__(self, raw: BinaryIO, start: int = 0) -> None:
        super().__init__()
        self._raw = raw
        self.pos = start

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size if size is not None and size >= 0 else -1)
        self.pos += len(data)
        return data

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")  # io hands a bytearray or a memoryview of bytes
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def tell(self) -> int:
        return self.pos


@dataclass
class Opener:
    """How to open one input again: a file, or a member inside a WACZ (ZIP) file."""

    path: Path
    member: str | None = None

    @contextmanager
    def open(self) -> Iterator[BinaryIO]:
        if self.member is None:
            with open(self.path, "rb") as fh:
                yield fh
        else:
            import zipfile

            with zipfile.ZipFile(self.path) as zf, zf.open(self.member) as fh:
                # A ZipExtFile is an io.BufferedIOBase, which typing does not count as a
                # BinaryIO; it has every method the readers call on what Opener opens.
                yield fh  # type: ignore[misc]


class ByteStream(Protocol):
    """What the readers read from: an open file, a ZIP member, or a gzip, counting or
    bomb-guarding view of one (:class:`Counted`, ``bounds.InflateGuard``)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def tell(self) -> int: ...


class Positions(Protocol):
    """Where a reader reports how far into its input it is: :class:`Tracker`, or a worker's
    ``Meter`` (workbench.archive.worker)."""

    def at(self, pos: int, *, force: bool = False) -> None: ...


class Tracker:
    """Turns byte positions inside the current input into ``progress("read", done, total)``.

    Calls are throttled (about one per MB) and ``done`` never goes backwards.
    ``Cancelled`` raised by the callback propagates to the caller of ``scan``.
    """

    def __init__(self, progress: ProgressFn, total: int) -> None:
        self._progress = progress
        self.total = total
        self.base = 0  # bytes of the inputs finished before the current one
        self._size = 0  # size of the current input
        self._done = -1
        self._last = -(2 * _REPORT_EVERY)

    def start(self, size: int) -> None:
        self._size = max(size, 0)
        self.at(0, force=True)

    def at(self, pos: int, *, force: bool = False) -> None:
        done = min(self.base + max(0, min(pos, self._size)), self.total)
        if done <= self._done:
            return
        if force or done - self._last >= _REPORT_EVERY:
            self._done = done
            self._last = done
            self._progress("read", done, self.total)

    def finish(self) -> None:
        self.base += self._size
        self._size = 0
        self.at(0, force=True)

    def end(self) -> None:
        if self._done < self.total:
            self._done = self.total
            self._progress("read", self.total, self.total)
