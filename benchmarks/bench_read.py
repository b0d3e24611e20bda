"""How fast the archive layer reads and decodes pages.

Prints MB/s (of input bytes) and pages/s for ``scan`` alone and for ``scan`` +
``decode_bytes``, on

* the dev Gold Set folder (../shared/data/goldset-dev: 1,050 saved HTML pages), and
* a WARC corpus made with ``../shared/tools/gencorpus.py --format warc``
  (made once in a temporary folder, or pass ``--warc-dir`` to reuse one).

    python benchmarks/bench_read.py [--docs 3000] [--warc-dir DIR] [--repeat 3]

Single process, as the figures are meant per core; the pipeline may decode in workers.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from workbench.archive import scan  # noqa: E402
from workbench.core.records import RawPage  # noqa: E402
from workbench.text.decode import decode_bytes  # noqa: E402

SHARED = REPO.parent / "shared"


def run(root: Path, decode: bool) -> tuple[float, int, int, int]:
    done = [0]

    def progress(stage: str, now: int, total: int | None) -> None:
        done[0] = now

    t0 = time.perf_counter()
    pages = skips = 0
    for item in scan(root, progress):
        if isinstance(item, RawPage):
            pages += 1
            if decode:
                decode_bytes(item.data, item.charset_hint)
        else:
            skips += 1
    return time.perf_counter() - t0, pages, skips, done[0]


def report(name: str, root: Path, repeat: int) -> None:
    for decode in (False, True):
        best = None
        for _ in range(repeat):
            result = run(root, decode)
            if best is None or result[0] < best[0]:
                best = result
        seconds, pages, skips, nbytes = best  # type: ignore[misc]
        what = "read + decode" if decode else "read"
        print(f"{name:28s} {what:14s} {nbytes / 2**20:8.1f} MB in {seconds:6.2f} s: "
              f"{nbytes / 2**20 / seconds:7.1f} MB/s, {pages / seconds:8.0f} pages/s "
              f"({pages:,} pages, {skips:,} skipped)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--warc-dir", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    gold = SHARED / "data" / "goldset-dev"
    if gold.exists():
        report("Gold Set dev (folder)", gold, args.repeat)
    else:
        print(f"skipped the Gold Set: {gold} is absent")

    with tempfile.TemporaryDirectory() as tmp:
        warc_dir = args.warc_dir
        if warc_dir is None:
            gen = SHARED / "tools" / "gencorpus.py"
            if not gen.exists():
                print(f"skipped the WARC corpus: {gen} is absent")
                return 0
            warc_dir = Path(tmp) / "corpus"
            subprocess.run([sys.executable, str(gen), "--docs", str(args.docs), "--out",
                            str(warc_dir), "--format", "warc"], check=True,
                           stdout=subprocess.DEVNULL)
        crawl = Path(tmp) / "warcs"
        crawl.mkdir()
        for warc in sorted(warc_dir.glob("*.warc.gz")):
            (crawl / warc.name).symlink_to(warc.resolve())
        report(f"gencorpus WARC ({args.docs:,} docs)", crawl, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
