#!/usr/bin/env python3
"""Star clustering's time and memory on a real crawl's pairs (issue 34: at a million
small pages, clustering's structures over the pairs down to the pair floor were the
client's peak).

    python benchmarks/bench_clustering.py CRAWL --cache PAIRS.npz [--repeat 3]

The first run reads CRAWL with the default settings, finds the pairs down to the pair
floor and writes them, the signature matrix (for the weak joins' check) and the settings
clustering takes to ``--cache``; later runs read that file. Each repeat then clusters as
a run does (``cluster_pairs`` with the run's settings) and prints its wall time and a
digest of the clusters, which must not change when only how clustering holds its data
does; one more run, traced, prints the Python heap's peak above the start (tracemalloc:
numpy's arrays included).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.core.clusters.clustering import cluster_pairs  # noqa: E402
from workbench.core.clusters.own_text import OwnTextCheck  # noqa: E402
from workbench.core.records import Cluster  # noqa: E402


def write_cache(crawl: Path, cache: Path) -> None:
    from workbench.detect.join.matcher import find_pairs
    from workbench.usecases.pipeline import load_corpus

    t0 = time.perf_counter()
    corpus = load_corpus(crawl)
    params = corpus.params
    floor = params.floor_for(len(corpus.pages))
    pairs = find_pairs(corpus.matrix, floor, corpus.checksum_group)
    m = corpus.matrix
    np.savez(cache, a=pairs.a, b=pairs.b, similarity=pairs.similarity, ptr=m.ptr, sig=m.sig,
             unindexed=m.unindexed_counts(), n=len(corpus.pages),
             settings=np.array([params.corroborate_below, params.tau, params.weak_join_for(floor),
                                params.weak_join_own_text, params.hub_split]),
             method=np.array(params.cluster_method))
    print(f"cached {len(pairs.a):,} pairs of {len(corpus.pages):,} pages in "
          f"{time.perf_counter() - t0:.0f} s")


def digest(clusters: list[Cluster]) -> str:
    h = hashlib.sha1()
    for c in clusters:
        h.update(repr((c.reference, c.members, c.similarities)).encode())
    return h.hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not args.cache.exists():
        write_cache(args.crawl, args.cache)
    data = np.load(args.cache)
    corroborate, tau, weak, own, hub = (float(x) for x in data["settings"])
    check = OwnTextCheck(data["ptr"], data["sig"], data["unindexed"])
    vouch = check.vouch(own) if weak and own else None
    n, a, b, sim = int(data["n"]), data["a"], data["b"], data["similarity"]
    print(f"{n:,} pages, {len(a):,} pairs; clustering {data['method']!s}")
    method = str(data["method"])
    for k in range(args.repeat):
        t0 = time.perf_counter()
        clusters = cluster_pairs(method, n, a, b, sim, corroborate, tau, weak, vouch, hub)
        wall = time.perf_counter() - t0
        print(f"run {k + 1}: {wall:.2f} s, {len(clusters):,} clusters, digest {digest(clusters)}")
        del clusters
    # Traced apart: tracemalloc slows Python's allocations several times over.
    tracemalloc.start()
    clusters = cluster_pairs(method, n, a, b, sim, corroborate, tau, weak, vouch, hub)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"traced: heap peak {peak / 2**20:,.0f} MB ({peak / max(len(a), 1):,.0f} B a pair), "
          f"digest {digest(clusters)}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS {rss:,.0f} MB")


if __name__ == "__main__":
    main()
