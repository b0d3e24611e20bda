"""How fast the calibration view answers: per-τ counts, loading a run's pairs, Apply.

    python benchmarks/bench_calibration.py [--pages 10000] [--pairs 20000] [--method star]

Builds a crawl-like near-duplicate graph (groups of 1-11 copies with similarities
0.1-1.0, plus weak links between groups), stores it as a run in a throw-away project,
then times what the view does: loading the pairs and the current clusters, the
histogram, the estimate shown while the line moves, the exact counts of every τ on the
grid (the work done when the line rests, or in idle time), Apply (a new run) and undoing
it. ``--memos N`` first puts N memos, N/2 "not this story" marks and N/10 hand splits on
the largest clusters, which Apply carries over (workbench.store.coding.carry).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from workbench.core.clusters.calibration import Calibration, clustering_options, labels_of, run_floor
from workbench.core.records import Cluster, PageInfo, Pair
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project


def graph(pages: int, pairs: int, seed: int = 1) -> tuple[list[int], list[int], list[float]]:
    rng = np.random.default_rng(seed)
    groups, i = [], 0
    while i < pages:
        size = int(rng.integers(1, 12))
        groups.append(list(range(i, min(pages, i + size))))
        i += size
    seen: set[tuple[int, int]] = set()
    a, b, s = [], [], []
    while len(a) < pairs:
        g = groups[int(rng.integers(len(groups)))]
        if len(g) < 2:
            x, y = (int(v) for v in rng.integers(0, pages, 2))
            sim = float(rng.uniform(0.1, 0.3))
        else:
            x, y = (int(v) for v in rng.choice(g, 2, replace=False))
            sim = float(rng.uniform(0.1, 1.0))
        key = (min(x, y), max(x, y))
        if x == y or key in seen:
            continue
        seen.add(key)
        a.append(key[0])
        b.append(key[1])
        s.append(round(sim, 4))
    return a, b, s


def decide(project: Project, memos: int) -> None:
    """Memos on the ``memos`` largest clusters; on every second one a member marked "not this
    story", on every tenth one a member split out by hand."""
    for n, row in enumerate(project.list_clusters(0, memos)):
        project.add_memo(row.id, f"memo {n}")
        members = project.members(row.id)
        if n % 2 == 0 and len(members) > 2:
            project.set_excluded(row.id, [members[-1].page_id], True)
        if n % 10 == 0 and len(members) > 2:
            project.split(row.id, [members[1].page_id])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--method", default="star")
    parser.add_argument("--tau", type=float, default=0.3)
    parser.add_argument("--floor", type=float, default=0.1)
    parser.add_argument("--memos", type=int, default=0,
                        help="memos to carry (and half as many marks, a tenth as many splits)")
    defaults = SpotSigsParams()
    parser.add_argument("--corroborate-below", type=float, default=defaults.corroborate_below)
    parser.add_argument("--weak-join", type=float, default=defaults.weak_join)
    args = parser.parse_args()
    params = {"tau": args.tau, "pair_floor": args.floor, "cluster_method": args.method,
              "corroborate_below": args.corroborate_below, "weak_join": args.weak_join}

    a, b, s = graph(args.pages, args.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        project = Project.create(Path(tmp) / "bench.wbproj", "/crawl", coder="bench")
        from workbench.core.clusters.calibration import PairGraph, cluster_at

        g = PairGraph.build(args.pages, a, b, s)
        clusters: list[Cluster] = cluster_at(g, args.method, args.tau, clustering_options(params))
        pages = [PageInfo(key=f"p{i}.html", source=f"p{i}.html", checksum=str(i), signature_count=20)
                 for i in range(args.pages)]
        stored = [Pair(x, y, z) for x, y, z in zip(a, b, s, strict=True)]
        project.save_run(params, "spotsigs", {}, pages, stored, clusters)

        t = time.perf_counter()
        run = project.current_run()
        assert run is not None
        loaded = project.run_graph()
        current = labels_of(loaded.n, project.run_groups())
        t_load = time.perf_counter() - t
        t = time.perf_counter()
        cal = Calibration(loaded, current, method=args.method, run_tau=args.tau, floor=run_floor(run.params),
                          options=clustering_options(run.params))
        cal.histogram()
        t_hist = time.perf_counter() - t
        t = time.perf_counter()
        for k in range(1000):
            cal.estimate(args.floor + k * (1 - args.floor) / 1000)
        t_est = (time.perf_counter() - t) / 1000
        times = []
        for tau in cal.grid():
            t = time.perf_counter()
            cal.counts(tau)
            times.append(time.perf_counter() - t)
        decide(project, args.memos)
        t = time.perf_counter()
        project.recluster(round(args.tau + 0.1, 2))
        t_apply = time.perf_counter() - t
        carried = project.last_carry
        t = time.perf_counter()
        project.undo()
        t_undo = time.perf_counter() - t
        project.close()

    print(f"{args.pages:,} pages, {len(s):,} pairs ≥ {args.floor}, {args.method} clustering at τ {args.tau} "
          f"(corroborate below {args.corroborate_below}, weak join {args.weak_join})")
    print(f"load pairs and current clusters from the project  {t_load * 1000:8.1f} ms")
    print(f"presenter + histogram                              {t_hist * 1000:8.1f} ms")
    print(f"estimate while dragging (per move)                 {t_est * 1e6:8.1f} µs")
    print(f"exact counts per τ: median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms over {len(times)} grid values "
          f"(all: {sum(times):.2f} s)")
    print(f"Apply (cluster again + store a new run)            {t_apply * 1000:8.1f} ms"
          + (f"  carrying {carried.memos} memo copies, {carried.exceptions} marks, "
             f"{carried.hand_clusters} hand-made clusters" if carried else ""))
    print(f"Undo Apply (the run before current again)          {t_undo * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
