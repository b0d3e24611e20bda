"""WARC/ARC/WACZ reading on files made in the test: damage, revisits, limits, progress."""

from __future__ import annotations

import base64
import gzip
import hashlib
import zipfile

import pytest

from tests.archive.warcs import Builder, page
from workbench.archive import PAGE_LIMIT_BYTES, scan
from workbench.core.progress import Cancelled
from workbench.core.records import RawPage, SkipRecord


def _split(items):
    items = list(items)
    pages = [i for i in items if isinstance(i, RawPage)]
    skips = [i for i in items if isinstance(i, SkipRecord)]
    return pages, skips


def _digest(body: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()


def _three(gz: bool = True) -> Builder:
    b = Builder(gzip=gz)
    b.request("http://x.test/1")
    for n in range(1, 4):
        b.response(f"http://x.test/{n}", page(n), date=f"2020-05-0{n}T10:00:00Z")
    return b


@pytest.mark.parametrize("gz", [True, False])
def test_pages_with_provenance(tmp_path, gz):
    b = _three(gz)
    (tmp_path / "crawl.warc").write_bytes(b.bytes())
    pages, skips = _split(scan(tmp_path))
    assert skips == []
    assert [p.url for p in pages] == ["http://x.test/1", "http://x.test/2", "http://x.test/3"]
    assert [p.offset for p in pages] == b.offsets[1:]
    first = pages[0]
    assert first.source == "crawl.warc" and first.key == f"crawl.warc#{b.offsets[1]}"
    assert first.capture_date == "2020-05-01T10:00:00Z" and first.http_status == 200
    assert first.content_type == "text/html; charset=utf-8" and first.charset_hint == "utf-8"
    assert first.data == page(1)


def test_whole_file_gzip(tmp_path):
    plain = _three(gz=False).bytes()
    (tmp_path / "whole.warc.gz").write_bytes(gzip.compress(plain))
    pages, skips = _split(scan(tmp_path))
    assert skips == [] and [p.data for p in pages] == [page(1), page(2), page(3)]
    assert len({p.key for p in pages}) == 3


def test_sniffed_by_content_not_name(tmp_path):
    (tmp_path / "no-extension").write_bytes(_three().bytes())
    (tmp_path / "looks.html").write_bytes(_three(gz=False).bytes())
    pages, skips = _split(scan(tmp_path))
    assert skips == [] and len(pages) == 6


def test_truncated_gzip_member_keeps_records_before(tmp_path):
    b = _three()
    data = b.bytes()
    cut = b.offsets[3] + 40  # inside the third response's gzip member
    (tmp_path / "cut.warc.gz").write_bytes(data[:cut])
    pages, skips = _split(scan(tmp_path))
    assert [p.data for p in pages] == [page(1), page(2)]
    assert len(skips) == 1
    assert skips[0].reason == (
        f"truncated gzip member at byte {b.offsets[3]:,}: 3 records read before the damage"
    )
    assert skips[0].offset == b.offsets[3]


def test_plain_record_cut_short(tmp_path):
    b = _three(gz=False)
    data = b.bytes()
    (tmp_path / "cut.warc").write_bytes(data[: len(data) - 30])
    pages, skips = _split(scan(tmp_path))
    assert len(pages) == 2
    (skip,) = skips
    assert skip.reason.startswith(f"record at byte {b.offsets[3]:,} cut short (")
    assert skip.reason.endswith("bytes present): 3 records read before the damage")


def test_damage_in_the_middle_resyncs(tmp_path):
    b = _three()
    data = bytearray(b.bytes())
    # Corrupt the deflate data of the second response: later records must still come.
    start = b.offsets[2] + 30
    data[start : start + 20] = b"\x00" * 20
    (tmp_path / "bad.warc.gz").write_bytes(bytes(data))
    pages, skips = _split(scan(tmp_path))
    assert [p.data for p in pages] == [page(1), page(3)]
    assert len(skips) == 1 and str(b.offsets[2]) in skips[0].reason.replace(",", "")
    assert "2 records read before the damage" in skips[0].reason


def test_garbage_between_plain_records_resyncs(tmp_path):
    b = _three(gz=False)
    data = b.bytes()
    bad = data[: b.offsets[2]] + b"GARBAGE LINE\r\n" + data[b.offsets[2] :]
    (tmp_path / "bad.warc").write_bytes(bad)
    pages, skips = _split(scan(tmp_path))
    assert [p.data for p in pages] == [page(1), page(2), page(3)]
    assert [p.offset for p in pages] == [b.offsets[1], b.offsets[2] + 14, b.offsets[3] + 14]
    (skip,) = skips
    assert skip.reason.startswith(f"unreadable record at byte {b.offsets[2]:,} (")
    assert skip.reason.endswith("first line: GARBAGE LINE): 2 records read before the damage")


def test_not_pages_and_status(tmp_path):
    b = Builder()
    b.response("http://x.test/a.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, ctype="image/png")
    b.response("http://x.test/gone", page(1), status="404 Not Found")
    b.response("http://x.test/robots.txt", b"User-agent: *\n", ctype="text/plain")
    b.response("http://x.test/lie", b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, ctype="text/html")
    b.response("http://x.test/vague", page(2), ctype="application/octet-stream")
    b.response("http://x.test/empty", b"", ctype="text/html")
    b.response("http://x.test/br", b"\x8b\x01\x80hello", extra_http=[("Content-Encoding", "zz")])
    b.resource("file:///notes.html", page(3))
    (tmp_path / "mixed.warc.gz").write_bytes(b.bytes())
    pages, skips = _split(scan(tmp_path))
    assert [p.url for p in pages] == ["http://x.test/vague", "file:///notes.html"]
    assert pages[0].content_type == "application/octet-stream"
    assert [s.reason for s in skips] == [
        "not a web page: image/png",
        "HTTP status 404: not a page capture",
        "not a web page: robots.txt",
        "not a web page: image/png (served as text/html)",
        "empty payload",
        "payload compressed as 'zz' (Content-Encoding), which is not supported",
    ]
    assert all(s.offset is not None for s in skips)


def test_gzip_content_encoding_is_decompressed(tmp_path):
    body = gzip.compress(page(7))
    b = Builder().response("http://x.test/z", body, extra_http=[("Content-Encoding", "gzip")])
    (tmp_path / "z.warc.gz").write_bytes(b.bytes())
    (p,) = scan(tmp_path)
    assert p.data == page(7)


def test_page_limit_in_a_record(tmp_path):
    big = b"<html><p>" + b"a" * (PAGE_LIMIT_BYTES + 10) + b"</p></html>"
    b = Builder().response("http://x.test/big", big).response("http://x.test/ok", page(1))
    (tmp_path / "big.warc.gz").write_bytes(b.bytes())
    pages, skips = _split(scan(tmp_path))
    assert [p.url for p in pages] == ["http://x.test/ok"]
    assert skips[0].reason == "larger than the 50 MB page limit"


def test_no_pages_at_all(tmp_path):
    (tmp_path / "req.warc").write_bytes(Builder(gzip=False).request("http://x.test/").bytes())
    (skip,) = scan(tmp_path)
    assert skip.reason == "no web pages in this archive (1 request record)"


def test_revisit_by_uri_date_and_by_digest(tmp_path):
    b = Builder()
    b.response("http://x.test/a", page(1), date="2020-01-01T00:00:00Z")
    b.revisit("http://x.test/a", _digest(page(1)), "http://x.test/a", "2020-01-01T00:00:00Z",
              date="2021-01-01T00:00:00Z")
    # A revisit that names another URL but the same payload digest.
    b.revisit("http://mirror.test/a", _digest(page(1)), "http://other.test/",
              "1999-01-01T00:00:00Z", date="2022-01-01T00:00:00Z")
    (tmp_path / "r.warc.gz").write_bytes(b.bytes())
    pages, skips = _split(scan(tmp_path))
    assert skips == []
    orig, rv1, rv2 = pages
    assert rv1.data == rv2.data == orig.data == page(1)
    assert rv1.revisit_of == rv2.revisit_of == orig.key
    assert (rv1.capture_date, rv2.url) == ("2021-01-01T00:00:00Z", "http://mirror.test/a")
    assert rv1.http_status == 200  # the original's status, not 304


def test_revisit_before_its_original_and_unresolved(tmp_path):
    first = Builder().revisit("http://x.test/b", _digest(page(2)), "http://x.test/b",
                              "2020-02-02T00:00:00Z")
    first.revisit("http://x.test/none", _digest(b"nothing"), "http://x.test/none",
                  "2020-03-03T00:00:00Z")
    second = Builder().response("http://x.test/b", page(2), date="2020-02-02T00:00:00Z")
    (tmp_path / "a-revisits.warc.gz").write_bytes(first.bytes())
    (tmp_path / "b-originals.warc.gz").write_bytes(second.bytes())
    items = list(scan(tmp_path))
    pages, skips = _split(items)
    assert [p.source for p in pages] == ["b-originals.warc.gz", "a-revisits.warc.gz"]
    assert pages[1].data == page(2) and pages[1].revisit_of == pages[0].key
    (skip,) = skips
    assert skip.reason == ("revisit of http://x.test/none of 2020-03-03T00:00:00Z: the original "
                           "capture is not in the opened folder")


def test_revisit_in_whole_gzip_file(tmp_path):
    b = Builder(gzip=False)
    b.response("http://x.test/a", page(1), date="2020-01-01T00:00:00Z")
    b.revisit("http://x.test/a", _digest(page(1)), "http://x.test/a", "2020-01-01T00:00:00Z")
    (tmp_path / "w.warc.gz").write_bytes(gzip.compress(b.bytes()))
    pages, skips = _split(scan(tmp_path))
    assert skips == [] and [p.data for p in pages] == [page(1), page(1)]


def test_arc_file(tmp_path):
    body = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + page(1)
    header = b"filedesc://t.arc 0.0.0.0 20200101000000 text/plain 75\n" \
        b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n\n"
    header = header.replace(b" 75\n", b" %d\n" % (len(header.split(b"\n", 1)[1]) - 1), 1)
    rec = b"http://x.test/ 1.2.3.4 20200101120000 text/html %d\n" % len(body) + body + b"\n"
    (tmp_path / "t.arc").write_bytes(header + rec)
    (p,) = [i for i in scan(tmp_path) if isinstance(i, RawPage)]
    assert p.url == "http://x.test/" and p.capture_date == "2020-01-01T12:00:00Z"
    assert p.data == page(1) and p.http_status == 200


def _wacz(path, members: dict[str, bytes], compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        zf.writestr("datapackage.json", b"{}")
        for name, data in members.items():
            zf.writestr(name, data)


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_wacz_read_in_place(tmp_path, compression):
    b = Builder()
    b.response("http://x.test/a", page(1), date="2020-01-01T00:00:00Z")
    b.revisit("http://x.test/a", _digest(page(1)), "http://x.test/a", "2020-01-01T00:00:00Z")
    _wacz(tmp_path / "c.wacz", {"archive/data.warc.gz": b.bytes()}, compression)
    before = sorted(p.name for p in tmp_path.iterdir())
    pages, skips = _split(scan(tmp_path))
    assert skips == []
    assert [p.source for p in pages] == ["c.wacz/archive/data.warc.gz"] * 2
    assert pages[1].data == page(1) and pages[1].revisit_of == pages[0].key
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing extracted


def test_wacz_unsafe_names_and_plain_zip(tmp_path):
    w = Builder().response("http://x.test/a", page(1)).bytes()
    _wacz(tmp_path / "evil.wacz", {"archive/../../../etc/x.warc.gz": w,
                                   "archive/ok.warc.gz": w})
    with zipfile.ZipFile(tmp_path / "docs.zip", "w") as zf:
        zf.writestr("readme.txt", "hello")
    pages, skips = _split(scan(tmp_path))
    assert [p.source for p in pages] == ["evil.wacz/archive/ok.warc.gz"]
    reasons = sorted(s.reason for s in skips)
    assert reasons[0].startswith("not a web page: ZIP file that is not a WACZ package")
    assert reasons[1] == "unsafe member path in WACZ: 'archive/../../../etc/x.warc.gz'"
    assert not (tmp_path.parent / "etc").exists()


def test_damaged_zip(tmp_path):
    (tmp_path / "bad.wacz").write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    (skip,) = scan(tmp_path)
    assert skip.reason.startswith("damaged ZIP file")


def test_lz4_and_other_compressions(tmp_path):
    (tmp_path / "a.warc.lz4").write_bytes(b"\x04\x22\x4d\x18\x64\x40\xa7WARC/1.1\r\n")
    (tmp_path / "b.warc.zst").write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 20)
    reasons = [s.reason for s in scan(tmp_path)]
    assert reasons == ["LZ4-compressed WARC is not supported",
                       "Zstandard-compressed file is not supported"]


def test_progress_counts_bytes_and_cancel_propagates(tmp_path):
    for i in range(3):
        (tmp_path / f"c{i}.warc.gz").write_bytes(_three().bytes())
    total = sum(p.stat().st_size for p in tmp_path.iterdir())
    calls = []
    list(scan(tmp_path, lambda stage, done, tot: calls.append((stage, done, tot))))
    assert {c[0] for c in calls} == {"read"} and all(c[2] == total for c in calls)
    dones = [c[1] for c in calls]
    assert dones == sorted(dones) and dones[-1] == total and dones[0] == 0

    def cancel(stage, done, tot):
        if done > 0:
            raise Cancelled()

    with pytest.raises(Cancelled):
        list(scan(tmp_path, cancel))


def test_billion_laughs_page_is_harmless(tmp_path):
    lol = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
        + "".join(
            f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'
            for i in range(1, 10)
        )
        + ' <!ENTITY ext SYSTEM "http://198.51.100.1/evil">\n]>\n'
        "<html><head><title>Laughs</title></head><body><p>&lol9; &ext;</p></body></html>"
    )
    (tmp_path / "lol.xhtml").write_text(lol)
    (p,) = scan(tmp_path)
    assert p.content_type == "text/html"
    from workbench.detect.spotsigs.extract import extract_text

    extracted, _ = extract_text(p)
    # The entities were never expanded (that is what made it harmless, not a time bound).
    assert len(extracted.text) < 10_000 and "lollollol" not in extracted.text
