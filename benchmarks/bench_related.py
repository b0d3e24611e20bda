"""How long the first listing of a cluster's related rewrites takes on a big run.

    python benchmarks/bench_related.py [--pages 100000] [--pairs 1000000]

Saves a run of ``--pages`` single pages and ``--pairs`` random pairs between the pair
floor and τ (the pairs the related list reads), then times reading the run's pairs
(``run_links``: the window does it on a worker the first time a cluster of the run is
shown, workbench.gui.related.reader) and listing one cluster's related clusters
once they are kept (what every later cluster costs on the GUI thread). A benchmark, not
a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    from workbench.core.records import Cluster, PageInfo, Pair
    from workbench.store import Project
    from workbench.store.runs import related

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--pairs", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = random.Random(0)
    pages = [PageInfo(key=f"s{i % 500}/p{i}.html", source=f"s{i % 500}/p{i}.html",
                      url=f"https://site{i % 500}.test/{i}", title=f"Story {i}",
                      signature_count=50) for i in range(args.pages)]
    seen: set[tuple[int, int]] = set()
    pairs = []
    while len(pairs) < args.pairs:
        a, b = rng.randrange(args.pages), rng.randrange(args.pages)
        if a == b or (min(a, b), max(a, b)) in seen:
            continue
        seen.add((min(a, b), max(a, b)))
        pairs.append(Pair(min(a, b), max(a, b), round(rng.uniform(0.15, 0.399), 3)))
    clusters = [Cluster(i, [i], [1.0]) for i in range(args.pages)]
    with tempfile.TemporaryDirectory() as tmp:
        project = Project.create(Path(tmp) / "big.wbproj", tmp, coder="bench")
        started = time.perf_counter()
        project.save_run({"tau": 0.4, "pair_floor": 0.15}, "spotsigs", {"total": 1.0},
                         pages, pairs, clusters)
        print(f"saved {args.pages:,} pages and {args.pairs:,} pairs below τ in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        conn = project.reader()
        run_id = project.current_run().id
        started = time.perf_counter()
        related.run_links(conn, run_id)
        print(f"read the run's pairs below τ (run_links, on a worker in the window): "
              f"{time.perf_counter() - started:.2f} s", flush=True)
        ids = [r[0] for r in conn.execute("SELECT id FROM clusters LIMIT 200")]
        project.related(ids[0])  # kept from here on
        times = []
        for cid in ids[1:]:
            t = time.perf_counter()
            project.related(cid)
            times.append((time.perf_counter() - t) * 1000)
        print(f"one cluster's related clusters once kept: median {statistics.median(times):.2f} ms, "
              f"longest {max(times):.2f} ms ({len(times)} clusters)", flush=True)
        project.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
