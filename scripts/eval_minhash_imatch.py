#!/usr/bin/env python3
"""Pair precision/recall/F1 of the MinHash LSH and I-Match detectors on a gold set.

    .venv/bin/python scripts/eval_minhash_imatch.py [../shared/data/goldset-dev]

Pages are read with read_texts (the first folder level of a page's key is its gold
cluster), featurized in this process (so the times are one core's), then every
threshold 0.1..0.9 is run for minhash, with the banding recall (the share of the pairs
at or above the threshold by exact shingle Jaccard that the LSH index proposed), and
I-Match once. Scores are over pairs, as in the SpotSigs papers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from workbench.core.clusters.evaluation import Scores, pairs_of_groups, score_pairs
from workbench.detect.detector import Detector
from workbench.detect.imatch import IMatchDetector
from workbench.detect.join.matcher import PairResult
from workbench.detect.minhash import MinHashDetector, banding_recall, lsh_layout
from workbench.detect.texts import read_texts

DEFAULT_GOLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "goldset-dev"


def scores(keys: list[str], result: PairResult, truth: set[tuple]) -> Scores:
    predicted = {(keys[a], keys[b]) for a, b in zip(result.a.tolist(), result.b.tolist(), strict=True)}
    return score_pairs(predicted, truth)


def featurize(detector: Detector, texts: list) -> tuple[list, float]:
    start = time.process_time()
    features = [detector.featurize(t) for t in texts]
    return features, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", nargs="?", type=Path, default=DEFAULT_GOLD)
    args = parser.parse_args()
    if not args.gold.is_dir():
        print(f"{args.gold}: no such folder (a gold set has one sub-folder per cluster)", file=sys.stderr)
        return 2
    start = time.perf_counter()
    texts = read_texts(args.gold)
    print(f"read {len(texts.pages):,} pages in {time.perf_counter() - start:.1f} s "
          f"({len(texts.skipped)} skip records)")
    keys = [p.key for p in texts.pages]
    folders: dict[str, list[str]] = {}
    for key in keys:
        folders.setdefault(key.split("/", 1)[0], []).append(key)
    truth = pairs_of_groups(folders.values())
    print(f"{len(folders)} gold clusters, {len(truth):,} true pairs")

    minhash = MinHashDetector()
    features, cpu = featurize(minhash, texts.texts)
    print(f"\nminhash {minhash.parameters()}\nfeaturize: {cpu:.2f} s CPU")
    print(f"{'tau':>4} {'bands x rows':>12} {'P':>6} {'R':>6} {'F1':>6} {'pairs':>7} {'cand.':>7} "
          f"{'band recall':>17} {'match s':>8}")
    for tau in [round(0.1 * k, 1) for k in range(1, 10)]:
        start = time.perf_counter()
        result = minhash.find_pairs(features, tau)
        seconds = time.perf_counter() - start
        s = scores(keys, result, truth)
        recall = banding_recall(features, tau)
        bands, rows = lsh_layout(tau, minhash.permutations)
        print(f"{tau:4.1f} {f'{bands} x {rows}':>12} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f} "
              f"{len(result):7,} {result.candidates:7,} "
              f"{f'{recall.found:,}/{recall.exact:,} {recall.recall:.3f}':>17} {seconds:8.2f}")

    imatch = IMatchDetector()
    features, cpu = featurize(imatch, texts.texts)
    print(f"\nimatch {imatch.parameters()}\nfeaturize: {cpu:.2f} s CPU")
    for min_terms in (1, 5, 10):
        detector = IMatchDetector(min_terms=min_terms)
        start = time.perf_counter()
        result = detector.find_pairs(features, 1.0)
        seconds = time.perf_counter() - start
        s = scores(keys, result, truth)
        print(f"min_terms {min_terms:2}: P {s.precision:.3f} R {s.recall:.3f} F1 {s.f1:.3f} "
              f"pairs {len(result):,} ({s.correct_pairs:,} correct); match {seconds:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
