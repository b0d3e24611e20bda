"""Folder trees made in the test: odd names, nesting, links, permissions, limits."""

from __future__ import annotations

import gzip
import os
import sys

import pytest

from workbench.archive import scan
from workbench.core.records import RawPage, SkipRecord

HTML = b"<html><head><title>T</title></head><body><p>Some words here.</p></body></html>"


def _by_source(root):
    return {i.source: i for i in scan(root)}


def test_sorted_order_relative_posix_sources(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.html").write_bytes(HTML)
    (tmp_path / "b" / "a.html").write_bytes(HTML)
    (tmp_path / "a.htm").write_bytes(HTML)
    (tmp_path / "c.txt").write_bytes(b"Plain story text about the council.\n")
    items = list(scan(tmp_path))
    assert [i.source for i in items] == ["a.htm", "c.txt", "b/a.html", "b/z.html"]
    assert all(isinstance(i, RawPage) and i.offset is None for i in items)
    assert items[1].content_type == "text/plain" and items[0].content_type == "text/html"


def test_single_file_root(tmp_path):
    (tmp_path / "one.html").write_bytes(HTML)
    (item,) = scan(tmp_path / "one.html")
    assert item.source == "one.html" and item.data == HTML


def test_missing_root(tmp_path):
    (item,) = scan(tmp_path / "nope")
    assert isinstance(item, SkipRecord) and item.reason == "no such file or folder"


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file system with byte names")
def test_non_utf8_file_names(tmp_path):
    raw = os.fsencode(tmp_path) + b"/caf\xe9.html"
    with open(raw, "wb") as fh:
        fh.write(HTML)
    (tmp_path / "ok-ü.html").write_bytes(HTML)
    items = list(scan(tmp_path))
    assert [i.source for i in items] == ["caf\\xe9.html", "ok-ü.html"]
    for item in items:
        assert isinstance(item, RawPage)
        item.source.encode("utf-8")  # storable and printable


def test_deep_nesting(tmp_path):
    folder = tmp_path
    for _ in range(150):
        folder = folder / "d"
    os.makedirs(folder)
    (folder / "deep.html").write_bytes(HTML)
    (item,) = scan(tmp_path)
    assert isinstance(item, RawPage) and item.source == "d/" * 150 + "deep.html"


def test_symlink_loop_and_broken_link(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.html").write_bytes(HTML)
    os.symlink(tmp_path, tmp_path / "sub" / "up")
    os.symlink(tmp_path / "missing", tmp_path / "dangling.html")
    os.symlink(tmp_path / "self-a", tmp_path / "self-b")
    os.symlink(tmp_path / "self-b", tmp_path / "self-a")
    items = _by_source(tmp_path)
    assert isinstance(items["sub/p.html"], RawPage)
    assert items["sub/up"].reason.startswith("symbolic link loop")
    assert items["dangling.html"].reason == "broken symbolic link"
    assert items["self-a"].reason == "symbolic link loop"
    assert len(items) == 5


def test_same_folder_twice_through_a_link(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "p.html").write_bytes(HTML)
    os.symlink(tmp_path / "a", tmp_path / "b")
    items = _by_source(tmp_path)
    assert isinstance(items["a/p.html"], RawPage)
    assert items["b"].reason == "same folder as 'a' (reached again through a symbolic link)"


def test_unreadable_file_and_folder(tmp_path, monkeypatch):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.html").write_bytes(HTML)
    (tmp_path / "secret.html").write_bytes(HTML)
    (tmp_path / "fine.html").write_bytes(HTML)
    real_open, real_scandir = open, os.scandir

    def fake_open(path, *args, **kwargs):
        if str(path).endswith("secret.html"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    def fake_scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    # Root may read anything, so the refusal is simulated where the reader asks.
    monkeypatch.setattr("builtins.open", fake_open)
    monkeypatch.setattr(os, "scandir", fake_scandir)
    items = _by_source(tmp_path)
    assert items["secret.html"].reason == "permission denied"
    assert items["locked"].reason == "permission denied (folder)"
    assert isinstance(items["fine.html"], RawPage)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads files whatever their mode")
def test_unreadable_file_for_real(tmp_path):
    path = tmp_path / "secret.html"
    path.write_bytes(HTML)
    path.chmod(0)
    try:
        (item,) = scan(tmp_path)
        assert item.reason == "permission denied"
    finally:
        path.chmod(0o644)


def test_zero_byte_fifo_and_binaries(tmp_path):
    (tmp_path / "empty.html").write_bytes(b"")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    (tmp_path / "style.css").write_bytes(b"body { color: red }\n")
    (tmp_path / "photo").write_bytes(b"\xff\xd8\xff\xe0" + bytes(100))
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1" + bytes(100))
    (tmp_path / "feed.xml").write_bytes(b'<?xml version="1.0"?><rss><channel/></rss>')
    items = _by_source(tmp_path)
    assert items["empty.html"].reason == "empty file"
    assert items["pipe"].reason == "not a regular file (a named pipe)"
    assert items["logo.png"].reason == "not a web page: image/png"
    assert items["style.css"].reason == "not a web page: text/css"
    assert items["photo"].reason == "not a web page: image/jpeg"
    assert items[".DS_Store"].reason == "not a web page: application/octet-stream"
    assert items["feed.xml"].reason == "not a web page: application/xml"


def test_html_without_extension_and_saved_from_url(tmp_path):
    saved = b"<!-- saved from url=(0022)http://news.test/a1 -->\n" + HTML
    (tmp_path / "page").write_bytes(saved)
    (item,) = scan(tmp_path)
    assert item.content_type == "text/html" and item.url == "http://news.test/a1"


def test_gzip_pages_and_bomb(tmp_path):
    (tmp_path / "p.html.gz").write_bytes(gzip.compress(HTML))
    (tmp_path / "bomb.html.gz").write_bytes(
        gzip.compress(b"<html><p>" + b"a" * (51 * 2**20), compresslevel=1)
    )
    (tmp_path / "cut.html.gz").write_bytes(gzip.compress(HTML * 50)[:-20])
    (tmp_path / "img.gz").write_bytes(gzip.compress(b"\x89PNG\r\n\x1a\n" + bytes(50)))
    items = _by_source(tmp_path)
    assert items["p.html.gz"].data == HTML
    assert items["bomb.html.gz"].reason == (
        "larger than the 50 MB page limit after decompression")
    assert items["cut.html.gz"].reason.startswith("truncated gzip file")
    assert items["img.gz"].reason == "not a web page: image/png (gzip-compressed)"


def test_page_limit_for_plain_files(tmp_path):
    path = tmp_path / "huge.html"
    with open(path, "wb") as fh:
        fh.write(HTML + b"<p>text</p>" * 3000)  # what the sniffer sees is a page
        fh.truncate(60 * 2**20)  # sparse: costs no disk or time
    (item,) = scan(tmp_path)
    assert item.reason == "larger than the 50 MB page limit (60.0 MB)"


def test_utf16_page_with_bom(tmp_path):
    (tmp_path / "u.htm").write_bytes("\ufeff<html><p>Grüße</p></html>".encode("utf-16-le"))
    (item,) = scan(tmp_path)
    assert isinstance(item, RawPage) and item.content_type == "text/html"
