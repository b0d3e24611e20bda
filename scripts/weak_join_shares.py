#!/usr/bin/env python3
"""The own-text share of every weak join the unchecked rule makes, split by whether the
join was right: the measurement behind ``--weak-join-own-text`` (README, "Quality").

    python scripts/weak_join_shares.py --gold ../shared/data/goldset-dev \\
        --gencorpus /tmp/gs1 /tmp/gc1 [--tau 0.4]

Each corpus is read with the default settings and clustered once with weak joins that
nothing refuses; every join asked about (a page joining a cluster, or two clusters
merging) is recorded with the share of the joining side's unshared signatures that are
its own (workbench.core.clusters.own_text), and scored against the corpus's truth: right when the
joining side's pages belong, by majority, to the same true cluster as the other side's.
Prints quantiles of the share for right and wrong joins.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.core.clusters.clustering import cluster_pairs  # noqa: E402
from workbench.core.clusters.own_text import OwnTextCheck  # noqa: E402
from workbench.detect.spotsigs.params import SpotSigsParams  # noqa: E402
from workbench.usecases.pipeline import Corpus, detect, load_corpus  # noqa: E402

QUANTILES = (10, 25, 50, 75, 90)


def gold_labels(corpus: Corpus) -> list[str]:
    """The Gold Set's truth: the first folder of a page's path names its cluster."""
    return [p.key.split("/", 1)[0] if "/" in p.key else p.key for p in corpus.pages]


def truth_labels(corpus: Corpus, truth_csv: Path) -> list[str]:
    """gencorpus / gensmall truth.csv: a page's cluster (singletons have their own)."""
    with truth_csv.open(newline="") as f:
        label = {row["path"].removeprefix("pages/"): row["cluster"] for row in csv.DictReader(f)}
    return [label.get(p.key, p.key) for p in corpus.pages]


def joins(corpus: Corpus, labels: Sequence[str], tau: float) -> list[tuple[bool, bool, float]]:
    """(is a merge of clusters, was right, own share) of every join the unchecked rule makes."""
    m = corpus.matrix
    check = OwnTextCheck(m.ptr, m.sig, m.unindexed_counts())
    asked: list[tuple[bool, bool, float]] = []

    def record(side: Sequence[int], other: Sequence[int]) -> bool:
        def majority(pages: Sequence[int]) -> str:
            return Counter(labels[p] for p in pages).most_common(1)[0][0]
        asked.append((len(side) > 1, majority(side) == majority(other), check.own_share(side, other)))
        return True  # the unchecked rule: every join goes ahead

    params = dataclasses.replace(corpus.params, tau=tau)
    pairs = detect(dataclasses.replace(corpus, params=params)).floor_pairs
    cluster_pairs("star", len(corpus.pages), pairs.a, pairs.b, pairs.similarity,
                  params.corroborate_below, tau, params.weak_join, record)
    return asked


def report(name: str, asked: list[tuple[bool, bool, float]]) -> None:
    print(f"\n{name}: {len(asked):,} weak joins asked about")
    for merge in (False, True):
        for right in (True, False):
            shares = [s for is_merge, ok, s in asked if is_merge == merge and ok == right]
            if not shares:
                continue
            q = " ".join(f"{v:.2f}" for v in np.percentile(shares, QUANTILES))
            kind = "cluster merges" if merge else "page joins"
            print(f"  {kind:14s} {'right' if right else 'wrong':5s} {len(shares):6,}  "
                  f"own share at {'/'.join(map(str, QUANTILES))} %: {q}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", type=Path)
    ap.add_argument("--gencorpus", type=Path, nargs="*", default=[])
    ap.add_argument("--tau", type=float, default=SpotSigsParams().tau)
    args = ap.parse_args(argv)
    if args.gold:
        corpus = load_corpus(args.gold, SpotSigsParams())
        report(f"gold set {args.gold}", joins(corpus, gold_labels(corpus), args.tau))
    for root in args.gencorpus:
        pages = root / "pages" if (root / "pages").is_dir() else root
        corpus = load_corpus(pages, SpotSigsParams())
        report(f"{root}", joins(corpus, truth_labels(corpus, root / "truth.csv"), args.tau))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
