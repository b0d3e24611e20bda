"""Gzip-compressed pages cut short or damaged: what can be decompressed is kept, and said."""

from __future__ import annotations

import gzip
import random
import zlib
from pathlib import Path

from tests.archive.test_parallel_read import _by_workers, _in_process
from tests.archive.warcs import Builder
from workbench.archive import scan
from workbench.archive.common import SkippedInput
from workbench.core.records import RawPage, SkipRecord


def _story(n_paragraphs: int = 600, seed: int = 1) -> bytes:
    rnd = random.Random(seed)
    words = ["council", "vote", "budget", "harbour", "school", "union", "strike", "mayor",
             "river", "bridge", "market", "festival", "police", "report", "weather"]
    paras = (" ".join(rnd.choice(words) for _ in range(30)) for _ in range(n_paragraphs))
    return (b"<html><head><title>Story</title></head><body>"
            + b"".join(f"<p>{p}.</p>".encode() for p in paras) + b"</body></html>")


def _partial(compressed: bytes) -> bytes:
    """What zlib itself gets out of gzip data that ends early."""
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(compressed)


def _items(root: Path) -> list[RawPage | SkipRecord]:
    return list(scan(root))


def test_cut_page_is_kept_as_far_as_it_goes(tmp_path):
    body = _story()
    cut = gzip.compress(body)[: len(gzip.compress(body)) // 2]
    (tmp_path / "cut.html.gz").write_bytes(cut)
    expected = _partial(cut)
    assert 1000 < len(expected) < len(body)
    page, note = _items(tmp_path)
    assert isinstance(page, RawPage) and page.data == expected and body.startswith(page.data)
    assert isinstance(note, SkippedInput) and note.page_kept and note.source == "cut.html.gz"
    assert note.reason == (f"truncated gzip file: the compressed page ends early; kept the "
                           f"first {len(expected):,} bytes")


def test_cut_before_anything_can_be_decompressed(tmp_path):
    (tmp_path / "head.html.gz").write_bytes(gzip.compress(_story())[:12])
    (tmp_path / "empty.html.gz").write_bytes(gzip.compress(b""))
    items = {i.source: i for i in _items(tmp_path)}
    assert items["head.html.gz"].reason == (
        "truncated gzip file: the compressed page ends before any of it could be decompressed")
    assert items["empty.html.gz"].reason == "empty file (gzip-compressed)"
    assert not any(isinstance(i, RawPage) for i in items.values())


def test_damage_in_the_middle_keeps_what_comes_before(tmp_path):
    body = _story()
    data = bytearray(gzip.compress(body))
    at = len(data) // 2
    data[at:at + 40] = bytes(40)  # zeroes in the middle of the compressed stream
    (tmp_path / "bad.html.gz").write_bytes(bytes(data))
    page, note = _items(tmp_path)
    # Everything before the damaged bytes is there (deflate may decode some garbage after
    # them before it notices: no checksum until the end).
    before = _partial(bytes(data[:at]))
    assert isinstance(page, RawPage) and len(before) > 1000
    assert page.data.startswith(before) and body.startswith(before)
    assert note.page_kept and note.reason.startswith("damaged gzip data (")
    assert note.reason.endswith(f"); kept the first {len(page.data):,} bytes")


def test_members_padding_and_trailing_junk(tmp_path):
    one, two = _story(50, 1), _story(50, 2)
    (tmp_path / "two.html.gz").write_bytes(gzip.compress(one) + gzip.compress(two))
    (tmp_path / "padded.html.gz").write_bytes(gzip.compress(one) + bytes(512))
    (tmp_path / "junk.html.gz").write_bytes(gzip.compress(one) + b"trailing junk")
    items = _items(tmp_path)
    pages = {i.source: i.data for i in items if isinstance(i, RawPage)}
    assert pages == {"two.html.gz": one + two, "padded.html.gz": one, "junk.html.gz": one}
    (note,) = [i for i in items if isinstance(i, SkipRecord)]
    assert note.source == "junk.html.gz" and note.reason == (
        f"damaged gzip data (not gzip data after the end of the compressed page); kept the "
        f"first {len(one):,} bytes")


def _warc_with_encoded_payloads(path: Path, body: bytes) -> bytes:
    cut = gzip.compress(body)[: len(gzip.compress(body)) // 2]
    b = Builder(gzip=False)
    b.response("http://x.test/cut", cut, extra_http=[("Content-Encoding", "gzip")])
    b.response("http://x.test/head", cut[:8], extra_http=[("Content-Encoding", "gzip")])
    b.response("http://x.test/whole", gzip.compress(body), extra_http=[("Content-Encoding", "gzip")])
    path.write_bytes(b.bytes())
    return cut


def test_cut_gzip_payload_in_a_warc_record(tmp_path):
    body = _story()
    cut = _warc_with_encoded_payloads(tmp_path / "c.warc", body)
    page, note, nothing, whole = _items(tmp_path)
    expected = _partial(cut)
    assert isinstance(page, RawPage) and page.data == expected and page.offset == 0
    assert isinstance(note, SkippedInput) and note.page_kept
    assert (note.source, note.offset, note.url) == ("c.warc", 0, "http://x.test/cut")
    assert note.reason == (f"the compressed payload (Content-Encoding: gzip) ends early; kept "
                           f"the first {len(expected):,} bytes")
    assert isinstance(nothing, SkipRecord) and nothing.url == "http://x.test/head"
    assert nothing.reason == ("the compressed payload (Content-Encoding: gzip) ends before any "
                              "of it could be decompressed")
    assert isinstance(whole, RawPage) and whole.data == body


def test_workers_give_the_same_notes(tmp_path):
    root = tmp_path / "crawl"
    root.mkdir()
    body = _story()
    _warc_with_encoded_payloads(root / "c.warc", body)
    (root / "cut.html.gz").write_bytes(gzip.compress(body)[:3000])
    for n in range(60):  # enough files for the work to go to worker processes
        (root / f"p{n:02}.html").write_bytes(_story(3, n))
    here = _in_process(root)
    assert sum(isinstance(s, SkippedInput) and s.page_kept for s in here[1]) == 2
    assert _by_workers(root, None) == here
