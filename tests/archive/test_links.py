"""Symbolic links: nothing outside the opened folder is read; inside, no page twice, no loop."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.archive.warcs import Builder, page
from workbench.archive import scan
from workbench.archive.tasks import FileBatch, plan
from workbench.core.records import RawPage, SkipRecord

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges")

SECRET = b"<html><body><p>root:x:0:0:root:/root:/bin/bash secret words here</p></body></html>"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the crawl with a page-like secret and a WARC in it."""
    out = tmp_path / "outside"
    out.mkdir()
    (out / "passwd").write_bytes(SECRET)
    (out / "crawl.warc").write_bytes(
        Builder(gzip=False).response("http://secret.test/", SECRET).bytes())
    return out


def _read(root: Path) -> tuple[dict[str, RawPage], dict[str, SkipRecord]]:
    items = list(scan(root))
    pages = {i.key: i for i in items if isinstance(i, RawPage)}
    skips = {i.source: i for i in items if isinstance(i, SkipRecord)}
    assert not any(SECRET in p.data for p in pages.values()), "a page outside was read"
    return pages, skips


def _outside_reason(target: Path) -> str:
    return f"symbolic link leading outside the opened folder (to {target}): not read"


def test_links_out_of_the_folder_are_skipped_at_any_depth(tmp_path, outside):
    root = tmp_path / "crawl"
    deep = root / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (root / "story.html").write_bytes(page(1))
    os.symlink(outside / "passwd", root / "passwd.html")  # absolute, to a file
    os.symlink("../../../../outside/passwd", deep / "deep.html")  # relative, deep down
    os.symlink(outside, root / "a" / "more")  # a folder
    os.symlink(outside / "crawl.warc", root / "crawl.warc")  # an archive
    os.symlink(root / "passwd.html", root / "b-chain.html")  # a link to a link that leads out
    pages, skips = _read(root)
    assert list(pages) == ["story.html"]
    real = Path(os.path.realpath(outside))
    assert skips["passwd.html"].reason == _outside_reason(real / "passwd")
    assert skips["a/b/c/deep.html"].reason == _outside_reason(real / "passwd")
    assert skips["a/more"].reason == _outside_reason(real)
    assert skips["crawl.warc"].reason == _outside_reason(real / "crawl.warc")
    assert skips["b-chain.html"].reason == _outside_reason(real / "passwd")


def test_links_out_of_a_folder_reached_through_a_link(tmp_path, outside):
    root = tmp_path / "crawl"
    (root / "real").mkdir(parents=True)
    (root / "real" / "p.html").write_bytes(page(1))
    os.symlink(outside / "passwd", root / "real" / "out.html")
    os.symlink(root / "real", root / "a-link")  # sorted first: the folder is read through it
    pages, skips = _read(root)
    assert [p.source for p in pages.values()] == ["a-link/p.html"]
    assert skips["a-link/out.html"].reason.startswith("symbolic link leading outside")


def test_opened_folder_reached_through_a_link(tmp_path, outside):
    root = tmp_path / "crawl"
    root.mkdir()
    (root / "p.html").write_bytes(page(1))
    os.symlink(outside / "passwd", root / "out.html")
    os.symlink(root, tmp_path / "crawl-link")
    pages, skips = _read(tmp_path / "crawl-link")
    assert list(pages) == ["p.html"] and list(skips) == ["out.html"]


def test_links_inside_read_each_page_once(tmp_path):
    root = tmp_path / "crawl"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "p.html").write_bytes(page(1))
    (root / "z.html").write_bytes(page(2))
    os.symlink(root / "z.html", root / "a-first.html")  # met before its target
    os.symlink("sub/p.html", root / "sub-page.html")
    os.link(root / "z.html", root / "hard.html")
    pages, skips = _read(root)
    assert sorted(p.data for p in pages.values()) == sorted([page(1), page(2)])
    assert skips["a-first.html"].reason == (
        "symbolic link to 'z.html' in the opened folder, which is read in its own place")
    assert skips["sub-page.html"].reason == (
        "symbolic link to 'sub/p.html' in the opened folder, which is read in its own place")
    assert skips["z.html"].reason == "same file as 'hard.html' (a hard link to it)"


def test_the_parallel_plan_walks_the_same_way(tmp_path, outside):
    root = tmp_path / "crawl"
    root.mkdir()
    (root / "p.html").write_bytes(page(1))
    os.symlink(outside / "crawl.warc", root / "crawl.warc")
    items = [i for u in plan(root, 2).units if isinstance(u, FileBatch) for i in u.items]
    assert [type(i).__name__ for i in items] == ["SkipRecord", "FileEntry"]
    assert items[0].reason.startswith("symbolic link leading outside")


def test_an_opened_file_that_is_a_link_is_read(tmp_path, outside):
    os.symlink(outside / "passwd", tmp_path / "chosen.html")
    (item,) = scan(tmp_path / "chosen.html")
    assert isinstance(item, RawPage) and item.data == SECRET  # the user chose this very file
