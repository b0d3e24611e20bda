"""WARC and ARC files (plain, gzipped per record, or gzipped whole) through warcio.

warcio parses the records; this module adds what a coder's tool needs around it:
it notices damage (truncated or corrupt gzip members, records cut short,
unparseable headers) and says where, keeps every record before the damage,
resynchronises at the next record when it can, and never lets an exception out.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import re
import zlib
from collections import Counter
from collections.abc import Callable, Generator, Iterator, MutableMapping
from dataclasses import dataclass, field
from io import BytesIO
from typing import BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader, ChunkedDataReader, DecompressingBufferedReader
from warcio.limitreader import LimitReader
from warcio.recordloader import ArcWarcRecord, ArcWarcRecordLoader
from warcio.statusandheaders import StatusAndHeaders
from warcio.utils import BUFF_SIZE

from workbench.archive.bounds import (
    HEADER_LINE_LIMIT,
    HEADERS_LIMIT,
    CompressionBomb,
    InflateGuard,
    LineTooLong,
    back,
    headers_limit_text,
    is_bomb,
    line_limit_text,
    read_line,
)
from workbench.archive.common import (
    CHUNK,
    PAGE_LIMIT_BYTES,
    ByteStream,
    Counted,
    Opener,
    SkippedInput,
    plural,
    skipped,
    too_large,
)
from workbench.archive.pages import kept
from workbench.archive.sniff import SNIFF_BYTES, sniff
from workbench.core.records import RawPage, SkipRecord

# Media types whose payload is a page; anything else in a response is "not a web page".
PAGE_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml", "text/plain"}
)
# Types that say nothing about the payload: the bytes decide.
VAGUE_TYPES = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "unknown/unknown",
        "application/unknown",
        "application/x-unknown",
        "application/http",
        "text/unknown",
    }
)
_IGNORED_SCHEMES = ("dns:", "whois:", "ntp:", "filedesc:", "metadata:")
_MAX_RESYNCS = 200
_GZIP_MEMBER = b"\x1f\x8b\x08"
_WARC_LINE = re.compile(rb"WARC/[01]\.\d+\r?\n")
_ARC_START = re.compile(rb"\n(\S+ \S+ \d{14} \S+ \d+\r?\n)")

Report = Callable[[int], None]
# What reading one archive (or one pass over it) yields, and returns: the damage that
# stopped it, or None at its end.
Reading = Generator[RawPage | SkipRecord, None, "_Damage | None"]


def warc_line_starts(hay: bytes) -> Iterator[int]:
    """Where a ``WARC/1.x`` line starts in ``hay`` (at its start or after a newline).

    Candidates are found with ``bytes.find`` (1.6 GB/s) rather than one regular expression
    over every byte (60 MB/s, which made looking through a long line the costliest part of
    reading it)."""
    i = hay.find(b"WARC/")
    while i >= 0:
        if (i == 0 or hay[i - 1] == 0x0A) and _WARC_LINE.match(hay, i):
            yield i
        i = hay.find(b"WARC/", i + 1)


def split_content_type(value: str | None) -> tuple[str, str | None]:
    """``"text/html; charset=UTF-8"`` -> ``("text/html", "UTF-8")``."""
    if not value:
        return "", None
    parts = value.split(";")
    media = parts[0].strip().lower()
    charset = None
    for part in parts[1:]:
        name, _, val = part.partition("=")
        if name.strip().lower() == "charset":
            charset = val.strip().strip("\"'").strip() or None
    return media, charset


def normalise_digest(value: str | None) -> str | None:
    """``sha1:BASE32`` or ``sha1:hex`` -> one comparable form (algorithm + hex)."""
    if not value or ":" not in value:
        return None
    algo, _, text = value.strip().partition(":")
    algo = algo.strip().lower().replace("-", "")
    text = text.strip()
    raw: bytes | None = None
    try:
        if len(text) in (40, 64, 32, 128) and all(c in "0123456789abcdefABCDEF" for c in text):
            raw = bytes.fromhex(text)
        else:
            raw = base64.b32decode(text.upper() + "=" * (-len(text) % 8))
    except (binascii.Error, ValueError):
        raw = None
    return f"{algo}:{raw.hex()}" if raw else f"{algo}:{text.lower()}"


# --------------------------------------------------------------------------- warcio glue


class RecordReader(DecompressingBufferedReader):
    """warcio's gzip-member reader, but it records damage instead of printing it, reads a
    line in linear time up to a bound (:func:`~workbench.archive.bounds.read_line`) and
    stops a gzip member that inflates like a compression bomb
    (:class:`~workbench.archive.bounds.CompressionBomb`)."""

    def __init__(self, stream: ByteStream, block_size: int = BUFF_SIZE) -> None:
        super().__init__(stream, block_size=block_size)
        self.gzip_error: str | None = None
        self.truncated_member = False
        self.header_run = 0  # bytes read by readline since the last read

    def _init_decomp(self, decomp_type: str | None) -> None:
        super()._init_decomp(decomp_type)
        self.fed = False  # has the current gzip member been given any bytes?
        self.member_in = 0  # compressed bytes given to this member's decompressor
        self.member_out = 0  # and what came out
        # Where the member starts: what was read before it, less what is left of that
        # (the first bytes of this member, handed over from the last one).
        self.member_start = _tell(self.stream) - len(getattr(self, "starting_data", None) or b"")

    def _decompress(self, data: bytes) -> bytes:
        if self.decompressor is None or not data:
            return data
        self.fed = True
        try:
            out: bytes = self.decompressor.decompress(data)
        except zlib.error as exc:
            if self.num_block_read == 0:
                # Not gzip after all: read the bytes as they are (warcio does the same).
                self.decompressor = None
                return data
            if self.gzip_error is None:
                self.gzip_error = str(exc)
            return b""
        self.member_in += len(data)
        self.member_out += len(out)
        if is_bomb(self.member_out, self.member_in):
            raise CompressionBomb(self.member_out, self.member_in)
        return out

    def readline(self, length: int | None = None) -> bytes:
        """warcio's readline grows a byte string block by block (quadratic time in the
        line's length: 5.3 s for a 20 MB line); this one joins the blocks once and gives up
        past :data:`~workbench.archive.bounds.HEADER_LINE_LIMIT` bytes a line, and past
        :data:`~workbench.archive.bounds.HEADERS_LIMIT` bytes of lines in a row."""
        if length == 0:
            return b""
        self._fillbuff()
        if self.empty():
            return b""
        assert self.buff is not None  # not empty(): it holds data
        line = self.buff.readline(length)
        n = len(line)
        if line.endswith(b"\n") or (length is not None and n >= length):
            if n > HEADER_LINE_LIMIT:  # a buffer of inflated data may hold all of it
                raise LineTooLong(back(self._line_start(), n))
        else:  # the line runs on past this buffer (most end inside it)
            line += read_line(self._filled, None if length is None else length - n,
                              self._line_start, n)
            n = len(line)
        self.header_run += n
        if self.header_run > HEADERS_LIMIT:
            raise LineTooLong(back(self._line_start(), self.header_run), block=True)
        return line

    def read(self, length: int | None = None) -> bytes:
        self.header_run = 0  # a record's payload: its headers have ended
        return super().read(length)

    def _filled(self) -> BytesIO | None:
        self._fillbuff()
        return None if self.empty() else self.buff

    def _line_start(self) -> int | None:
        """Where the unread part of the buffer starts in the stream read (None inside a gzip
        member, whose positions are not the file's)."""
        return None if self.decompressor else _tell(self.stream) - self.rem_length()

    def member_cut_short(self) -> bool:
        d = self.decompressor
        return d is not None and self.fed and not d.eof and not d.unused_data

    def close_decompressor(self) -> None:
        if self.member_cut_short() and self.gzip_error is None:
            self.truncated_member = True
        super().close_decompressor()


def _tell(stream: ByteStream) -> int:
    try:
        return stream.tell()
    except (AttributeError, OSError, ValueError):
        return 0


class NoTargetURI(ValueError):
    """A record that should carry HTTP headers has no WARC-Target-URI (warcio raised an
    AttributeError on it, which became the reason given)."""

    def __init__(self, rec_type: str) -> None:
        super().__init__(f"{rec_type} record without a WARC-Target-URI")
        self.rec_type = rec_type


class _Loader(ArcWarcRecordLoader):
    """warcio's record loader, fixing odd target URIs without logging a warning each."""

    def load_http_headers(self, rec_type: str, uri: str | None,
                          stream: LimitReader | BufferedReader,
                          length: int | None) -> StatusAndHeaders | None:
        if uri is None and length != 0 and rec_type in self.HTTP_RECORDS:
            raise NoTargetURI(rec_type)
        return super().load_http_headers(rec_type, uri, stream, length)

    def _ensure_target_uri_format(self, rec_headers: StatusAndHeaders) -> str | None:
        uri = rec_headers.get_header("WARC-Target-URI")
        if uri is None:
            return None
        fixed = uri[1:-1] if uri.startswith("<") and uri.endswith(">") else uri
        fixed = fixed.replace(" ", "%20")
        if fixed != uri:
            rec_headers.replace_header("WARC-Target-URI", fixed)
        return fixed


class RecordIterator(ArchiveIterator):
    """ArchiveIterator with our reader, a fixed format and no writing to stderr."""

    reader: RecordReader

    def __init__(self, fh: ByteStream, fmt: str) -> None:
        super().__init__(fh, arc2warc=True, verify_http=False)
        self.loader = _Loader(verify_http=False, arc2warc=True)
        self.reader = RecordReader(self.fh)
        self.known_format = "arc" if fmt == "arc" else "warc"
        self.odd_endings = 0

    # The same contract as warcio's, minus the warning on stderr.
    def _consume_blanklines(self) -> tuple[bytes | None, int]:
        empty_size = 0
        first_line = True
        while True:
            try:
                line = self.reader.readline()
            except LineTooLong as exc:
                exc.between_records = True
                raise
            if not line:
                return None, empty_size
            if not line.rstrip() or first_line:
                empty_size += len(line)
                if line.rstrip():
                    self.odd_endings += 1
                first_line = False
                continue
            self.reader.header_run = len(line)  # the next record's headers start here
            return line, empty_size


class _PayloadDecoding(BufferedReader):
    """Content-Encoding decoding that remembers damage instead of printing it, and can
    tell whether the compressed payload ended before its compressed stream did."""

    damage: str | None = None
    fed = False  # has the decompressor been given any bytes?

    def _decompress(self, data: bytes) -> bytes:
        if not self.decompressor or not data:
            return data
        self.fed = True
        try:
            out: bytes = self.decompressor.decompress(data)
            return out
        except Exception as exc:  # noqa: BLE001 - zlib and brotli fail in their own ways
            if self.num_block_read == 0:  # not compressed after all: as warcio does
                if self.decomp_type == "deflate":
                    self._init_decomp("deflate_alt")
                    return self._decompress(data)
                self.decompressor = None
                return data
            if self.damage is None:
                self.damage = str(exc) or type(exc).__name__
            return b""

    def cut_short(self) -> bool:
        d = self.decompressor
        if d is None or not self.fed:
            return False
        if hasattr(d, "is_finished"):  # brotli
            return not d.is_finished()
        return not getattr(d, "eof", True)


class _Payload(_PayloadDecoding, BufferedReader):
    pass


class _ChunkedPayload(_PayloadDecoding, ChunkedDataReader):
    pass


def content_stream(rec: ArcWarcRecord) -> ByteStream:
    """``rec.content_stream()`` (the payload, de-chunked and decoded), through readers that
    record damage and a cut-short compressed payload instead of writing to stderr."""
    http = rec.http_headers
    if not http:
        return rec.raw_stream
    encoding = (http.get_header("content-encoding") or "").lower() or None
    if encoding not in BufferedReader.get_supported_decompressors():
        encoding = None
    if http.get_header("transfer-encoding") == "chunked":
        return _ChunkedPayload(rec.raw_stream, decomp_type=encoding)
    if encoding:
        return _Payload(rec.raw_stream, decomp_type=encoding)
    return rec.raw_stream


@dataclass(frozen=True, slots=True)
class PayloadLoss:
    """Part of a compressed payload could not be decompressed: the reasons to give when
    some of the page was kept, and when none of it was."""

    some_kept: str
    none_kept: str


def payload_loss(stream: ByteStream, encoding: str) -> PayloadLoss | None:
    """What a payload lost to its Content-Encoding (None: nothing)."""
    if not isinstance(stream, _PayloadDecoding):
        return None
    what = f"the compressed payload (Content-Encoding: {encoding})"
    if stream.damage:
        return PayloadLoss(f"{what} is damaged ({stream.damage})",
                           f"{what} is damaged ({stream.damage})")
    if stream.cut_short():
        return PayloadLoss(f"{what} ends early",
                           f"{what} ends before any of it could be decompressed")
    return None


# --------------------------------------------------------------------------- revisits


@dataclass(slots=True)
class Original:
    """Where a page-like capture lives, so a revisit can read its payload again."""

    opener: Opener
    mode: str  # "raw" or "gunzip"
    fmt: str
    offset: int
    key: str
    source: str
    status: int | None
    content_type: str | None
    charset: str | None


@dataclass
class PendingRevisit:
    source: str
    offset: int
    url: str | None
    date: str | None
    status: int | None
    content_type: str | None
    charset: str | None
    refers_id: str | None
    refers_uri: str | None
    refers_date: str | None
    digest: str | None


@dataclass
class RevisitIndex:
    """Captures seen so far (by record id, URI + date, payload digest) and revisits waiting."""

    # Keys are 64-bit hashes of ("id"|"uri"|"digest", value): about 100 bytes per
    # capture, so a crawl of a million pages keeps its index in ~300 MB at most.
    # A later capture with the same key replaces an earlier one, so a revisit finds
    # the original in its own file before a copy in a file read earlier.
    # (A mapping, not only a dict: a trial replay layers a ChainMap over the run's index.)
    keys: MutableMapping[int, Original] = field(default_factory=dict)
    pending: list[PendingRevisit] = field(default_factory=list)

    @staticmethod
    def _key(kind: str, *parts: str) -> int:
        text = "\x00".join((kind, *(p.strip() for p in parts)))
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        return int.from_bytes(digest, "little")

    def add(self, orig: Original, rec_id: str | None, uri: str | None, date: str | None,
            digest: str | None) -> None:
        if rec_id:
            self.keys[self._key("id", rec_id)] = orig
        if uri and date:
            self.keys[self._key("uri", uri, date)] = orig
        if digest:
            self.keys[self._key("digest", digest)] = orig

    def find(self, rv: PendingRevisit) -> Original | None:
        """The capture a revisit repeats: by record id, then URI + date, then digest."""
        wanted = []
        if rv.refers_id:
            wanted.append(self._key("id", rv.refers_id))
        if rv.refers_uri and rv.refers_date:
            wanted.append(self._key("uri", rv.refers_uri, rv.refers_date))
        if rv.digest:
            wanted.append(self._key("digest", rv.digest))
        for key in wanted:
            if (orig := self.keys.get(key)) is not None:
                return orig
        return None

    def resolve(self, rv: PendingRevisit, orig: Original) -> RawPage | SkipRecord:
        try:
            data = read_payload_at(orig)
        except Exception as exc:  # noqa: BLE001 - any failure becomes a skip record
            return skipped(rv.source, f"revisit: cannot read its original at {orig.key} "
                           f"({_describe(exc)})", rv.offset, url=rv.url)
        if data is None:
            return skipped(rv.source, f"revisit: its original at {orig.key} could not be "
                           "read again", rv.offset, url=rv.url)
        if len(data) > PAGE_LIMIT_BYTES:
            return skipped(rv.source, too_large(), rv.offset, url=rv.url)
        status = rv.status if rv.status is not None and 200 <= rv.status < 300 else orig.status
        return RawPage(
            source=rv.source,
            data=data,
            offset=rv.offset,
            url=rv.url,
            capture_date=rv.date,
            http_status=status,
            content_type=rv.content_type or orig.content_type,
            charset_hint=rv.charset or orig.charset,
            revisit_of=orig.key,
        )

    def leftovers(self) -> Iterator[RawPage | SkipRecord]:
        """Revisits whose original came later in the scan, or never."""
        pending, self.pending = self.pending, []
        for rv in pending:
            orig = self.find(rv)
            if orig is not None:
                yield self.resolve(rv, orig)
            else:
                what = rv.refers_uri or rv.url or "an unknown URL"
                when = f" of {rv.refers_date}" if rv.refers_date else ""
                yield skipped(
                    rv.source,
                    f"revisit of {what}{when}: the original capture is not in the opened folder",
                    rv.offset,
                    url=rv.url,
                )


def read_payload_at(orig: Original) -> bytes | None:
    """Read one record's payload again (for a revisit), or None if it is not there."""
    with orig.opener.open() as fh:
        stream: ByteStream
        if orig.mode == "gunzip":
            gunzipped = gzip.GzipFile(fileobj=fh, mode="rb")
            gunzipped.seek(orig.offset)
            stream = gunzipped
        else:
            fh.seek(orig.offset)
            stream = Counted(fh, orig.offset)
        it = RecordIterator(stream, orig.fmt)
        rec = next(iter(it), None)
        if rec is None:
            return None
        data, _ = _read_capped(content_stream(rec), lambda: None)
        return data


# --------------------------------------------------------------------------- reading


@dataclass
class _Damage:
    pos: int
    what: str  # the reason, without the "N records read before" part
    whole_gzip: bool = False
    tally: bool = True  # add "N records read before the damage" to the reason
    last: bool = False  # nothing after it can be reached: do not look for another record


@dataclass
class ReadState:
    source: str
    opener: Opener
    fmt: str
    gzipped: bool
    report: Report
    index: RevisitIndex
    records: int = 0
    outputs: int = 0
    ignored: Counter[str] = field(default_factory=Counter)


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 120:
        text = text[:117] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _read_capped(stream: ByteStream, tick: Callable[[], None]) -> tuple[bytes, bool]:
    """Read a payload stream up to the page limit; True in the second place if it is larger."""
    parts: list[bytes] = []
    size = 0
    while True:
        block = stream.read(CHUNK)
        if not block:
            return b"".join(parts), False
        size += len(block)
        if size > PAGE_LIMIT_BYTES:
            return b"", True
        parts.append(block)
        tick()


def read_archive(
    opener: Opener, source: str, fmt: str, gzipped: bool, report: Report, index: RevisitIndex
) -> Iterator[RawPage | SkipRecord]:
    """Yield the pages (and skip records) of one WARC or ARC stream.

    ``fmt`` is "warc" or "arc" (sniffed from the first bytes); ``gzipped`` says
    the file starts with a gzip member.
    """
    st = ReadState(source, opener, fmt, gzipped, report, index)
    mode, start, skip_first, resyncs, first_pass = "raw", 0, 0, 0, True
    # Resyncing after damage (and switching to reading one whole gzip stream) can meet
    # a record again; every (file, offset) is yielded once, so page keys stay unique.
    seen: set[tuple[str, int | None]] = set()
    while True:
        before = st.records
        try:
            with opener.open() as fh:
                damage = yield from _unseen(_one_pass(st, fh, mode, start, skip_first), seen)
        except OSError as exc:
            damage = _Damage(start, f"cannot read: {exc.strerror or _describe(exc)}")
        if damage is None:
            break
        if damage.whole_gzip and first_pass and mode == "raw":
            # A single gzip stream around many records: decompress it as one stream.
            mode, start, skip_first = "gunzip", 0, st.records
            first_pass = False
            continue
        if (first_pass or st.records > before or not damage.what.startswith("unreadable")) and (
                mode, damage.pos) not in seen:
            seen.add((mode, damage.pos))
            st.outputs += 1
            tally = f": {plural(st.records, 'record')} read before the damage"
            yield SkipRecord(source, damage.what + (tally if damage.tally else ""), damage.pos)
        first_pass = False
        if resyncs >= _MAX_RESYNCS or damage.last:
            break
        nxt = _find_next_record(opener, damage.pos + 1, gzipped, fmt, mode)
        if nxt is None:
            break
        start, resyncs, skip_first = nxt, resyncs + 1, 0
    if st.outputs == 0:
        kinds = ", ".join(plural(n, f"{kind} record") for kind, n in sorted(st.ignored.items()))
        yield SkipRecord(source, f"no web pages in this archive ({kinds or 'no records'})")


def _unseen(pass_: Reading, seen: set[tuple[str, int | None]]) -> Reading:
    """Pass on a pass's output, dropping records already yielded; return its damage."""
    while True:
        try:
            item = next(pass_)
        except StopIteration as stop:
            damage: _Damage | None = stop.value
            return damage
        # A note beside a page (what part of it was lost) has the page's offset.
        kind = "note" if isinstance(item, SkippedInput) and item.page_kept else "record"
        key = (kind, item.offset)
        if item.offset is not None and key in seen:
            continue
        seen.add(key)
        yield item


def _one_pass(st: ReadState, fh: BinaryIO, mode: str, start: int, skip_first: int) -> Reading:
    """Read records from ``start`` until the end or the first damage (returned)."""
    stream: ByteStream
    if mode == "gunzip":
        counted = Counted(fh, 0)
        gunzipped = gzip.GzipFile(fileobj=counted, mode="rb")
        if start:
            try:
                gunzipped.seek(start)
            except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
                return _Damage(start, f"gzip data damaged or cut short ({_describe(exc)})")
        stream = InflateGuard(gunzipped, lambda: counted.pos)
    else:
        if start:
            fh.seek(start)
        counted = Counted(fh, start)
        stream = counted
    it = RecordIterator(stream, st.fmt)
    reader: RecordReader = it.reader
    records = iter(it)
    seen_in_pass = 0
    last = start
    while True:
        st.report(counted.pos)
        try:
            rec = next(records)
        except StopIteration:
            break
        except (LineTooLong, CompressionBomb) as exc:
            return _bounded(exc, reader, it.offset, mode, counted)
        except NoTargetURI as exc:
            return _Damage(it.offset, f"{exc.rec_type} record at byte {it.offset:,} has no "
                           "WARC-Target-URI (the address it captured): skipped", tally=False)
        except Exception as exc:  # noqa: BLE001 - warcio signals bad input in many ways
            if "non-chunked gzip" in str(exc):
                return _Damage(it.offset, "gzip member holds several records", whole_gzip=True)
            if isinstance(exc, EOFError | gzip.BadGzipFile | zlib.error) and mode == "gunzip":
                return _Damage(last, f"gzip data damaged or cut short near byte "
                               f"{counted.pos:,} ({_describe(exc)})")
            return _Damage(it.offset, f"unreadable record at byte {it.offset:,} "
                           f"({_describe(exc)})")
        offset = it.offset
        last = offset
        seen_in_pass += 1
        if seen_in_pass <= skip_first:
            continue
        try:
            result = yield from handle_record(st, rec, offset, mode, counted)
        except (LineTooLong, CompressionBomb) as exc:
            return _bounded(exc, reader, offset, mode, counted)
        except Exception as exc:  # noqa: BLE001
            return _Damage(offset, f"unreadable record at byte {offset:,} ({_describe(exc)})")
        if result is not None:
            return result
        st.records += 1
        if reader.gzip_error:
            return _Damage(offset, f"corrupt gzip member at byte {offset:,} "
                           f"({reader.gzip_error})")
    if mode == "gunzip":
        # warcio takes an EOFError while parsing headers for the end: ask gzip itself.
        try:
            stream.read(1)
        except CompressionBomb as exc:
            return _bounded(exc, reader, last, mode, counted)
        except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
            return _Damage(last, f"gzip data damaged or cut short near byte {counted.pos:,} "
                           f"({_describe(exc)})")
    at = max(it.offset, last)  # where the member that yielded no record starts
    if reader.gzip_error:
        return _Damage(at, f"corrupt gzip member at byte {at:,} ({reader.gzip_error})")
    if reader.truncated_member:
        return _Damage(at, f"truncated gzip member at byte {at:,}")
    return None


def _bounded(exc: LineTooLong | CompressionBomb, reader: RecordReader, offset: int, mode: str,
             counted: Counted) -> _Damage:
    """The damage a bound met makes: the record (or gzip member) is skipped and reading goes
    on at the next one; in a file gzipped as one stream, nothing after a bomb is read."""
    if isinstance(exc, LineTooLong):
        at = exc.start if exc.start is not None else reader.member_start
        where = (f"at byte {at:,}" if exc.start is not None
                 else f"in the gzip member at byte {at:,}")
        if exc.between_records:
            # After a record, where the next one should start: the record before was read.
            what = (f"blank lines longer than {headers_limit_text()} in all" if exc.block
                    else f"line longer than {line_limit_text()}")
            rest = ("where a record should start: skipped up to the next record"
                    if exc.start is not None
                    else "after its record: the rest of that member is skipped")
            return _Damage(at, f"{what} {where}, {rest}", tally=False)
        what = (f"headers longer than {headers_limit_text()} in all" if exc.block
                else f"header line longer than {line_limit_text()}")
        return _Damage(at, f"{what} {where}: its record is skipped", tally=False)
    if mode == "gunzip":
        return _Damage(offset, f"compression bomb: the file's gzip data gave {exc.what()}; "
                       f"the rest of the file (from byte {counted.pos:,}) is not read",
                       tally=False, last=True)
    at = reader.member_start
    return _Damage(at, f"compression bomb: the gzip member at byte {at:,} gave {exc.what()}; "
                   "its record is skipped", tally=False)


def handle_record(st: ReadState, rec: ArcWarcRecord, offset: int, mode: str,
                  counted: Counted) -> Reading:
    """Yield at most one page or skip record for ``rec``; return damage if it is cut short."""
    rh = rec.rec_headers
    rtype = (rec.rec_type or "unknown").lower()
    uri = rh.get_header("WARC-Target-URI")
    date = rh.get_header("WARC-Date")
    http = rec.http_headers
    out: RawPage | SkipRecord | None = None
    note: SkipRecord | None = None  # what a page kept in part lost

    def skip(reason: str) -> SkipRecord:
        return skipped(st.source, reason, offset, url=uri)

    if rtype not in ("response", "resource", "revisit"):
        st.ignored[rtype] += 1
    elif uri and uri.lower().startswith(_IGNORED_SCHEMES):
        st.ignored[uri.split(":", 1)[0].lower()] += 1
    else:
        status = _status(http)
        ctype = (http.get_header("Content-Type") if http else None) or (
            rec.content_type if rtype == "resource" or not http else None
        )
        media, charset = split_content_type(ctype)
        if media in ("application/http",):
            media, charset = "", None
        if rtype == "revisit":
            out = _revisit(st, rec, offset, uri, date, status, ctype, media, charset)
        elif status is not None and not 200 <= status < 300:
            out = skip(f"HTTP status {status}: not a page capture")
        elif media not in PAGE_TYPES and media not in VAGUE_TYPES:
            out = skip(f"not a web page: {media}")
        elif uri and uri.split("?", 1)[0].lower().endswith("/robots.txt"):
            out = skip("not a web page: robots.txt")
        else:
            enc = (http.get_header("Content-Encoding") or "").strip().lower() if http else ""
            known = BufferedReader.get_supported_decompressors()
            if enc and enc != "identity" and enc not in known:
                out = skip(f"payload compressed as {enc!r} (Content-Encoding), which is not "
                           "supported")
            else:
                payload = content_stream(rec)
                data, big = _read_capped(payload, lambda: st.report(counted.pos))
                loss = payload_loss(payload, enc)
                out = _page_or_skip(st, rec, offset, uri, date, status, ctype, media, charset,
                                    data, big, mode, loss)
                if loss is not None and isinstance(out, RawPage):
                    note = skipped(st.source, f"{loss.some_kept}; kept the first "
                                   f"{kept(len(data))}", offset, url=uri, page_kept=True)
    # Drain the record so that a record cut short is noticed.
    raw = rec.raw_stream
    while raw.read(CHUNK):
        st.report(counted.pos)
    missing = getattr(raw, "limit", 0)
    if missing and missing > 0:
        declared = getattr(raw, "_orig_limit", None)
        reader: RecordReader | None = raw.stream if isinstance(raw.stream, RecordReader) else None
        if reader is not None and reader.member_cut_short():
            what = f"truncated gzip member at byte {offset:,}"
        elif reader is not None and reader.decompressor is not None and mode == "raw":
            # The gzip member ended cleanly inside the record: the file was compressed
            # in pieces that do not follow record boundaries. Read it as one stream.
            return _Damage(offset, f"record at byte {offset:,} runs past its gzip member",
                           whole_gzip=True)
        elif mode == "gunzip":
            what = f"gzip data cut short in the record at byte {offset:,}"
        else:
            what = f"record at byte {offset:,} cut short"
        if declared:
            what += f" ({declared - missing:,} of {declared:,} bytes present)"
        return _Damage(offset, what)
    if out is not None:
        st.outputs += 1
        yield out
        if note is not None:
            yield note
    return None


def _status(http: StatusAndHeaders | None) -> int | None:
    if http is None:
        return None
    try:
        code = http.get_statuscode()
        return int(code) if code is not None else None
    except (ValueError, TypeError, AttributeError, IndexError):
        return None


def _page_or_skip(st: ReadState, rec: ArcWarcRecord, offset: int, uri: str | None,
                  date: str | None, status: int | None, ctype: str | None, media: str,
                  charset: str | None, data: bytes, big: bool, mode: str,
                  loss: PayloadLoss | None = None) -> RawPage | SkipRecord:
    if big:
        return skipped(st.source, too_large(), offset, url=uri)
    if not data:
        return skipped(st.source, loss.none_kept if loss else "empty payload", offset, url=uri)
    found = sniff(data[:SNIFF_BYTES])
    if found.kind in ("binary", "gzip", "zip", "unsupported", "warc", "arc"):
        mime = found.mime or {"gzip": "application/gzip", "zip": "application/zip"}.get(
            found.kind, "application/octet-stream")
        if found.kind in ("warc", "arc"):
            mime = f"application/{found.kind}"
        said = f" (served as {media})" if media and media not in VAGUE_TYPES else ""
        return skipped(st.source, f"not a web page: {mime}{said}", offset, url=uri)
    if media in VAGUE_TYPES:
        media = found.mime or "text/plain"
    key = f"{st.source}#{offset}"
    rh = rec.rec_headers
    st.index.add(
        Original(st.opener, mode, st.fmt, offset, key, st.source, status, ctype or media,
                 charset),
        rh.get_header("WARC-Record-ID"),
        uri,
        date,
        normalise_digest(rh.get_header("WARC-Payload-Digest")),
    )
    return RawPage(
        source=st.source,
        data=data,
        offset=offset,
        url=uri,
        capture_date=date,
        http_status=status,
        content_type=ctype or media,
        charset_hint=charset,
    )


def _revisit(st: ReadState, rec: ArcWarcRecord, offset: int, uri: str | None, date: str | None,
             status: int | None, ctype: str | None, media: str, charset: str | None
             ) -> RawPage | SkipRecord | None:
    if media and media not in PAGE_TYPES and media not in VAGUE_TYPES:
        return skipped(st.source, f"not a web page: {media} (revisit)", offset, url=uri)
    rh = rec.rec_headers
    rv = PendingRevisit(
        source=st.source,
        offset=offset,
        url=uri,
        date=date,
        status=status,
        content_type=ctype if media and media not in VAGUE_TYPES else None,
        charset=charset,
        refers_id=rh.get_header("WARC-Refers-To"),
        refers_uri=rh.get_header("WARC-Refers-To-Target-URI"),
        refers_date=rh.get_header("WARC-Refers-To-Date"),
        digest=normalise_digest(rh.get_header("WARC-Payload-Digest")),
    )
    orig = st.index.find(rv)
    if orig is None:
        st.index.pending.append(rv)
        st.outputs += 1  # it will be reported at the end of the scan
        return None
    return st.index.resolve(rv, orig)


def _find_next_record(opener: Opener, pos: int, gzipped: bool, fmt: str, mode: str
                      ) -> int | None:
    """Where the next record (or gzip member) seems to start after ``pos``.

    In "raw" mode positions are file offsets; in "gunzip" mode they are offsets in
    the decompressed stream.
    """
    find: Callable[[bytes], int | None]
    if mode == "raw" and gzipped:
        def find(hay: bytes) -> int | None:
            i = hay.find(_GZIP_MEMBER)
            return i if i >= 0 else None
    elif fmt == "warc":
        def find(hay: bytes) -> int | None:
            return next(warc_line_starts(hay), None)
    else:
        def find(hay: bytes) -> int | None:
            match = _ARC_START.search(hay)
            return match.start(1) if match else None
    try:
        with opener.open() as fh:
            if mode == "gunzip":
                counted = Counted(fh)
                gunzipped = gzip.GzipFile(fileobj=counted, mode="rb")
                gunzipped.seek(pos)
                # Looking through a compression bomb for a record would inflate all of it.
                stream: ByteStream = InflateGuard(gunzipped, lambda: counted.pos)
            else:
                fh.seek(pos)
                stream = fh
            at, tail = pos, b""
            while True:
                try:
                    block = stream.read(CHUNK)
                except (EOFError, gzip.BadGzipFile, zlib.error):
                    block = b""
                if not block:
                    return None
                hay = tail + block
                found = find(hay)
                if found is not None:
                    return at - len(tail) + found
                tail = hay[-4096:]
                at += len(block)
    except (OSError, ValueError, EOFError, gzip.BadGzipFile, zlib.error, CompressionBomb):
        return None
