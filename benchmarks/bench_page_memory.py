#!/usr/bin/env python3
"""Peak memory of `workbench dedup --workers 2` on very large pages, over the whole process tree.

    .venv/bin/python benchmarks/bench_page_memory.py                  # every variant, 1 and 2 pages
    .venv/bin/python benchmarks/bench_page_memory.py --variants text --copies 2 --mb 45

Each variant is a page of about ``--mb`` MB (45 by default: under the 50 MB page limit) written
``--copies`` times into a fresh folder (each copy with its own first line, so the pages are not
byte-identical), next to a few ordinary pages. The command is run once per (variant, copies)
in a new session and measured with benchmarks/process_tree.py: the workers are children of
the multiprocessing fork server, not of the command, so only the session finds them all.
Peak memory is the largest sum of the resident sets of every process of the session seen in
one 50 ms sample (the command, the fork server, the resource tracker and the workers).

Variants (what makes a page expensive to parse):

* ``text``: one paragraph holding one huge text node;
* ``tiny``: many tiny elements (``<span>`` per word, ``<p>`` every ten words);
* ``tables``: tables nested twelve deep, repeated, one word per cell;
* ``prose``: ordinary article markup (paragraphs, links, headings), just very long;
* ``paragraphs``: a ``<p>`` per word (the most memory per byte measured: a block each);
* ``words``: two-letter words in one paragraph (the most words, so tokens, per byte).

Run by hand, never from the test suite: one run of a 45 MB page takes from seconds to minutes.

Peak MiB of the process tree, 45 MB pages, ``--workers 2`` (2 cores, shared machine), before
(every page parsed whole) and after the 2 MB markup limit (workbench/text/limit.py)::

    variant     1 page before  after   2 pages before  after
    text                1091    332             1934    434
    tiny                3088    358             5808    461
    tables              4378    393             8506    515
    prose               1624    347             2994    417
    paragraphs          5549    430            10853    603
    words               1559    419             2841    587
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from process_tree import run_measured  # noqa: E402

_WORDS = ("the council said on monday that the new school meals plan will be paid for by a tax "
          "on sugary drinks which parents have asked for since the report was published last "
          "year and the minister can now").split()


def _words(n: int, start: int = 0) -> str:
    return " ".join(_WORDS[(start + k) % len(_WORDS)] for k in range(n))


def _text(size: int) -> Iterator[str]:
    yield "<p>"
    written = 0
    while written < size:
        chunk = _words(2000, written) + " "
        written += len(chunk)
        yield chunk
    yield "</p>"


def _tiny(size: int) -> Iterator[str]:
    written, k = 0, 0
    while written < size:
        words = "".join(f"<span>{w}</span> " for w in _words(10, k).split())
        chunk = f"<p>{words}</p>\n"
        written += len(chunk)
        k += 10
        yield chunk


def _tables(size: int) -> Iterator[str]:
    depth = 12
    written, k = 0, 0
    while written < size:
        cells = "".join(f"<td>{w}</td>" for w in _words(8, k).split())
        chunk = "<table><tr><td>" * depth + f"<table><tr>{cells}</tr></table>" + "</td></tr></table>" * depth
        written += len(chunk)
        k += 8
        yield chunk + "\n"


def _prose(size: int) -> Iterator[str]:
    written, k = 0, 0
    while written < size:
        chunk = (f"<h2>{_words(6, k)}</h2>\n<p>{_words(60, k + 6)} <a href=\"/story/{k}\">"
                 f"{_words(4, k + 66)}</a> {_words(40, k + 70)}.</p>\n")
        written += len(chunk)
        k += 110
        yield chunk


def _paragraphs(size: int) -> Iterator[str]:
    written, k = 0, 0
    while written < size:
        chunk = "".join(f"<p>{w}</p>" for w in _words(100, k).split()) + "\n"
        written += len(chunk)
        k += 100
        yield chunk


def _two_letter_words(size: int) -> Iterator[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    yield "<p>"
    written, k = 0, 0
    while written < size:
        chunk = " ".join(letters[(k + 7 * n) % 26] + letters[(3 * k + n) % 26] for n in range(1000)) + " "
        written += len(chunk)
        k += 1
        yield chunk
    yield "</p>"


VARIANTS: dict[str, Callable[[int], Iterator[str]]] = {
    "text": _text, "tiny": _tiny, "tables": _tables, "prose": _prose, "paragraphs": _paragraphs,
    "words": _two_letter_words}


def write_page(path: Path, variant: str, size: int, copy: int) -> None:
    """One page of about ``size`` bytes of the given variant (streamed to disk, never whole)."""
    with path.open("w", encoding="utf-8") as out:
        out.write(f"<!DOCTYPE html><html><head><title>Big page {copy}</title></head><body>\n")
        out.write(f"<h1>Copy {copy}: {_words(12, copy)}</h1>\n")
        for chunk in VARIANTS[variant](size):
            out.write(chunk)
        out.write("</body></html>\n")


def write_ordinary(folder: Path, n: int = 6) -> None:
    """A few ordinary pages beside the big ones, as a crawl would have."""
    for k in range(n):
        body = "".join(f"<p>{_words(40, 13 * k + p)}.</p>" for p in range(8))
        (folder / f"ordinary{k}.html").write_text(
            f"<html><head><title>Story {k}</title></head><body>{body}</body></html>", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help=f"comma-separated, of {', '.join(VARIANTS)} (default: all)")
    ap.add_argument("--copies", default="1,2", help="pages of each variant per run (default 1,2)")
    ap.add_argument("--mb", type=float, default=45.0, help="size of each big page in MB (default 45)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    size = int(args.mb * 2**20)
    python = REPO / ".venv" / "bin" / "python"
    print(f"{'variant':10} {'pages':>5} {'peak MiB':>9} {'wall s':>7} {'procs':>5} rc")
    for variant in args.variants.split(","):
        for copies in (int(c) for c in args.copies.split(",")):
            with tempfile.TemporaryDirectory(prefix="bench-page-memory-") as tmp:
                folder = Path(tmp)
                for copy in range(copies):
                    write_page(folder / f"big{copy}.html", variant, size, copy)
                write_ordinary(folder)
                usage = run_measured([python, "-m", "workbench", "dedup", folder, "-q",
                                      "--workers", str(args.workers)], cwd=REPO)
            print(f"{variant:10} {copies:>5} {usage.peak_rss_mb:>9.0f} {usage.wall_s:>7.1f} "
                  f"{usage.processes:>5} {usage.returncode}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
