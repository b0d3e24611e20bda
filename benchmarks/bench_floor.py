#!/usr/bin/env python3
"""What extraction costs a page, and how much of it the library it cannot do without takes.

    python benchmarks/bench_floor.py CRAWL [--pages 20000] [--rounds 3] [--cores 2]

Reads the crawl's pages into memory first, as a run reads them (``workbench.archive.scan``:
folders, WARC, ARC and WACZ; reading is not timed), then times on one core, in rounds that
alternate the two so that the machine's load falls on each alike:

* resiliparse's parse and main-content extraction alone (Lexbor's ``HTMLTree`` of the
  decoded page, and ``extract_plain_text`` of its main content with the options extraction
  uses), which detection needs for its precision on modern templates: the floor;
* the workers' whole extraction (``workbench.detect.spotsigs.extract.extract_batch`` on batches of
  ``BATCH_FILES`` pages, as a worker gets them): decoding, replay checks, the parse, the
  whole page's text and the main content's, blocks, headline, language, spots and their ids.

It prints the median CPU time per page of each over the rounds, their ratio (the median of
the rounds' ratios), and what that allows on ``--cores`` cores at best (every core
extracting, nothing else running): pages a second, and the wall time of extraction alone
for 100,000 and 1,000,000 such pages. A speed target under the floor's line cannot be met
while main content is read; one under the whole extraction's line needs extraction itself
to get faster.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from itertools import islice
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from resiliparse.extract.html2text import extract_plain_text  # noqa: E402
from resiliparse.parse.html import HTMLTree  # noqa: E402

from workbench.archive import scan  # noqa: E402
from workbench.archive.scan import FileEntry, walk  # noqa: E402
from workbench.archive.tasks import BATCH_FILES  # noqa: E402
from workbench.core.records import RawPage  # noqa: E402
from workbench.detect.spotsigs.extract import extract_batch  # noqa: E402
from workbench.detect.spotsigs.params import SpotSigsParams  # noqa: E402
from workbench.text.decode import decode_bytes  # noqa: E402
from workbench.text.lexbor import main_content_options  # noqa: E402


def sample_pages(crawl: Path, limit: int) -> list[RawPage]:
    """At most ``limit`` of the pages a run would read, spread over the crawl's files: every
    k-th page in reading order, k the files per page wanted (1 for a single archive file)."""
    files = sum(1 for item in walk(crawl) if isinstance(item, FileEntry))
    every = max(1, files // limit)
    pages = (page for page in scan(crawl) if isinstance(page, RawPage))
    return list(islice(pages, 0, every * limit, every))


def cpu_seconds(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def stages(pages: Sequence[RawPage]) -> dict[str, Callable[[], object]]:
    texts = [decode_bytes(p.data, p.charset_hint).text for p in pages]
    params = SpotSigsParams()
    batches = [list(pages[k : k + BATCH_FILES]) for k in range(0, len(pages), BATCH_FILES)]

    options = main_content_options()

    def floor() -> None:
        for text in texts:
            extract_plain_text(HTMLTree.parse(text), **options)

    def whole() -> None:
        for batch in batches:
            extract_batch(batch, params)

    return {FLOOR: floor, WHOLE: whole}


FLOOR, WHOLE = "parse + main content", "whole extraction"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crawl", type=Path, help="a crawl folder or archive file, as `workbench dedup` takes")
    ap.add_argument("--pages", type=int, default=20_000, help="at most this many, spread over the crawl")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cores", type=int, default=2, help="cores extraction could use")
    args = ap.parse_args()
    pages = sample_pages(args.crawl, args.pages)
    if not pages:
        print(f"{args.crawl}: no web pages to time", file=sys.stderr)
        return 2
    mean_kb = sum(len(p.data) for p in pages) / len(pages) / 1024
    print(f"{len(pages):,} pages of {args.crawl}, {mean_kb:.1f} KB on average; "
          f"{args.rounds} rounds, CPU time on one core")
    work = stages(pages)
    extract_batch(pages[:1], SpotSigsParams())  # compiled code loaded: not timed
    per_page: dict[str, list[float]] = {name: [] for name in work}
    for _ in range(args.rounds):
        for name, run in work.items():
            per_page[name].append(cpu_seconds(run) / len(pages))
    for name, costs in per_page.items():
        print(f"  {name:22s} {statistics.median(costs) * 1e6:7.0f} µs a page   (rounds: "
              + ", ".join(f"{c * 1e6:.0f}" for c in costs) + ")")
    floor, whole = statistics.median(per_page[FLOOR]), statistics.median(per_page[WHOLE])
    ratio = statistics.median(w / f for w, f in zip(per_page[WHOLE], per_page[FLOOR], strict=True))
    print(f"  whole extraction / (parse + main content): {ratio:.2f}x (median of the rounds' ratios)")
    print(f"At best on {args.cores} cores (extraction only, every core busy):")
    for name, cost in (("parse + main content", floor), ("whole extraction", whole)):
        rate = args.cores / cost
        print(f"  {name:22s} {rate:8,.0f} pages/s; 100,000 pages {1e5 / rate:7.1f} s; "
              f"1,000,000 pages {1e6 / rate / 60:5.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
