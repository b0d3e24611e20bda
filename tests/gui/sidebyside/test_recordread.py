"""A page shown side by side is read again at its WARC record, not from the file's start."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.conftest import shared_path
from workbench.archive import scan
from workbench.archive.reread import page as reread
from workbench.core.records import RawPage
from workbench.gui.sidebyside.pagetext import read_raw


def _crawl(folder: Path, pages: int, *, gzip: bool) -> Path:
    folder.mkdir()
    with open(folder / ("crawl.warc.gz" if gzip else "crawl.warc"), "wb") as fh:
        writer = WARCWriter(fh, gzip=gzip)
        for i in range(pages):
            body = f"<html><title>Story {i}</title><p>{'word ' * 50}{i}</p></html>".encode()
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                f"http://example.org/{i}", "response", payload=io.BytesIO(body), http_headers=http))
    return folder


@pytest.mark.parametrize("gzip", [True, False])
def test_a_page_is_read_at_its_record_without_reading_the_file_from_its_start(
        tmp_path, monkeypatch, gzip):
    """The Down key waited on the archive being read up to the page: a second a page on a
    12 MB WARC. With the whole-file reader taken away, every page still reads, the same."""
    root = _crawl(tmp_path / "crawl", 30, gzip=gzip)
    pages = [p for p in scan(root) if isinstance(p, RawPage)]
    assert len(pages) == 30

    def no_scan(*_args, **_kwargs):
        raise AssertionError("the archive was read from its start")

    monkeypatch.setattr(reread, "scan", no_scan)  # read_raw lives in workbench.archive.reread.page
    for page in reversed(pages):
        assert read_raw(root, page.source, page.offset) == page


def test_every_page_of_the_shared_warc_files_reads_again_as_detection_read_it():
    """Damaged files, revisits, ARC, whole-file gzip: where a record cannot be read alone
    with certainty, the file is read from its start as before; either way the page is the
    one detection saw."""
    root = shared_path("warc")
    pages = [p for p in scan(root) if isinstance(p, RawPage)]
    assert len(pages) > 200
    for page in pages:
        again = read_raw(root, page.source, page.offset)
        # Read from the file alone (as before), a page names its file without the folders
        # above it; the view uses neither name.
        assert again is not None and replace(
            again, source=page.source, revisit_of=page.revisit_of) == page, page.key
