"""Page keys are unique for any file names, and map back to the file they came from."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.archive.warcs import Builder, page
from workbench.archive import scan
from workbench.archive.names import archive_file, name_text, os_name, split_key
from workbench.commands.cli import main
from workbench.core.records import RawPage

byte_names = pytest.mark.skipif(sys.platform != "linux",
                                reason="needs a file system with byte names")


def _write(folder: Path, name: bytes, data: bytes) -> None:
    with open(os.fsencode(folder) + b"/" + name, "wb") as fh:
        fh.write(data)


def _pages(root: Path) -> dict[str, RawPage]:
    items = [i for i in scan(root) if isinstance(i, RawPage)]
    keys = [i.key for i in items]
    assert len(keys) == len(set(keys)), f"keys not unique: {keys}"
    return {i.key: i for i in items}


@byte_names
def test_undecodable_byte_and_its_spelling_in_ascii_are_two_keys(tmp_path):
    _write(tmp_path, b"a\xff.html", page(1))
    _write(tmp_path, b"a\\xff.html", page(2))  # the seven characters a \ x f f . h...
    pages = _pages(tmp_path)
    assert len(pages) == 2
    for key, raw in pages.items():
        source, offset = split_key(key)
        assert offset is None
        assert archive_file(tmp_path, source).read_bytes() == raw.data


def test_a_page_named_like_a_record_key(tmp_path):
    # "a" is a WARC whose first record's key is "a#0"; "a#0" is a saved page.
    (tmp_path / "a").write_bytes(Builder(gzip=False).response("http://x.test/1", page(1)).bytes())
    (tmp_path / "a#0").write_bytes(page(2))
    pages = _pages(tmp_path)
    assert len(pages) == 2
    for key, raw in pages.items():
        source, offset = split_key(key)
        assert offset == raw.offset
        assert archive_file(tmp_path, source) == tmp_path / ("a" if offset is not None else "a#0")


@byte_names
def test_dedup_run_with_colliding_names_is_saved(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    _write(crawl, b"a\xff.html", page(1))
    _write(crawl, b"a\\xff.html", page(1))
    _write(crawl, b"b\\\\xff.html", page(3))
    _write(crawl, b"b\\xff.html", page(4))
    assert main(["dedup", str(crawl), "--project", str(tmp_path / "p.wbproj"), "-q"]) == 0


@byte_names
def test_page_view_reads_a_file_with_an_undecodable_name(tmp_path):
    from workbench.gui.sidebyside.pagetext import read_raw

    _write(tmp_path, b"caf\xe9.html", page(7))
    (raw,) = _pages(tmp_path).values()
    again = read_raw(tmp_path, raw.source, raw.offset)
    assert again is not None and again.data == page(7)


@pytest.mark.parametrize("name", ["index.html", "ok-ü.html", "page#2.html", "#a1", "a#b",
                                  "back\\slash.html", "x\\", "C:\\y.txt", "%41.html", "\\y"])
def test_ordinary_names_keep_their_keys(name):
    assert name_text(name) == name


@pytest.mark.parametrize("name, text", [
    (b"caf\xe9.html", "caf\\xe9.html"),  # as keys were written before
    (b"a\\xff", "a\\\\xff"),
    (b"a\\\\", "a\\\\\\"),
    (b"story#12", "story\\x2312"),
    (b"a\\\xff", "a\\\\\\xff"),
])
def test_escapes(name, text):
    assert name_text(os.fsdecode(name)) == text
    assert os.fsencode(os_name(text)) == name


_NAME_BYTES = st.binary(min_size=1, max_size=12).filter(
    lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b".."))


@given(st.lists(_NAME_BYTES, min_size=2, max_size=2, unique=True))
def test_any_two_names_two_keys_and_back(names):
    texts = [name_text(os.fsdecode(n)) for n in names]
    assert texts[0] != texts[1]
    for name, text in zip(names, texts, strict=True):
        assert os.fsencode(os_name(text)) == name
        assert split_key(text) == (text, None)  # a page's key never reads as a record's
        text.encode("utf-8")  # storable and printable


@given(_NAME_BYTES, st.integers(min_value=0, max_value=2**40))
def test_record_keys_split(name, offset):
    source = name_text(os.fsdecode(name))
    assert split_key(f"{source}#{offset}") == (source, offset)


def test_archive_file_stays_in_the_folder(tmp_path):
    root = tmp_path / "crawl"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "p.html").write_bytes(page(1))
    (tmp_path / "secret.html").write_bytes(page(2))
    os.symlink(tmp_path / "secret.html", root / "out.html")
    assert archive_file(root, "sub/p.html") == root / "sub" / "p.html"
    assert archive_file(root, "sub/p.html/inside.warc") == root / "sub" / "p.html"  # WACZ member
    for source in ("../secret.html", "sub/../../secret.html", "/etc/passwd", "out.html",
                   "", "sub", "missing.html"):
        assert archive_file(root, source) is None, source
    assert archive_file(root / "sub" / "p.html", "p.html") == root / "sub" / "p.html"


def test_wacz_members_with_one_name(tmp_path):
    import warnings
    import zipfile

    warc = Builder(gzip=False).response("http://x.test/1", page(1)).bytes()
    with warnings.catch_warnings(), zipfile.ZipFile(tmp_path / "p.wacz", "w") as zf:
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        zf.writestr("archive/a.warc", warc)
        zf.writestr("archive\\a.warc", warc)
        zf.writestr("archive/a.warc", warc)
    items = list(scan(tmp_path))
    assert [i.key for i in items if isinstance(i, RawPage)] == ["p.wacz/archive/a.warc#0"]
    skips = [i for i in items if not isinstance(i, RawPage)]
    assert [s.reason for s in skips] == [
        "WACZ member 'archive/a.warc' occurs twice in the package: only one is read",
        "WACZ member 'archive\\\\a.warc' has the same path as 'archive/a.warc': only that one "
        "is read"]


# Member names Windows forbids or reserves, and names that differ only by case: each
# member's records keep keys of their own, and each key reads back its own page.
AWKWARD_MEMBERS = ["archive/A.warc", "archive/a.warc", "archive/a:b.warc",
                   "archive/sub\\c.warc", "archive/CON.warc", "archive/aux.html.warc",
                   "archive/x. .warc", "archive/Ä.warc", "archive/a\u0308.warc"]


@pytest.mark.parametrize("where", ["", "deep/er/"])
def test_wacz_members_windows_cannot_name_keep_their_own_keys_and_pages(tmp_path, where):
    import zipfile

    from workbench.gui.sidebyside.pagetext import read_raw

    (tmp_path / where).mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(tmp_path / where / "p.wacz", "w") as zf:
        for n, name in enumerate(AWKWARD_MEMBERS):
            zf.writestr(name, Builder(gzip=False).response(f"http://x.test/{n}", page(n)).bytes())
    pages = _pages(tmp_path)
    assert sorted(pages) == sorted(f"{where}p.wacz/{m.replace(chr(92), '/')}#0"
                                   for m in AWKWARD_MEMBERS)
    for key, raw in pages.items():
        source, offset = split_key(key)
        assert archive_file(tmp_path, source) == tmp_path / where / "p.wacz"
        again = read_raw(tmp_path, source, offset)
        assert again is not None and again.data == raw.data, key  # its own page, not A.warc's
    # Opened as the one file, too.
    for key, raw in _pages(tmp_path / where / "p.wacz").items():
        assert read_raw(tmp_path / where / "p.wacz", *split_key(key)).data == raw.data


@pytest.mark.parametrize("names", [
    ["CON.html", "aux.html", "nul", "COM1.htm", "lpt9.html"],  # devices on Windows
    ["page.html", "Page.html", "PAGE.HTML"],  # one file on Windows and macOS
    ["a:b.html", "q?.html", "star*.html", "x.html.", "y.html "],  # refused or renamed there
    ["caf\u00e9.html", "cafe\u0301.html"],  # one file on macOS (Unicode normalisation)
])
def test_crawl_files_windows_cannot_name_have_keys_of_their_own(tmp_path, names):
    # A crawl on a Linux disk (or a share) may hold them: each is a page with its own key
    # that finds its file again; keys are stored as they were (names are their own key).
    for n, name in enumerate(names):
        (tmp_path / name).write_bytes(page(n))
    pages = _pages(tmp_path)
    assert sorted(pages) == sorted(names)
    for key, raw in pages.items():
        assert archive_file(tmp_path, key).read_bytes() == raw.data
