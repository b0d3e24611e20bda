"""``workbench dedup --skipped FILE``: every skipped input, one row each; the printed summary
says how many reasons it left out and where they all are."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import pytest

from tests.archive.warcs import Builder, page
from tests.conftest import shared_path
from workbench.archive import scan
from workbench.commands.cli import EXIT_INPUT, main
from workbench.core.records import SkipRecord

COLUMNS = ["file", "offset", "url", "reason", "page_kept"]

STORY = ("<html><head><title>Story</title></head><body>" + "".join(
    f"<p>The council will have a vote on the harbour budget {n} and the union is on strike "
    f"over the plan that the mayor has put to the board in week {n}.</p>" for n in range(12))
    + "</body></html>").encode()


def _crawl(root: Path) -> None:
    """Pages, and 13 inputs skipped for 13 different reasons."""
    root.mkdir()
    for n in range(3):
        (root / f"story{n}.html").write_bytes(STORY)
    binaries = {"a.png": b"\x89PNG\r\n\x1a\n", "b.jpg": b"\xff\xd8\xff\xe0", "c.gif": b"GIF89a",
                "d.pdf": b"%PDF-1.4", "e.ogg": b"OggS", "f.woff": b"wOFF", "g.exe": b"\x7fELF",
                "h.lz4": b"\x04\x22\x4d\x18", "i.zst": b"\x28\xb5\x2f\xfd"}
    for name, magic in binaries.items():
        (root / name).write_bytes(magic + bytes(64))
    (root / "j.css").write_bytes(b"body { color: red }\n")
    (root / "k.html").write_bytes(b"")
    (root / "n.json").write_bytes(b'{"a": 1}\n')
    compressed = gzip.compress(STORY)
    (root / "l.html.gz").write_bytes(compressed[: len(compressed) // 2])  # kept in part + a note
    b = Builder(gzip=False)
    b.response("http://news.test/gone", page(1), status="404 Not Found")
    b.response("http://news.test/story", STORY)
    (root / "m.warc").write_bytes(b.bytes())


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_every_skipped_input_is_a_row(tmp_path, capsys):
    root = tmp_path / "crawl"
    _crawl(root)
    out = tmp_path / "skipped.csv"
    assert main(["dedup", str(root), "-q", "--skipped", str(out)]) == 0
    rows = _rows(out)
    expected = [i for i in scan(root) if isinstance(i, SkipRecord)]
    assert len(rows) == len(expected) == 14
    assert [(r["file"], r["offset"], r["reason"]) for r in rows] == [
        (s.source, "" if s.offset is None else str(s.offset), s.reason) for s in expected]
    by_file = {r["file"]: r for r in rows}
    gone = by_file["m.warc"]
    assert gone["url"] == "http://news.test/gone" and gone["offset"] == "0"
    assert gone["reason"] == "HTTP status 404: not a page capture"
    cut = by_file["l.html.gz"]
    assert cut["page_kept"] == "1" and "kept the first" in cut["reason"]
    assert {r["page_kept"] for r in rows if r["file"] != "l.html.gz"} == {"0"}
    summary = capsys.readouterr().out
    assert "inputs skipped:    13\n" in summary
    assert "kept in part:      1 page" in summary
    assert f"3 more reasons (3 inputs) not shown: every skipped input is in {out}" in summary


def test_summary_points_at_the_option(tmp_path, capsys):
    root = tmp_path / "crawl"
    _crawl(root)
    assert main(["dedup", str(root), "-q"]) == 0
    summary = capsys.readouterr().out
    assert "3 more reasons (3 inputs) not shown: --skipped FILE.csv lists every skipped input" \
        in summary


def test_written_when_nothing_is_readable(tmp_path, capsys):
    root = tmp_path / "crawl"
    root.mkdir()
    for n in range(14):
        (root / f"{n:02}.bin").write_bytes(bytes([n + 1]) * 10 + bytes(64))
    (root / "empty.html").write_bytes(b"")
    out = tmp_path / "skipped.csv"
    assert main(["dedup", str(root), "--skipped", str(out)]) == EXIT_INPUT
    assert len(_rows(out)) == 15
    err = capsys.readouterr().err
    assert "no readable pages" in err and f"every skipped input is in {out}" in err


def test_shared_warc_fixtures_every_reason_in_the_file(tmp_path, capsys):
    from workbench.commands.cli import print_skipped
    from workbench.export.skipped import write_skipped

    skipped = [i for i in scan(shared_path("warc")) if isinstance(i, SkipRecord)]
    out = tmp_path / "skipped.csv"
    write_skipped(skipped, out)
    rows = _rows(out)
    assert len(rows) == len(skipped)
    assert {r["reason"] for r in rows} == {s.reason for s in skipped}
    assert sum(bool(r["url"]) for r in rows) > len(rows) // 2  # records name their capture
    text = io.StringIO()
    print_skipped(skipped, text, None)
    hidden = len({s.reason for s in skipped if not getattr(s, "page_kept", False)}) - 10
    assert hidden > 0 and f"{hidden} more reasons (" in text.getvalue()


@pytest.mark.parametrize("bad", ["/no/such/folder/skipped.csv"])
def test_unwritable_report_is_an_input_error(tmp_path, bad, capsys):
    root = tmp_path / "crawl"
    _crawl(root)
    assert main(["dedup", str(root), "-q", "--skipped", bad]) == EXIT_INPUT
    assert "cannot write" in capsys.readouterr().err


def test_a_page_cut_at_the_markup_limit_is_not_called_damaged(tmp_path, capsys):
    root = tmp_path / "crawl"
    _crawl(root)
    paragraph = b"<p>The harbour board met again today to hear the union on the budget.</p>\n"
    (root / "huge.html").write_bytes(b"<html><body>" + paragraph * (3 * 2**20 // len(paragraph))
                                     + b"</body></html>")
    out = tmp_path / "skipped.csv"
    assert main(["dedup", str(root), "-q", "--skipped", str(out)]) == 0
    summary = capsys.readouterr().out
    # One gzip page cut short, one page read only up to the 2 MB markup limit: each is
    # counted for what it is (both were called 'compressed data cut short or damaged').
    assert ("kept in part:      2 pages (1 with compressed data cut short or damaged, 1 with "
            f"markup past the 2 MB a page is read; {out} says how much was kept)") in summary
    (huge,) = [r for r in _rows(out) if r["file"] == "huge.html"]
    assert huge["page_kept"] == "1" and huge["reason"].startswith("only the first 2.0 MB")
