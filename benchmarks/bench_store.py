"""How fast the project file answers a coder.

Builds a project with 100,000 clusters (one of them 10,000 pages) and prints
the median time to

* commit one tag action on a small cluster          (target < 10 ms)
* tag the 10,000-page cluster                       (target < 300 ms)
* read one page of 200 rows of the cluster list     (target < 50 ms)

plus a few related figures. Every write is a committed transaction with
``synchronous = FULL`` (one fsync), as in real use, so figures depend on the disk.

    python benchmarks/bench_store.py [--clusters 100000] [--big 10000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from workbench.core.records import Cluster, PageInfo, Pair  # noqa: E402
from workbench.store import Project  # noqa: E402


def build(path: Path, n_clusters: int, big: int, seed: int = 0) -> tuple[Project, float]:
    rng = random.Random(seed)
    pages: list[PageInfo] = []
    pairs: list[Pair] = []
    clusters: list[Cluster] = []
    sizes = [big] + [rng.choice((1, 1, 2, 2, 3, 4)) for _ in range(n_clusters - 1)]
    for size in sizes:
        first = len(pages)
        for j in range(first, first + size):
            key = f"site{j % 97}/{j}.html"
            pages.append(PageInfo(key=key, source=key, title=f"Story number {j}",
                                  url=f"http://site{j % 97}.example.org/{j}",
                                  checksum=f"{j:016x}", signature_count=40))
        sims = [1.0] + [round(rng.uniform(0.4, 1.0), 3) for _ in range(size - 1)]
        pairs += [Pair(first, first + k, sims[k]) for k in range(1, size)]
        clusters.append(Cluster(first, list(range(first, first + size)), sims))
    project = Project.create(path, "/bench", coder="bench")
    started = time.perf_counter()
    project.save_run({"tau": 0.4}, "spotsigs", {}, pages, pairs, clusters)
    return project, time.perf_counter() - started


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the project file's hot paths.")
    parser.add_argument("--clusters", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=10_000, help="pages in the largest cluster")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--dir", type=Path, help="where to build the project (default: temp)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        project, save_s = build(Path(tmp) / "bench.wbproj", args.clusters, args.big)
        tags = [project.add_tag(f"tag{i}", colour=f"#{i:02d}0000").id for i in range(10)]
        rows = project.list_clusters(limit=args.clusters)
        big_id = rows[0].id
        small = [r.id for r in rows[1:]]
        rng = random.Random(1)
        # A realistic half-coded project: 30 % of clusters carry a tag or two.
        for chunk in range(0, len(small) * 3 // 10, 5_000):
            ids = small[chunk:chunk + 5_000]
            project.tag_clusters(ids, [rng.choice(tags)])  # type: ignore[list-item]
        pages = project.counts().pages
        print(f"project: {project.count_clusters():,} clusters, {pages:,} pages "
              f"(largest {args.big:,}); save_run took {save_s:.1f} s")

        untagged = iter(small[len(small) // 2:])
        tag_one = median_ms(lambda: project.tag_clusters([next(untagged)], [tags[0]]),
                            args.repeat)

        big_times = []
        for _ in range(max(3, args.repeat // 5)):
            t = time.perf_counter()
            project.tag_clusters([big_id], [tags[1]])
            big_times.append((time.perf_counter() - t) * 1000)
            project.undo()
        tag_big = statistics.median(big_times)
        undo_big = median_ms(lambda: (project.tag_clusters([big_id], [tags[2]]),
                                      project.undo()), 3) - tag_big

        total = project.count_clusters()
        offsets = [rng.randrange(0, max(1, total - 200)) for _ in range(args.repeat)]
        it = iter(offsets * 2)
        first_page = median_ms(lambda: project.list_clusters(0, 200), args.repeat)
        any_page = median_ms(lambda: project.list_clusters(next(it), 200), args.repeat)
        uncoded = median_ms(lambda: project.list_clusters(0, 200, coded="none"), args.repeat)
        counts = median_ms(project.counts, args.repeat)
        members = median_ms(lambda: project.members(big_id), 3)
        project.close()

    def line(label: str, ms: float, target: float | None = None) -> None:
        verdict = "" if target is None else ("  ok" if ms < target else "  SLOWER THAN TARGET")
        goal = f" (target < {target:g} ms)" if target else ""
        print(f"  {label:<46} {ms:8.2f} ms{goal}{verdict}")

    print("medians:")
    line("commit one tag action (small cluster)", tag_one, 10)
    line(f"tag the {args.big:,}-page cluster", tag_big, 300)
    line(f"read 200 rows of the list, {total:,} clusters", any_page, 50)
    line("  first page of the list", first_page)
    line("  first page, uncoded only", uncoded)
    line(f"undo the {args.big:,}-page tag (approx.)", undo_big)
    line("coded/total counts", counts)
    line(f"members of the {args.big:,}-page cluster", members)
    return 0


if __name__ == "__main__":
    sys.exit(main())
