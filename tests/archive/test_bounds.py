"""Hostile archives cost what the bounds allow, not what they hold: a header line is given
up past 64 KiB (its record skipped, reading going on), and compressed data that inflates
more than 100 times past 100 MB is a compression bomb that is not read further."""

from __future__ import annotations

import gzip
import io
import re
import zipfile
import zlib
from pathlib import Path

import pytest
from warcio.bufferedreaders import BufferedReader
from warcio.utils import BUFF_SIZE

from tests.archive.bombs import bomb_record, gzip_member, page, plain, record, wacz
from tests.archive.test_parallel_read import _by_tasks_here, _in_process
from workbench.archive import scan
from workbench.archive.chunks import splittable
from workbench.archive.sniff import SNIFF_BYTES
from workbench.core.records import RawPage, SkipRecord

LONG = 2**20  # a 1 MB line: sixteen times the bound
BOMB = 300 * 2**20  # inflated; about 300 KB compressed
# The floor (100 MB) and one block of warcio's reader (16 KiB of zeros inflate to 16 MB).
MOST_INFLATED = 100 * 2**20 + 17 * 2**20


def _read(root: Path) -> tuple[list[str | None], list[SkipRecord]]:
    items = list(scan(root))
    return ([i.url for i in items if isinstance(i, RawPage)],
            [i for i in items if isinstance(i, SkipRecord)])


def _write(path: Path, records: list[bytes], gzipped: bool) -> list[int]:
    """Write the records (one gzip member each if ``gzipped``); their offsets."""
    parts = [gzip_member(plain(r)) for r in records] if gzipped else records
    offsets = [sum(len(p) for p in parts[:i]) for i in range(len(parts))]
    path.write_bytes(b"".join(parts))
    return offsets


FIRST = record("http://news.test/first", page(1))
AFTER = record("http://news.test/after", page(3))


@pytest.mark.parametrize("where", ["warc", "http", "uri"])
@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_a_long_header_line_skips_its_record_and_reading_goes_on(tmp_path, where, gzipped):
    long = b"a" * LONG
    bad = {"warc": record("http://news.test/bad", page(2), warc_extra=b"X-Long: " + long + b"\r\n"),
           "http": record("http://news.test/bad", page(2), http_extra=b"X-Long: " + long + b"\r\n"),
           "uri": record("http://news.test/bad" + "a" * LONG, page(2))}[where]
    offsets = _write(tmp_path / "a.warc.gz", [FIRST, bad, AFTER], gzipped)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/after"]
    if gzipped:
        assert skip.reason == (f"header line longer than 64 KiB in the gzip member at byte "
                               f"{offsets[1]:,}: its record is skipped")
        assert skip.offset == offsets[1]
    else:
        line = offsets[1] + bad.index(b"X-Long" if where != "uri" else b"WARC-Target-URI")
        assert skip.reason == f"header line longer than 64 KiB at byte {line:,}: its record is skipped"
        assert skip.offset == line


def test_a_long_line_between_records_is_skipped_up_to_the_next_record(tmp_path):
    junk = b"a" * LONG + b"\r\n"
    offsets = _write(tmp_path / "a.warc", [FIRST, junk, AFTER], gzipped=False)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/after"]
    assert skip.reason == (f"line longer than 64 KiB at byte {offsets[1]:,}, where a record "
                           "should start: skipped up to the next record")


def test_a_long_line_after_a_record_in_its_gzip_member_ends_that_member(tmp_path):
    bad = record("http://news.test/bad", page(2)) + b"\0" * LONG  # no line end at all
    offsets = _write(tmp_path / "a.warc.gz", [FIRST, bad, AFTER], gzipped=True)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/bad", "http://news.test/after"]
    assert skip.reason == (f"line longer than 64 KiB in the gzip member at byte {offsets[1]:,}, "
                           "after its record: the rest of that member is skipped")


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_a_record_of_very_many_header_lines_is_skipped(tmp_path, gzipped):
    many = b"X: y\r\n" * (300 * 1024 // 6)  # 300 KiB of short lines: each is allowed
    bad = record("http://news.test/bad", page(2), warc_extra=many)
    offsets = _write(tmp_path / "a.warc.gz", [FIRST, bad, AFTER], gzipped)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/after"]
    where = f"in the gzip member at byte {offsets[1]:,}" if gzipped else f"at byte {offsets[1]:,}"
    assert skip.reason == f"headers longer than 256 KiB in all {where}: its record is skipped"


def test_very_many_blank_lines_between_records_are_skipped(tmp_path):
    offsets = _write(tmp_path / "a.warc", [FIRST, b"\r\n" * (300 * 1024), AFTER], gzipped=False)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/after"]
    # (The two line ends that close the first record count in.)
    assert skip.reason == (f"blank lines longer than 256 KiB in all at byte {offsets[1] - 4:,}, "
                           "where a record should start: skipped up to the next record")


def test_a_response_without_a_target_uri_is_skipped_with_that_reason(tmp_path):
    nameless = record("http://news.test/x", page(2)).replace(
        b"WARC-Target-URI: http://news.test/x\r\n", b"")
    offsets = _write(tmp_path / "a.warc", [FIRST, nameless, AFTER], gzipped=False)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/after"]
    assert skip.reason == (f"response record at byte {offsets[1]:,} has no WARC-Target-URI "
                           "(the address it captured): skipped")


def test_a_long_line_is_given_up_at_the_bound_not_read_whole():
    from workbench.archive.bounds import HEADER_LINE_LIMIT, LineTooLong
    from workbench.archive.warc import RecordReader

    stream = io.BytesIO(b"WARC/1.0\r\n" + b"a" * (8 * LONG) + b"\r\nWARC-Type: response\r\n")
    reader = RecordReader(stream)
    assert reader.readline() == b"WARC/1.0\r\n"
    with pytest.raises(LineTooLong) as caught:
        reader.readline()
    assert caught.value.start == len(b"WARC/1.0\r\n")  # where the line starts
    assert stream.tell() <= HEADER_LINE_LIMIT + 2 * BUFF_SIZE  # no further than that read


def test_http_header_lines_up_to_the_bound_are_read(tmp_path):
    cookie = b"Set-Cookie: " + b"c" * (60 * 1024) + b"\r\n"
    _write(tmp_path / "a.warc", [record("http://news.test/cookie", page(1), http_extra=cookie)],
           gzipped=False)
    assert _read(tmp_path) == (["http://news.test/cookie"], [])


def test_workers_reading_ranges_skip_a_long_line_as_scan_does(tmp_path):
    others = [record(f"http://news.test/{n}", page(n)) for n in range(40)]
    bad = record("http://news.test/bad", page(2), warc_extra=b"X-Long: " + b"a" * LONG + b"\r\n")
    _write(tmp_path / "a.warc", [*others[:20], bad, *others[20:]], gzipped=False)
    pages, skips = _by_tasks_here(tmp_path, 64 * 1024)
    assert (pages, skips) == _in_process(tmp_path)
    assert len(pages) == 40 and [s.reason.split(" at byte")[0] for s in skips] == [
        "header line longer than 64 KiB"]


# --------------------------------------------------------------------------- bombs


class _CountingInflater:
    """A gzip decompressor for warcio's reader that counts the bytes it gives."""

    inflated = 0

    def __init__(self) -> None:
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def decompress(self, data: bytes, *limit: int) -> bytes:
        out = self._d.decompress(data, *limit)
        _CountingInflater.inflated += len(out)
        return out

    def __getattr__(self, name: str):
        return getattr(self._d, name)


@pytest.mark.parametrize("packed", [False, True], ids=["warc.gz", "stored in a WACZ"])
def test_a_gzip_member_bomb_is_stopped_and_the_next_record_read(tmp_path, monkeypatch, packed):
    monkeypatch.setitem(BufferedReader.DECOMPRESSORS, "gzip", _CountingInflater)
    _CountingInflater.inflated = 0
    members = [gzip_member(plain(FIRST)), gzip_member(bomb_record("http://news.test/bomb", BOMB)),
               gzip_member(plain(AFTER))]
    assert len(members[1]) < BOMB // 500
    if packed:  # as WACZ packages keep their WARC files: gzipped, stored as they are
        with zipfile.ZipFile(tmp_path / "bomb.wacz", "w", zipfile.ZIP_STORED) as zf:
            zf.writestr("archive/bomb.warc.gz", b"".join(members))
    else:
        (tmp_path / "bomb.warc.gz").write_bytes(b"".join(members))
    progress: list[tuple[int, int]] = []
    items = list(scan(tmp_path, lambda stage, done, total: progress.append((done, total))))
    urls = [i.url for i in items if isinstance(i, RawPage)]
    (skip,) = [i for i in items if isinstance(i, SkipRecord)]
    assert urls == ["http://news.test/first", "http://news.test/after"]
    at = len(members[0])
    assert skip.offset == at
    assert skip.reason.startswith(f"compression bomb: the gzip member at byte {at:,} gave ")
    assert skip.reason.endswith("of compressed data, over 100 times as much; its record is skipped")
    assert _CountingInflater.inflated <= MOST_INFLATED
    assert progress[-1][0] == progress[-1][1] and progress == sorted(progress)


class _CountingGzip(gzip.GzipFile):
    inflated = 0

    def read(self, size: int = -1) -> bytes:
        data = super().read(size)
        _CountingGzip.inflated += len(data)
        return data


def test_a_bomb_in_a_file_gzipped_whole_stops_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(gzip, "GzipFile", _CountingGzip)
    _CountingGzip.inflated = 0

    def fill(write) -> None:
        write(FIRST)
        bomb_record("http://news.test/bomb", BOMB)(write)
        write(AFTER)

    data = gzip_member(fill)
    (tmp_path / "whole.warc.gz").write_bytes(data)
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first"]
    assert re.fullmatch(r"compression bomb: the file's gzip data gave [\d.]+ MB out of [\d,]+ "
                        r"bytes of compressed data, over 100 times as much; the rest of the "
                        r"file \(from byte [\d,]+\) is not read", skip.reason), skip.reason
    assert _CountingGzip.inflated <= MOST_INFLATED


def test_a_wacz_member_that_would_inflate_like_a_bomb_is_not_read(tmp_path, monkeypatch):
    inflated: dict[str, int] = {}
    original = zipfile.ZipExtFile.read

    def counting(self, n=-1):
        data = original(self, n)
        inflated[self.name] = inflated.get(self.name, 0) + len(data)
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting)
    wacz(tmp_path / "bomb.wacz", {
        "archive/a.warc": plain(FIRST + AFTER),
        "archive/b.warc": bomb_record("http://news.test/bomb", BOMB),
    })
    urls, (skip,) = _read(tmp_path)
    assert urls == ["http://news.test/first", "http://news.test/after"]
    assert skip.source == "bomb.wacz/archive/b.warc"
    assert skip.reason.startswith("compression bomb: this ZIP member would give 300.0 MB out of ")
    assert skip.reason.endswith("of compressed data, over 100 times as much; not read")
    assert inflated.get("archive/b.warc", 0) == 0


def test_a_bomb_as_the_first_member_is_not_inflated_to_plan_ranges(tmp_path):
    members = [gzip_member(bomb_record("http://news.test/bomb", BOMB)), gzip_member(plain(AFTER))]
    path = tmp_path / "bomb.warc.gz"
    path.write_bytes(b"".join(members))
    # Whole, the first member would show a record that ends and another that follows, and
    # the file would be split into ranges after inflating all 300 MB; bounded, it is read
    # whole by one worker, where the bomb is stopped.
    assert splittable(path, path.read_bytes()[:SNIFF_BYTES]) is None


def test_workers_reading_ranges_stop_a_bomb_as_scan_does(tmp_path):
    members = [gzip_member(plain(record(f"http://news.test/{n}", page(n)))) for n in range(30)]
    members.insert(10, gzip_member(bomb_record("http://news.test/bomb", BOMB)))
    (tmp_path / "bomb.warc.gz").write_bytes(b"".join(members))
    pages, skips = _by_tasks_here(tmp_path, 64 * 1024)
    assert (pages, skips) == _in_process(tmp_path)
    assert len(pages) == 30 and [s.reason.split(" at byte")[0] for s in skips] == [
        "compression bomb: the gzip member"]


def test_ranges_a_long_record_runs_through_are_empty_and_the_rest_join(tmp_path):
    from workbench.archive.chunks import read_range
    from workbench.archive.replay import ranges_join
    from workbench.archive.warc import RevisitIndex

    big = record("http://news.test/big", b"<html><p>" + b"word " * (LONG // 5) + b"</p></html>")
    path = tmp_path / "a.warc"
    _write(path, [FIRST, big, AFTER], gzipped=False)
    step = 64 * 1024
    ends = []
    for start in range(0, path.stat().st_size, step):
        reading = read_range(path, "a.warc", False, start, start + step, RevisitIndex(),
                             lambda pos: None)
        while True:
            try:
                next(reading)
            except StopIteration as stop:
                ends.append(stop.value)
                break
    # Only the first range and the one where the last record starts hold a record start;
    # the ranges between are looked through up to their own ends, not to the record's.
    assert [e.empty for e in ends] == [False] + [True] * (len(ends) - 2) + [False]
    assert ranges_join(ends)
