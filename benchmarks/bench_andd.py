"""ANDD on the dev Gold Set: pair Max F1 with the unit weights and with learned weights.

    .venv/bin/python benchmarks/bench_andd.py [../shared/data/goldset-dev] [--seeds 6]

* the whole set, unit weights, k = 1 and k = 3 (the paper's Table 2 columns);
* the paper's set-up (Sec. 4.1.1): clusters split at random into halves, weights learned
  on one, pair Max F1 over the threshold grid on the other; also the F1 at the threshold
  learned with the weights (chosen without seeing the other half);
* the learning curve's point (Figure 5): weights from about 60 labelled pages;
* weights learned on the whole set, scored on it (in-sample; the paper's 0.956 is not);
* timings: featurize per page, training, all pairs at the lowest threshold and at the
  default.

Run by hand (a few minutes on two cores); the figures go into reports, not tests.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from workbench.core.clusters.evaluation import pairs_of_groups, score_pairs
from workbench.detect.andd.andd import AnddDetector
from workbench.detect.andd.features import PageGrams
from workbench.detect.andd.model import AnddWeights
from workbench.detect.andd.train import train_grams
from workbench.detect.texts import read_texts

DEFAULT_ROOT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "goldset-dev"
PAPER = ("paper (all 68 clusters, 5 half splits): ANDD-Raw cosine k=1 0.956, k=3 0.936; "
         "binary 0.861; ANDD-LSH-Cos (Table 3) 0.943; 60 labelled documents 0.953")


def folder(key: str) -> str:
    return key.split("/")[0]


def scores(detector: AnddDetector, features: Sequence[PageGrams], keys: Sequence[str]
           ) -> tuple[float, float, float]:
    """(Max F1 over the grid, its threshold, F1 at the detector's default threshold)."""
    groups: dict[str, list[str]] = {}
    for key in keys:
        groups.setdefault(folder(key), []).append(key)
    truth = pairs_of_groups(groups.values())
    found = detector.find_pairs(features, min(detector.thresholds()))

    def f1(t: float) -> float:
        keep = found.similarity >= t
        pairs = zip((keys[a] for a in found.a[keep]), (keys[b] for b in found.b[keep]), strict=True)
        return score_pairs(pairs, truth).f1

    best = max((f1(t), t) for t in detector.thresholds())
    return best[0], best[1], f1(detector.default_threshold())


def learn(features: Sequence[PageGrams], keys: Sequence[str], pages: Sequence[int]
          ) -> tuple[AnddWeights, float]:
    """Weights from the given pages' folders (frequencies from those pages only)."""
    groups: dict[str, list[int]] = {}
    for j, i in enumerate(pages):
        groups.setdefault(folder(keys[i]), []).append(j)
    started = time.perf_counter()
    weights = train_grams([features[i] for i in pages], list(groups.values()))
    return weights, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--seeds", type=int, default=6)
    args = parser.parse_args()
    started = time.perf_counter()
    texts = read_texts(args.root)
    keys = [p.key for p in texts.pages]
    print(f"read {len(keys)} pages in {time.perf_counter() - started:.1f} s")
    print(PAPER)
    for k in (1, 3):
        d = AnddDetector(k=k)
        started = time.perf_counter()
        feats = [d.featurize(t) for t in texts.texts]
        per_page = (time.perf_counter() - started) / len(feats) * 1000
        started = time.perf_counter()
        best, at, default = scores(d, feats, keys)
        lowest = time.perf_counter() - started
        started = time.perf_counter()
        d.find_pairs(feats, d.default_threshold())
        print(f"k={k} unit weights: Max F1 {best:.4f} at {at}, F1 {default:.4f} at the default "
              f"{d.default_threshold()}; featurize {per_page:.2f} ms/page, all pairs >= "
              f"{min(d.thresholds())} and scoring {lowest:.2f} s, pairs >= default "
              f"{time.perf_counter() - started:.2f} s")
    unit = AnddDetector()
    features = [unit.featurize(t) for t in texts.texts]
    names = sorted({folder(k) for k in keys})
    rows = []
    for seed in range(args.seeds):
        shuffled = list(names)
        np.random.default_rng(seed).shuffle(shuffled)
        learn_from = set(shuffled[: len(shuffled) // 2])
        train_idx = [i for i, k in enumerate(keys) if folder(k) in learn_from]
        test_idx = [i for i, k in enumerate(keys) if folder(k) not in learn_from]
        weights, seconds = learn(features, keys, train_idx)
        test_feats = [features[i] for i in test_idx]
        test_keys = [keys[i] for i in test_idx]
        before = scores(unit, test_feats, test_keys)
        after = scores(AnddDetector(weights), test_feats, test_keys)
        rows.append((before[0], after[0], after[2]))
        print(f"split {seed}: learn {len(train_idx)} pages ({seconds:.1f} s), test {len(test_idx)}: "
              f"unit Max F1 {before[0]:.4f} (at {before[1]}), learned Max F1 {after[0]:.4f} "
              f"(at {after[1]}), F1 at the learned threshold {weights.threshold}: {after[2]:.4f}")
    mean = np.mean(rows, axis=0)
    print(f"mean of {args.seeds} splits: unit {mean[0]:.4f}, learned {mean[1]:.4f}, "
          f"at the learned threshold {mean[2]:.4f}; learned better in "
          f"{sum(1 for r in rows if r[1] > r[0])} of {len(rows)}")
    # Figure 5's point: about 60 labelled pages, from whole clusters of the first half.
    shuffled = list(names)
    np.random.default_rng(0).shuffle(shuffled)
    half = shuffled[: len(shuffled) // 2]
    chosen: list[str] = []
    for name in sorted(half, key=lambda n: sum(1 for k in keys if folder(k) == n)):
        if sum(1 for k in keys if folder(k) in chosen) >= 60:
            break
        chosen.append(name)
    small = [i for i, k in enumerate(keys) if folder(k) in chosen]
    test_idx = [i for i, k in enumerate(keys) if folder(k) not in set(half)]
    weights, seconds = learn(features, keys, small)
    test_feats, test_keys = [features[i] for i in test_idx], [keys[i] for i in test_idx]
    print(f"{len(small)} labelled pages ({len(chosen)} clusters, {seconds:.1f} s): Max F1 on "
          f"split 0's other half {scores(AnddDetector(weights), test_feats, test_keys)[0]:.4f}")
    weights, seconds = learn(features, keys, list(range(len(keys))))
    best, at, default = scores(AnddDetector(weights), features, keys)
    print(f"learned on all {len(keys)} pages ({seconds:.1f} s), scored on them: Max F1 {best:.4f} "
          f"at {at}, F1 {default:.4f} at the learned threshold {weights.threshold}")
    print("weights:", {n: round(v, 3) for n, v in weights.weights})


if __name__ == "__main__":
    main()
