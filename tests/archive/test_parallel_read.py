"""Workers that read their own files and WARC ranges give exactly what ``scan`` gives."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import zipfile
from concurrent.futures import Executor, Future
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from warcio.statusandheaders import StatusAndHeaders

from tests.archive.test_fuzz import damaged
from tests.archive.warcs import Builder, page
from tests.conftest import DEMO_ARCHIVE, shared_path
from workbench.archive import scan
from workbench.archive.tasks import plan
from workbench.core.progress import Cancelled, no_progress
from workbench.core.records import RawPage, SkipRecord
from workbench.detect.workers.parallel import ListEntries, read_and_extract, run_plan
from workbench.usecases.pipeline import load_corpus


def describe(batch: list[RawPage], params) -> list[tuple]:
    """A stand-in for extraction (runs in the workers): every field, and the bytes' SHA-1."""
    return [(p.key, p.source, p.offset, p.url, p.capture_date, p.http_status, p.content_type,
             p.charset_hint, p.revisit_of, hashlib.sha1(p.data).hexdigest()) for p in batch]


def _in_process(root: Path) -> tuple[list[tuple], list[SkipRecord]]:
    items = list(scan(root))
    return (describe([i for i in items if isinstance(i, RawPage)], None),
            [i for i in items if isinstance(i, SkipRecord)])


def _by_workers(root: Path, range_bytes: int | None) -> tuple[list[tuple], list[SkipRecord]]:
    done = read_and_extract(root, None, no_progress, 2, process=describe, range_bytes=range_bytes,
                            small_here=False)
    assert done is not None
    return done


def _digest(body: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()


def _record_id(b: Builder) -> str:
    """The WARC-Record-ID of the last record the builder wrote."""
    data = b.bytes()[b.offsets[-1]:]
    text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    line = next(x for x in text.split(b"\r\n") if x.startswith(b"WARC-Record-ID:"))
    return line.split(b":", 1)[1].strip().decode()


def _revisit(b: Builder, uri: str, body: bytes, refers_uri: str, refers_date: str,
             date: str, refers_to: str | None = None) -> None:
    http = StatusAndHeaders("304 Not Modified", [("Content-Type", "text/html")], protocol="HTTP/1.1")
    extra = {"WARC-Date": date}
    if refers_to:
        extra["WARC-Refers-To"] = refers_to
    rec = b.writer.create_revisit_record(uri, _digest(body), refers_uri, refers_date,
                                         http_headers=http, warc_headers_dict=extra)
    b._write(rec)


def _mixed(root: Path) -> None:
    """Every kind of input, with revisits inside a file, across files and across ranges."""
    root.mkdir()
    (root / "a.html").write_bytes(page(1))
    (root / "b.html.gz").write_bytes(gzip.compress(page(2)))
    (root / "c-empty.html").write_bytes(b"")
    (root / "c-logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))

    # A plain WARC with many records (split into ranges below) and revisits inside it,
    # some of whose originals lie in an earlier range.
    plain = Builder(gzip=False)
    for n in range(40):
        plain.response(f"http://p.test/{n}", page(100 + n), date=f"2020-01-01T00:00:{n:02d}Z")
    for n in range(0, 40, 7):
        _revisit(plain, f"http://p.test/{n}", page(100 + n), f"http://p.test/{n}",
                 f"2020-01-01T00:00:{n:02d}Z", "2021-01-01T00:00:00Z")
    plain.response("http://p.test/img", b"\x89PNG\r\n\x1a\n" + bytes(50), ctype="image/png")
    plain.request("http://p.test/req")
    (root / "d.warc").write_bytes(plain.bytes())

    # A page about the WARC format, quoting records: a range that starts inside it finds a
    # "WARC/1.0" line that is no record, and the ranges do not join up.
    quoted = Builder(gzip=False)
    for n in range(12):
        quoted.response(f"http://q.test/{n}", page(900 + n))
    example = io.BytesIO()
    copy = Builder(gzip=False)
    for n in range(15):
        copy.response(f"http://quoted.test/{n}", page(950 + n))
    example.write(b"<html><body><h1>How a WARC file looks</h1><pre>\n" + copy.bytes())
    quoted.response("http://q.test/warc-howto", example.getvalue(), ctype="text/html")
    quoted.response("http://q.test/after", page(999))
    (root / "d2-quoting.warc").write_bytes(quoted.bytes())

    # Gzipped record by record: a revisit of a capture in d.warc (another file), one of a
    # capture in g-later.warc.gz (after it: resolved at the end), one of nothing, and one
    # that names d.warc's record by id while its digest matches a capture of its own file
    # (the run's index picks d.warc's, by id, where the worker alone would pick its own).
    gz = Builder()
    gz.response("http://z.test/own", page(100), date="2020-02-02T00:00:00Z")
    for n in range(30):
        gz.response(f"http://z.test/{n}", page(200 + n), date=f"2020-02-01T00:00:{n:02d}Z")
    _revisit(gz, "http://p.test/3", page(103), "http://p.test/3", "2020-01-01T00:00:03Z",
             "2022-01-01T00:00:00Z")
    _revisit(gz, "http://later.test/x", page(300), "http://later.test/x",
             "2020-03-03T00:00:00Z", "2022-01-01T00:00:00Z")
    _revisit(gz, "http://none.test/", b"nothing", "http://none.test/", "1999-01-01T00:00:00Z",
             "2022-01-01T00:00:00Z")
    (root / "e.warc.gz").write_bytes(gz.bytes())
    ids = Builder()
    ids.response("http://p.test/id", page(100), date="2019-01-01T00:00:00Z")
    first_id = _record_id(ids)
    (root / "a-first.warc.gz").write_bytes(ids.bytes())
    own = Builder()
    own.response("http://q.test/own", page(100), date="2020-02-02T00:00:00Z")
    _revisit(own, "http://q.test/own", page(100), "http://elsewhere.test/", "1990-01-01T00:00:00Z",
             "2023-01-01T00:00:00Z", refers_to=first_id)
    for n in range(20):
        own.response(f"http://q.test/{n}", page(400 + n))
    (root / "e2-own.warc.gz").write_bytes(own.bytes())

    # Damaged: cut inside a record near its end, and corrupt in the middle.
    cut = Builder()
    for n in range(30):
        cut.response(f"http://cut.test/{n}", page(500 + n))
    data = cut.bytes()
    (root / "f-cut.warc.gz").write_bytes(data[: cut.offsets[25] + 40])
    bad = bytearray(data)
    bad[cut.offsets[12] + 30 : cut.offsets[12] + 50] = b"\x00" * 20
    (root / "f-corrupt.warc.gz").write_bytes(bytes(bad))

    # A revisit of nothing, cut short: scan still counts it as the file's output (so no
    # "no web pages" report), which only reading the file in the main process can tell.
    lone = Builder()
    _revisit(lone, "http://lone.test/", b"gone", "http://lone.test/", "1999-01-01T00:00:00Z",
             "2022-01-01T00:00:00Z")
    (root / "f-lone.warc.gz").write_bytes(lone.bytes()[:-12])

    later = Builder().response("http://later.test/x", page(300), date="2020-03-03T00:00:00Z")
    (root / "g-later.warc.gz").write_bytes(later.bytes())

    # One gzip stream around many records, and a WACZ with a revisit inside.
    whole = Builder(gzip=False)
    for n in range(12):
        whole.response(f"http://w.test/{n}", page(600 + n))
    (root / "h-whole.warc.gz").write_bytes(gzip.compress(whole.bytes()))
    inner = Builder()
    inner.response("http://x.test/a", page(700), date="2020-01-01T00:00:00Z")
    _revisit(inner, "http://x.test/a", page(700), "http://x.test/a", "2020-01-01T00:00:00Z",
             "2021-01-01T00:00:00Z")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("datapackage.json", b"{}")
        zf.writestr("archive/data.warc.gz", inner.bytes())
    (root / "i.wacz").write_bytes(buf.getvalue())
    (root / "sub").mkdir()
    for n in range(30):
        (root / "sub" / f"{n:02d}.html").write_bytes(page(800 + n))


@pytest.mark.parametrize("range_bytes", [None, 2048, 700])
def test_mixed_folder_gives_what_scan_gives(tmp_path, range_bytes):
    root = tmp_path / "crawl"
    _mixed(root)
    if range_bytes:
        # Several files are read in ranges, and the damaged ones among them again whole.
        split = [u.file.rel for u in plan(root, 2, range_bytes=range_bytes).units
                 if hasattr(u, "ranges")]
        assert {"d.warc", "d2-quoting.warc", "e.warc.gz", "f-cut.warc.gz", "f-corrupt.warc.gz"} <= set(split)
        assert "h-whole.warc.gz" not in split
    pages, skips = _in_process(root)
    assert len(pages) > 150 and any(p[8] for p in pages)  # revisits were resolved
    assert any("truncated" in s.reason for s in skips)
    assert any("not in the opened folder" in s.reason for s in skips)
    assert _by_workers(root, range_bytes) == (pages, skips)


def test_shared_fixtures_give_what_scan_gives():
    root = shared_path("warc")
    expected = _in_process(root)
    for range_bytes in (None, 4096):
        assert _by_workers(root, range_bytes) == expected


def test_demo_archive_gives_what_scan_gives():
    assert _by_workers(DEMO_ARCHIVE, None) == _in_process(DEMO_ARCHIVE)


def test_small_crawls_are_left_to_one_process(tmp_path):
    (tmp_path / "a.html").write_bytes(page(1))
    assert read_and_extract(tmp_path, None, no_progress, 2, process=describe) is None


def _crawl(root: Path, pages: int) -> None:
    root.mkdir()
    b = Builder()
    for n in range(pages):
        b.response(f"http://x.test/{n}", page(n) * 20)
    (root / "crawl.warc.gz").write_bytes(b.bytes())
    for n in range(60):
        (root / f"{n:02d}.html").write_bytes(page(1000 + n) * 5)


def test_load_corpus_with_workers_reading_matches_one_process(tmp_path):
    root = tmp_path / "crawl"
    _crawl(root, 80)
    (root / "empty.html").write_bytes(b"")
    assert not plan(root, 2).small
    one = load_corpus(root, workers=1)
    two = load_corpus(root, workers=2)
    assert [(p.key, p.checksum, p.url, p.content_type, p.signature_count) for p in one.pages] == [
        (p.key, p.checksum, p.url, p.content_type, p.signature_count) for p in two.pages]
    assert one.skipped == two.skipped == [SkipRecord("empty.html", "empty file")]


def test_progress_counts_bytes_and_cancel_stops_the_run(tmp_path):
    root = tmp_path / "crawl"
    _crawl(root, 80)
    total = sum(p.stat().st_size for p in root.iterdir())
    calls = []
    read_and_extract(root, None, lambda *a: calls.append(a), 2, process=describe,
                     range_bytes=4096, small_here=False)
    reads = [c for c in calls if c[0] == "read"]
    assert reads[0] == ("read", 0, total) and reads[-1] == ("read", total, total)
    assert [c[1] for c in reads] == sorted(c[1] for c in reads)
    assert calls[-2][0] == "extract" and calls[-2][1] == 80 + 60

    def cancel(stage, done, total):
        if stage == "extract":
            raise Cancelled()

    with pytest.raises(Cancelled):
        read_and_extract(root, None, cancel, 2, process=describe, range_bytes=4096,
                         small_here=False)


class _Here(Executor):
    """Runs each task at once in this process: the workers' code, without the processes."""

    def submit(self, fn, /, *args, **kwargs):
        future: Future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


class _Counter:
    value = 0


def _by_tasks_here(root: Path, range_bytes: int | None) -> tuple[list[tuple], list[SkipRecord]]:
    return run_plan(plan(root, 2, range_bytes=range_bytes), _Here(), _Counter(), None, no_progress,
                    2, describe, ListEntries())


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=damaged(), second=damaged(), range_bytes=st.sampled_from([None, 300, 2000]))
def test_damaged_archives_give_what_scan_gives(tmp_path_factory, data, second, range_bytes):
    root = tmp_path_factory.mktemp("fuzz")
    (root / "a.warc.gz").write_bytes(data)
    (root / "b.warc").write_bytes(second)
    assert _by_tasks_here(root, range_bytes) == _in_process(root)


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip per record"])
def test_a_range_starts_at_the_first_record_at_or_after_its_start(gzipped):
    from workbench.archive.chunks import first_record

    b = Builder(gzip=gzipped)
    for n in range(6):
        # (A page quoting a record line is taken for a record; the ranges then fail to join
        # up and the file is read whole: test_mixed_folder_gives_what_scan_gives.)
        b.response(f"http://example.org/{n}", page(n))
    data = b.bytes()
    fh = io.BytesIO(data)
    for start in range(0, len(data) + 1, 37):
        want = next((o for o in b.offsets if o >= start), None)
        assert first_record(fh, start, gzipped) == want, start


def test_the_mb_figure_rises_with_the_pages_when_results_are_always_ready(tmp_path):
    # Issue 34: on a big crawl the workers are ahead, so a result is always ready and no
    # wait times out; bytes were reported only on such a timeout, and the MB figure stood
    # still while pages went on ("0.0 of 855.1 MB" for a whole run). _Here gives every
    # result at once, and its counter counts nothing: only the tasks themselves can say.
    root = tmp_path / "crawl"
    root.mkdir()
    for n in range(10 * 24):  # ten batches of whole files
        (root / f"{n:03d}.html").write_bytes(page(n) * (1 + n % 7))
    b = Builder()
    for n in range(40):
        b.response(f"http://x.test/{n}", page(500 + n) * 20)
    (root / "z.warc.gz").write_bytes(b.bytes())  # read in ranges
    total = sum(p.stat().st_size for p in root.iterdir())
    events: list[tuple[str, int, int | None]] = []
    run_plan(plan(root, 2, range_bytes=4096), _Here(), _Counter(), None,
             lambda *e: events.append(e), 2, describe, ListEntries())

    shown, at_extract = 0, []  # the MB figure shown beside each pages figure
    for stage, done, _ in events:
        if stage == "read":
            shown = done
        else:
            at_extract.append((done, shown))
    pages = [p for p, _ in at_extract]
    figures = [mb for _, mb in at_extract]
    assert pages[-1] == 240 + 40 and len(at_extract) > 10
    assert figures == sorted(figures), "the figure went backwards"
    rises = sum(1 for a, b in zip(figures, figures[1:], strict=False) if b > a)
    assert rises == len(figures) - 1, f"stood still at {figures}"
    assert figures[0] > 0 and figures[-1] == total  # all read once the last page is in
    assert events[-1] == ("read", total, total)
