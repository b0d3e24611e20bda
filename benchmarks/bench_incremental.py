#!/usr/bin/env python3
"""Time incremental matching against a full run: a crawl whose last pages are new.

    python benchmarks/bench_incremental.py CRAWL [--new 1000] [--tau 0.15 0.35] [--runs 3]

The crawl is read once (workbench.usecases.pipeline.load_corpus, default parameters); its last
--new pages play the pages a grown crawl added. Timed, each the fastest of --runs:
a full run on all pages (matcher.find_pairs, no duplicate groups, as incremental has
none), find_new_pairs on the grown matrix, and IncrementalIndex.add of the new pages to
an index holding the old ones (it maps the 64-bit ids and recounts too), at each
--tau (default: the pipeline's pair floor, which detection matches at, and its tau).
Checks that the old pairs plus the new pairs are the full run's.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from workbench.detect.join.incremental import IncrementalIndex, find_new_pairs  # noqa: E402
from workbench.detect.join.matcher import PairResult, SignatureMatrix, find_pairs  # noqa: E402
from workbench.usecases.pipeline import load_corpus  # noqa: E402

T = TypeVar("T")


def fastest(runs: int, work: Callable[[], T]) -> tuple[float, T]:
    best, result = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - t0)
    return best, result  # type: ignore[return-value]


def first_rows(m: SignatureMatrix, k: int) -> SignatureMatrix:
    end = int(m.ptr[k])
    unindexed = None if m.unindexed is None else m.unindexed[:k].copy()
    return SignatureMatrix(m.ptr[: k + 1].copy(), m.sig[:end].copy(), m.cnt[:end].copy(), m.raw_ids,
                           unindexed)


def with_raw_ids(m: SignatureMatrix, lo: int, hi: int) -> SignatureMatrix:
    """Rows lo:hi with every signature listed (IncrementalIndex wants them all): a page's
    signatures no other page has (left out of the index, their ids not kept) become one
    made-up signature of their total count, which no other page has either."""
    assert m.raw_ids is not None
    unindexed = m.unindexed_counts()
    vectors = []
    for i in range(lo, hi):
        ids = m.raw_ids[m.sig[m.ptr[i] : m.ptr[i + 1]]]
        counts = m.cnt[m.ptr[i] : m.ptr[i + 1]]
        if unindexed[i]:
            own = np.int64(-(2**62) - i)  # below every hashed id a test run would meet
            assert own not in m.raw_ids
            ids, counts = np.append(ids, own), np.append(counts, unindexed[i])
            order = np.argsort(ids)
            ids, counts = ids[order], counts[order]
        vectors.append((ids, counts))
    return SignatureMatrix.from_vectors(vectors)


def triples(p: PairResult) -> list[tuple[int, int, float]]:
    return list(zip(p.a.tolist(), p.b.tolist(), p.similarity.tolist(), strict=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("--new", type=int, default=1000)
    ap.add_argument("--tau", type=float, nargs="+", default=[0.15, 0.35])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    t0 = time.perf_counter()
    corpus = load_corpus(args.crawl)
    m = corpus.matrix
    n, first_new = m.n, m.n - args.new
    print(f"read {n} pages, {len(m.sig)} indexed entries in {time.perf_counter() - t0:.1f} s; "
          f"new pages {first_new}..{n - 1}")
    old_rows, new_rows = with_raw_ids(m, 0, first_new), with_raw_ids(m, first_new, n)
    ok = True
    for tau in args.tau:
        ok &= compare(m, first_new, tau, args.runs, old_rows, new_rows)
    return 0 if ok else 1


def compare(m: SignatureMatrix, first_new: int, tau: float, runs: int, old_rows: SignatureMatrix,
            new_rows: SignatureMatrix) -> bool:
    find_new_pairs(m, first_new, tau)  # compile the probe once, outside the timings
    full_s, full = fastest(runs, lambda: find_pairs(m, tau))
    inc_s, new = fastest(runs, lambda: find_new_pairs(m, first_new, tau))
    old = find_pairs(first_rows(m, first_new), tau)
    same = sorted(triples(old) + triples(new)) == triples(full)
    print(f"tau {tau}")
    print(f"  full run     {full_s * 1000:8.1f} ms  {len(full):7d} pairs  {full.candidates:8d} verified")
    print(f"  incremental  {inc_s * 1000:8.1f} ms  {len(new):7d} pairs  {new.candidates:8d} verified  "
          f"({full_s / inc_s:.1f}x faster; old + new == full: {same})")

    # Streaming: an index that already holds the old pages takes the new ones.
    adds = []
    for _ in range(runs):
        index = IncrementalIndex(tau)
        index.add(old_rows)
        t = time.perf_counter()
        pairs = index.add(new_rows)
        adds.append(time.perf_counter() - t)
    streamed = triples(pairs) == triples(new)
    print(f"  index.add    {min(adds) * 1000:8.1f} ms  {len(pairs):7d} pairs  "
          f"(an index holding the old pages; same pairs: {streamed})")
    return same and streamed


if __name__ == "__main__":
    sys.exit(main())
