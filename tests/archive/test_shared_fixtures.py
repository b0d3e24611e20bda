"""The reader over every shared WARC/ARC fixture and the dev Gold Set (skip when absent).

The expected numbers are what the reader was observed to produce, checked by hand
against the files: damaged files report where, and keep what came before.
"""

from __future__ import annotations

import collections

import pytest

from tests.conftest import shared_path
from workbench.archive import scan
from workbench.core.records import RawPage, SkipRecord

# source -> (pages, {skip reason: count})
EXPECTED = {
    'archivesunleashed+aut/badexample.arc.gz': (
        0,
        {
            ('not a web page: application/arc (served as text/html)'): 1,
            ('not a web page: robots.txt'): 1,
            ('unreadable record at byte 3,118 (ArchiveLoadFailed: Invalid ARC record, '
             "first line: ['Content-Type:', ';', 'charset=UTF-8']): 4 records read "
             'before the damage'): 1,
        },
    ),
    'archivesunleashed+aut/example.arc.gz': (
        97,
        {
            ('HTTP status 301: not a page capture'): 2,
            ('HTTP status 302: not a page capture'): 5,
            ('HTTP status 404: not a page capture'): 40,
            ('not a web page: application/x-javascript'): 8,
            ('not a web page: application/x-shockwave-flash'): 8,
            ('not a web page: image/gif'): 29,
            ('not a web page: image/jpeg'): 18,
            ('not a web page: image/png'): 8,
            ('not a web page: robots.txt'): 33,
            ('not a web page: text/css'): 4,
            ('not a web page: text/xml'): 9,
        },
    ),
    'archivesunleashed+aut/example.docs.warc.gz': (
        0,
        {
            ('not a web page: application/rtf'): 1,
            ('not a web page: application/vnd.oasis.opendocument.presentation'): 1,
            ('not a web page: application/vnd.oasis.opendocument.spreadsheet'): 1,
            ('not a web page: application/vnd.oasis.opendocument.text'): 1,
            ('not a web page: '
             'application/vnd.openxmlformats-officedocument.presentationml.presentation'): 1,
            ('not a web page: '
             'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'): 1,
            ('not a web page: '
             'application/vnd.openxmlformats-officedocument.wordprocessingml.document'): 1,
            ('not a web page: text/csv'): 1,
            ('not a web page: text/tab-separated-values'): 1,
        },
    ),
    'archivesunleashed+aut/example.pdf.warc.gz': (
        1,
        {
            ('HTTP status 302: not a page capture'): 2,
            ('HTTP status 404: not a page capture'): 1,
            ('not a web page: application/javascript'): 6,
            ('not a web page: application/json'): 1,
            ('not a web page: application/json (revisit)'): 2,
            ('not a web page: application/pdf'): 2,
            ('not a web page: image/gif'): 2,
            ('not a web page: image/jpeg'): 1,
            ('not a web page: image/png'): 5,
            ('not a web page: text/css'): 11,
            ('not a web page: text/javascript'): 3,
        },
    ),
    'archivesunleashed+aut/example.txt.warc.gz': (2, {}),
    'archivesunleashed+aut/example.warc.gz': (
        97,
        {
            ('HTTP status 301: not a page capture'): 2,
            ('HTTP status 302: not a page capture'): 5,
            ('HTTP status 404: not a page capture'): 40,
            ('not a web page: application/x-javascript'): 8,
            ('not a web page: application/x-shockwave-flash'): 8,
            ('not a web page: image/gif'): 29,
            ('not a web page: image/jpeg'): 18,
            ('not a web page: image/png'): 8,
            ('not a web page: robots.txt'): 33,
            ('not a web page: text/css'): 4,
            ('not a web page: text/xml'): 9,
        },
    ),
    'archivesunleashed+aut/issue-493.warc': (
        4,
        {
            ('HTTP status 301: not a page capture'): 1,
            ('not a web page: image/gif'): 5,
            ('not a web page: image/gif (revisit)'): 5,
        },
    ),
    'archivesunleashed+aut/issue-514.warc': (
        1,
        {
            ('HTTP status 307: not a page capture'): 1,
        },
    ),
    'chatnoir-eu+chatnoir-resiliparse/block-sized-records.warc': (
        0,
        {
            ('no web pages in this archive (3 unknown records)'): 1,
        },
    ),
    'chatnoir-eu+chatnoir-resiliparse/block-sized-records.warc.gz': (
        0,
        {
            ('no web pages in this archive (3 unknown records)'): 1,
        },
    ),
    'chatnoir-eu+chatnoir-resiliparse/block-sized-records.warc.lz4': (
        0,
        {
            ('LZ4-compressed WARC is not supported'): 1,
        },
    ),
    'chatnoir-eu+chatnoir-resiliparse/clipped.warc.gz': (
        0,
        {
            ('truncated gzip member at byte 0 (75,207 of 88,275 bytes present): 0 '
             'records read before the damage'): 1,
        },
    ),
    'chatnoir-eu+chatnoir-resiliparse/clueweb-quirk.warc.gz': (29, {}),
    'chatnoir-eu+chatnoir-resiliparse/warcfile.warc': (16, {}),
    'chatnoir-eu+chatnoir-resiliparse/warcfile.warc.gz': (16, {}),
    'chatnoir-eu+chatnoir-resiliparse/warcfile.warc.lz4': (
        0,
        {
            ('LZ4-compressed WARC is not supported'): 1,
        },
    ),
    'iipc+jwarc/cc.warc.gz': (1, {}),
    'iipc+jwarc/gzip_extra_sl.warc.gz': (
        0,
        {
            ('no web pages in this archive (1 warcinfo record)'): 1,
        },
    ),
    'webrecorder+warcio/bad.arc': (
        0,
        {
            ('empty payload'): 3,
        },
    ),
    'webrecorder+warcio/example-bad-non-chunked.warc.gz': (2, {}),
    'webrecorder+warcio/example-bad.warc.gz.bad': (
        2,
        {
            ('HTTP status 302: not a page capture'): 1,
        },
    ),
    'webrecorder+warcio/example-digest.warc': (
        0,
        {
            ('no web pages in this archive (4 request records)'): 1,
        },
    ),
    'webrecorder+warcio/example-iana.org-chunked.warc': (1, {}),
    'webrecorder+warcio/example-resource.warc.gz': (1, {}),
    'webrecorder+warcio/example-space-in-target-uri.warc.gz': (
        0,
        {
            ('not a web page: image/png'): 1,
        },
    ),
    'webrecorder+warcio/example-space-in-url.arc': (
        0,
        {
            ('record at byte 151 cut short (1,579 of 1,591 bytes present): 1 record '
             'read before the damage'): 1,
        },
    ),
    'webrecorder+warcio/example-trunc.warc': (
        1,
        {
            # The payload's gzip stream is cut (its end and checksum are missing).
            ('the compressed payload (Content-Encoding: gzip) ends early; kept the first '
             '1,270 bytes'): 1,
        },
    ),
    'webrecorder+warcio/example-wget-bad-target-uri.warc.gz': (1, {}),
    'webrecorder+warcio/example-wrong-chunks.warc.gz': (1, {}),
    'webrecorder+warcio/example.arc': (1, {}),
    'webrecorder+warcio/example.arc.gz': (1, {}),
    'webrecorder+warcio/example.warc': (2, {}),
    'webrecorder+warcio/example.warc.gz': (2, {}),
    'webrecorder+warcio/post-test.warc.gz': (
        0,
        {
            ('not a web page: application/json'): 3,
        },
    ),
}


@pytest.fixture(scope="module")
def warc_results():
    root = shared_path("warc")
    pages: collections.Counter[str] = collections.Counter()
    skips: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    items = list(scan(root))
    for item in items:
        if isinstance(item, RawPage):
            pages[item.source] += 1
        else:
            assert isinstance(item, SkipRecord)
            skips[item.source][item.reason] += 1
    return root, pages, skips, items


def test_every_fixture_yields_pages_or_specific_skips(warc_results):
    root, pages, skips, _ = warc_results
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert files == sorted(EXPECTED), "a fixture was added or removed: update EXPECTED"
    for name in files:
        assert pages[name] or skips[name], name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_counts_and_reasons(warc_results, name):
    _, pages, skips, _ = warc_results
    want_pages, want_skips = EXPECTED[name]
    assert pages[name] == want_pages
    assert dict(skips[name]) == want_skips


def test_keys_unique_and_provenance_filled(warc_results):
    _, _, _, items = warc_results
    found = [i for i in items if isinstance(i, RawPage)]
    keys = [p.key for p in found]
    assert len(keys) == len(set(keys))
    for page in found:
        assert page.offset is not None and page.data
        assert page.url and page.capture_date and page.capture_date[:2] in ("19", "20")
        assert page.content_type


def test_revisit_resolves_to_the_original_payload(warc_results):
    _, _, _, items = warc_results
    by_key = {p.key: p for p in items if isinstance(p, RawPage)}
    revisit = by_key["webrecorder+warcio/example.warc#3370"]
    original = by_key["webrecorder+warcio/example.warc#1197"]
    assert revisit.revisit_of == original.key
    assert revisit.data == original.data and b"Example Domain" in revisit.data
    assert revisit.capture_date != original.capture_date  # both captures stay visible


def test_order_is_deterministic(warc_results):
    root, _, _, items = warc_results
    again = list(scan(root))
    assert [(type(i).__name__, i.source, i.offset) for i in again] == [
        (type(i).__name__, i.source, i.offset) for i in items
    ]


def test_goldset_dev_all_pages_read(goldset_dev):
    items = list(scan(goldset_dev))
    skipped = [i for i in items if isinstance(i, SkipRecord)]
    assert skipped == []
    assert len(items) == 1050
    assert all(i.content_type == "text/html" and i.offset is None for i in items)
    assert len({i.source for i in items}) == 1050


def test_goldset_dev_every_title_non_empty(goldset_dev):
    import re

    from workbench.detect.spotsigs.extract import extract_text

    has_title = re.compile(rb"<title[^>]*>\s*[^<\s]", re.I)
    empty = []
    for page in scan(goldset_dev):
        if has_title.search(page.data):
            continue  # a plain <title> with text: no need to run the full extraction
        extracted, _ = extract_text(page)
        if not extracted.title.strip():
            empty.append(page.source)
    assert empty == []
