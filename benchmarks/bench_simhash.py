#!/usr/bin/env python3
"""Simhash on the dev Gold Set at k = 0..8, and the index's time on random fingerprints.

    .venv/bin/python benchmarks/bench_simhash.py [--gold ../shared/data/goldset-dev]
        [--shingles 1,2,3] [--random 100000] [--random-k 3]

For every feature choice and k, two scores against the gold clusters (one folder = one
cluster): "pairs" scores the detector's pairs as they are (no clustering), "clusters"
scores every pair of pages that end up in one connected component of those pairs (what
a coder would see with connected-components clustering).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from workbench.core.clusters.clustering import connected_components
from workbench.core.clusters.evaluation import pairs_of_groups, score_pairs
from workbench.detect.simhash.index import MAX_TABLE_K, SimhashStream, pairs_within
from workbench.detect.simhash.simhash import SimhashDetector
from workbench.detect.texts import read_texts

GOLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "goldset-dev"


def gold_table(root: Path, shingles: list[int], ks: range) -> None:
    started = time.perf_counter()
    texts = read_texts(root)
    keys = [page.key for page in texts.pages]
    print(f"{len(keys)} pages read in {time.perf_counter() - started:.1f} s ({len(texts.skipped)} skipped)")
    groups: dict[str, list[str]] = {}
    for key in keys:
        groups.setdefault(key.split("/")[0], []).append(key)
    truth = pairs_of_groups(groups.values())
    print(f"{len(truth)} true pairs in {len(groups)} clusters")
    print(f"{'features':>9} {'k':>2} | {'pairs P':>7} {'R':>5} {'F1':>5} {'n':>6} | "
          f"{'clusters P':>10} {'R':>5} {'F1':>5} {'n':>6}")
    for shingle in shingles:
        detector = SimhashDetector(shingle=shingle)
        started = time.perf_counter()
        features = [detector.featurize(text) for text in texts.texts]
        took = time.perf_counter() - started
        empty = sum(f is None for f in features)
        print(f"shingle {shingle}: fingerprints in {took:.2f} s ({empty} pages without words)")
        for k in ks:
            found = detector.find_pairs(features, 1.0 - k / 64)
            pairs = {(keys[a], keys[b]) for a, b in zip(found.a.tolist(), found.b.tolist(), strict=True)}
            clusters = connected_components(len(keys), found.a, found.b, found.similarity)
            clustered = pairs_of_groups([[keys[m] for m in c.members] for c in clusters])
            p, c = score_pairs(pairs, truth), score_pairs(clustered, truth)
            print(f"{shingle:>9} {k:>2} | {p.precision:7.3f} {p.recall:5.3f} {p.f1:5.3f} {len(pairs):>6} | "
                  f"{c.precision:10.3f} {c.recall:5.3f} {c.f1:5.3f} {len(clustered):>6}")


def random_batch(n: int, k: int) -> None:
    fps = np.random.default_rng(12).integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    pairs_within(fps[:1000], k)  # compile / warm up the loops once
    started = time.perf_counter()
    found = pairs_within(fps, k)
    took = time.perf_counter() - started
    print(f"{n} random fingerprints, k = {k}: {took:.2f} s, {len(found)} pairs, "
          f"{found.candidates} candidates compared")
    if k <= MAX_TABLE_K:
        stream = SimhashStream(k)
        started = time.perf_counter()
        streamed = sum(len(stream.add(fp)) for fp in fps.tolist())
        print(f"  the same one at a time (SimhashStream): {time.perf_counter() - started:.2f} s, "
              f"{streamed} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--shingles", default="1", help="comma-separated shingle lengths (1 = words)")
    parser.add_argument("--max-k", type=int, default=8)
    parser.add_argument("--random", type=int, default=100_000, help="random fingerprints to time (0: none)")
    parser.add_argument("--random-k", default="3", help="comma-separated k for the random batch")
    args = parser.parse_args()
    if args.gold.exists():
        gold_table(args.gold, [int(s) for s in args.shingles.split(",")], range(args.max_k + 1))
    else:
        print(f"{args.gold} is absent: no Gold Set scores (give --gold DIR)")
    if args.random:
        for k in args.random_k.split(","):
            random_batch(args.random, int(k))


if __name__ == "__main__":
    main()
