"""Every CSV the program writes passes its cells through one rule (export.cells): a cell a
spreadsheet would run as a formula, in ASCII or full width, comes out as text."""

from __future__ import annotations

import csv
import re
import sys
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.commands.cli import main
from workbench.export import read_codebook, write_codebook
from workbench.export.cells import escape, inert, is_formula, unescape
from workbench.store import Project

ASCII_TRIGGERS = ["=", "+", "-", "@", "\t", "\r"]
WIDE_TRIGGERS = ["\uff1d", "\uff0b", "\uff0d", "\uff20"]  # ＝ ＋ － ＠
TRIGGERS = ASCII_TRIGGERS + WIDE_TRIGGERS

STORY = ("<html><head><title>{title}</title></head><body>" + "".join(
    f"<p>The council will have a vote on the harbour budget {n} and the union is on strike "
    f"over the plan that the mayor has put to the board in week {n}.</p>" for n in range(12))
    + "</body></html>")


@pytest.mark.parametrize("start", TRIGGERS)
def test_the_rule(start):
    value = f"{start}HYPERLINK(\"http://x\")"
    assert is_formula(value)
    assert inert(value) == "'" + value
    assert unescape(escape(value)) == value
    assert not is_formula(inert(value))


@pytest.mark.parametrize("value", ["", "plain", "1.5", "'quoted", " =not at the start",
                                   "a=b", "über", "\u2212minus sign"])
def test_ordinary_cells_pass(value):
    assert inert(value) == value and not is_formula(value)


def test_other_compatibility_forms_of_the_triggers():
    # Small forms and the like read as = + - @ too (their compatibility form is one).
    for ch in ("\ufe66", "\ufe62", "\ufe63", "\ufe6b"):
        assert unicodedata.normalize("NFKC", ch) in "=+-@"
        assert is_formula(ch + "1+1")


def _cells(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return list(csv.reader(fh))


def _assert_inert(path: Path) -> None:
    for row in _cells(path):
        for cell in row:
            assert not is_formula(cell), f"{path.name}: live formula cell {cell!r}"
            assert not cell.startswith(tuple(TRIGGERS)), f"{path.name}: {cell!r}"


@pytest.mark.skipif(sys.platform == "win32", reason="file names with tab and CR")
def test_every_writer_of_the_command_line(tmp_path):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    names = [f"{t}HYPERLINK {n}.html" for n, t in enumerate(TRIGGERS)]
    empties = [f"{t}empty {n}.html" for n, t in enumerate(TRIGGERS)]
    for n, name in enumerate(names):
        (crawl / name).write_text(STORY.format(title=f"{TRIGGERS[n]}SUM(A{n})"), encoding="utf-8")
        (crawl / empties[n]).write_bytes(b"")
    outs = {k: tmp_path / f"{k}.csv" for k in ("pairs", "clusters", "skipped", "export")}
    project = tmp_path / "p.wbproj"
    assert main(["dedup", str(crawl), "-q", "--pairs", str(outs["pairs"]), "--clusters",
                 str(outs["clusters"]), "--skipped", str(outs["skipped"]), "--project",
                 str(project), "--min-sigs", "1"]) == 0
    assert main(["export", str(project), "--out", str(outs["export"]), "--all"]) == 0
    for path in outs.values():
        _assert_inert(path)
    written = {cell for row in _cells(outs["clusters"])[1:] for cell in row[1:2]}
    assert written == {"'" + name for name in names}
    assert {row[0] for row in _cells(outs["skipped"])[1:]} == {"'" + name for name in empties}
    pairs = _cells(outs["pairs"])[1:]
    assert {c for row in pairs for c in row[:2]} == {"'" + name for name in names}
    exported = {row[7]: row[12] for row in _cells(outs["export"])[1:]}  # path -> title
    assert set(exported) == {"'" + name for name in names}
    for n, t in enumerate(TRIGGERS):
        if t.strip():  # a title's leading tab or CR is gone with the whitespace
            assert exported["'" + names[n]] == f"'{t}SUM(A{n})"


def test_codebook_with_full_width_and_control_starts(tmp_path):
    p = Project.create(tmp_path / "a.wbproj", "/crawl")
    for n, t in enumerate(TRIGGERS):
        # The store refuses names that start with = + - @ or their full-width forms;
        # descriptions may.
        p.add_tag(f"tag {n}", f"{t}description")
    out = tmp_path / "codebook.csv"
    write_codebook(p.codebook(), out)
    _assert_inert(out)
    assert sorted((s.name, s.description) for s in read_codebook(out)) == sorted(
        (t.name, t.description) for t in p.codebook())


def test_no_writer_bypasses_the_rule():
    # A csv.writer made anywhere but export/cells.py would write cells unchecked.
    found = [str(path.relative_to(REPO)) for path in (REPO / "workbench").rglob("*.py")
             if path.name != "cells.py" and re.search(r"csv\.(writer|DictWriter)\(",
                                                      path.read_text(encoding="utf-8"))]
    assert found == []
