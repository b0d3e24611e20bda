#!/usr/bin/env python3
"""Memory of everything after extraction, at a million pages, without extracting any.

    python benchmarks/bench_filter_memory.py [--pages 1000000] [--tau 0.9] [--spots 80]

Extraction runs in the workers, page by page; what grows with the crawl is what the main
process holds once every page is back: the pages' records and spot arrays, the
boilerplate filters, the signature matrix and the join. This makes pages shaped like the
small-page corpus (about 80 spot occurrences and 8 kept blocks a page, 40 % of pages in
clusters of 2-10 near copies, chains shared across stories drawn from a Zipf law, a
template block per site) straight in memory, then runs ``filter_corpus`` and ``detect``
and prints the resident memory before, the peak during each stage (sampled every 20 ms)
and the time. A run of the whole pipeline adds the workers' own memory to this.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.core.records import PageInfo  # noqa: E402
from workbench.detect.spotsigs.extract import ExtractedPage  # noqa: E402
from workbench.detect.spotsigs.params import SpotSigsParams  # noqa: E402
from workbench.usecases.pipeline import detect, filter_corpus  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20


class Peak:
    def __init__(self) -> None:
        self.value = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.value = max(self.value, rss_mb())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return max(self.value, rss_mb())


def make_pages(n: int, spots: int, seed: int = 1) -> list[ExtractedPage]:
    rng = np.random.default_rng(seed)
    pages: list[ExtractedPage] = []
    story_of = np.arange(n)
    clustered = rng.random(n) < 0.4
    # Clustered pages copy the story of an earlier page (clusters of a few pages).
    idx = np.flatnonzero(clustered)
    story_of[idx] = np.maximum(0, idx - rng.integers(1, 10, len(idx)))
    # Half of a page's spots are chains many stories share (Zipf over 5 million).
    shared = spots // 2
    common = rng.zipf(1.1, size=(n, shared)) % 5_000_000
    blocks = 8
    for i in range(n):
        story = int(story_of[i])
        own = np.random.default_rng(story).integers(1, 2**62, spots - shared)
        # A near copy loses and gains a few spots.
        if story != i:
            own[: spots // 20] = rng.integers(1, 2**62, spots // 20)
        ids = np.concatenate([own, common[story].astype(np.int64) + 2**62]).astype(np.int64)
        where = np.sort(rng.integers(0, blocks, len(ids))).astype(np.int32)
        site = i % 300
        block_hashes = np.concatenate([[site + 1], rng.integers(1, 2**62, blocks - 1)]).astype(np.int64)
        path = f"pages/site{site:03d}/page{i:07d}.html"
        info = PageInfo(key=path, source=path,
                        url=f"https://site{site:03d}.example.com/news/{i:07d}.html", http_status=200,
                        content_type="text/html", encoding="utf-8", title=f"Headline number {i} of the crawl",
                        title_tag=f"Site {site}", checksum=f"{i:040x}", signature_count=len(ids),
                        link_host=f"site{site:03d}.example.com", language="en")
        pages.append(ExtractedPage.of(info, ids, where, block_hashes))
    return pages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--spots", type=int, default=80)
    ap.add_argument("--tau", type=float, default=0.9)
    args = ap.parse_args()
    start = rss_mb()
    t0 = time.perf_counter()
    pages = make_pages(args.pages, args.spots)
    held = rss_mb()
    print(f"{args.pages:,} pages made in {time.perf_counter() - t0:.0f} s; the process holds "
          f"{held:,.0f} MB ({held - start:,.0f} MB for the pages: "
          f"{(held - start) * 2**20 / args.pages:,.0f} bytes a page)")
    params = SpotSigsParams(tau=args.tau)
    peak = Peak()
    t1 = time.perf_counter()
    corpus = filter_corpus("/synthetic", params, pages, [], {})
    filtered = peak.stop()
    print(f"filter_corpus: {time.perf_counter() - t1:.1f} s, peak {filtered:,.0f} MB, then "
          f"{rss_mb():,.0f} MB ({len(corpus.matrix.sig):,} entries, sig {corpus.matrix.sig.dtype}, "
          f"cnt {corpus.matrix.cnt.dtype})")
    peak = Peak()
    t2 = time.perf_counter()
    result = detect(corpus)
    matched = peak.stop()
    found = result.floor_pairs or result.pairs
    print(f"detect (tau {args.tau}, pairs down to {min(args.tau, params.pair_floor)}): "
          f"{time.perf_counter() - t2:.1f} s, peak {matched:,.0f} MB; {len(found):,} "
          f"pairs, {len(result.clusters):,} clusters")
    print(f"peak of the main process after extraction: {max(filtered, matched):,.0f} MB")


if __name__ == "__main__":
    main()
