#!/usr/bin/env python3
"""``workbench dedup --dask`` (a 2-worker LocalCluster) against the local pipeline.

    python benchmarks/bench_dask.py [--pages 100000] [--crawl DIR] [--repeats 3] [--tasks]

Generates ``--pages`` gensmall pages (../shared/tools/gensmall.py) into a temporary folder
(or takes ``--crawl``), then runs ``workbench dedup CRAWL -q --workers 2`` and the same with
``--dask``, interleaved, each as a whole process tree (benchmarks/process_tree.py: the
cluster's scheduler and worker processes included), and checks that both wrote the same
pairs CSV. Printed: every run's wall and CPU time and peak memory (summed over the tree)
and its stages as the command reports them; then the medians and the ratio of the wall
times (the target: --dask at most 1.2x local).

``--tasks``: once more through the Python API, with Dask's task stream: per kind of task
(extraction, join), how many, their median and total seconds, and the bytes of the
shards they wrote: the per-task figures docs/cluster.md plans 100 million pages from.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from process_tree import run_measured  # noqa: E402

SHARED = ROOT.parent / "shared"
STAGES = re.compile(r"wall time:.*")


def generate(pages: int, out: Path) -> Path:
    subprocess.run([sys.executable, str(SHARED / "tools" / "gensmall.py"), "--docs", str(pages), "--out",
                    str(out), "--data", str(SHARED / "data")], check=True, stdout=subprocess.DEVNULL)
    return out / "pages"


def dedup(crawl: Path, pairs: Path, dask: bool) -> tuple[float, float, float, str]:
    """Wall s, CPU s, peak MB of one run's process tree, and its stage line."""
    cmd = [sys.executable, "-m", "workbench", "dedup", str(crawl), "-q", "--workers", "2",
           "--pairs", str(pairs)] + (["--dask"] if dask else [])
    with tempfile.TemporaryFile() as out:
        usage = run_measured(cmd, stdout=out, cwd=ROOT)
        out.seek(0)
        text = out.read().decode()
    if usage.returncode != 0:
        sys.exit(f"workbench dedup failed with status {usage.returncode}")
    found = STAGES.search(text)
    return usage.wall_s, usage.cpu_s, usage.peak_rss_bytes / 2**20, found.group(0) if found else ""


def task_figures(crawl: Path) -> None:
    """Per-task figures of one --dask run (Dask's task stream and the shards' sizes)."""
    from distributed import get_task_stream

    from workbench.cluster.run import dask_run, local_cluster
    from workbench.usecases.pipeline import detect, load_corpus

    with local_cluster(2) as cluster, dask_run(None, cluster=cluster) as run:
        with get_task_stream(run.client) as stream:
            corpus = load_corpus(crawl, workers=2, **run.corpus_hooks)
            result = detect(corpus, join=run.join)
        shard_bytes = sum(p.stat().st_size for p in run.work_dir.glob("pages-*.parquet"))
        index_bytes = sum(p.stat().st_size for p in run.work_dir.glob("index-*.npz"))
        pair_bytes = sum(p.stat().st_size for p in run.work_dir.glob("pairs-*.parquet"))
    by_kind: dict[str, list[float]] = {}
    for task in stream.data:
        key = task["key"] if isinstance(task["key"], str) else str(task["key"][0])
        kind = key.split("-")[0]
        compute = [s for s in task["startstops"] if s["action"] == "compute"]
        by_kind.setdefault(kind, []).extend(s["stop"] - s["start"] for s in compute)
    pages = len(result.pages)
    print(f"\nper task ({pages:,} pages, {len(result.pairs):,} pairs):")
    for kind, secs in sorted(by_kind.items()):
        print(f"  {kind:<12} {len(secs):>6,} tasks  median {statistics.median(secs):.3f} s  "
              f"total {sum(secs):.1f} s")
    print(f"  page shards: {shard_bytes / 2**20:.1f} MB ({shard_bytes / max(pages, 1):.0f} bytes a page); "
          f"join index: {index_bytes / 2**20:.1f} MB; pair shards: {pair_bytes / 2**20:.2f} MB")
    m = corpus.matrix
    print(f"  matrix: {m.sig.nbytes / 2**20:.1f} MB of ids for {len(m.sig):,} entries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--crawl", type=Path, help="an existing crawl instead of generated pages")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", action="store_true", help="also print per-task figures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        crawl = args.crawl or generate(args.pages, Path(tmp) / "gensmall")
        runs: dict[str, list[tuple[float, float, float]]] = {"local": [], "dask": []}
        for k in range(args.repeats):
            for mode in ("local", "dask") if k % 2 == 0 else ("dask", "local"):
                wall, cpu, peak, stages = dedup(crawl, Path(tmp) / f"{mode}.csv", mode == "dask")
                runs[mode].append((wall, cpu, peak))
                print(f"{mode:<6} wall {wall:7.1f} s  cpu {cpu:7.1f} s  peak {peak:7.0f} MB  {stages}",
                      flush=True)
            if (Path(tmp) / "local.csv").read_bytes() != (Path(tmp) / "dask.csv").read_bytes():
                sys.exit("the --dask run's pairs differ from the local run's")
        med = {m: [statistics.median(r[i] for r in runs[m]) for i in range(3)] for m in runs}
        for m, (wall, cpu, peak) in med.items():
            print(f"median {m:<6} wall {wall:7.1f} s  cpu {cpu:7.1f} s  peak {peak:7.0f} MB")
        print(f"--dask / local wall: {med['dask'][0] / med['local'][0]:.2f}x (same pairs in every repeat)")
        if args.tasks:
            task_figures(crawl)


if __name__ == "__main__":
    main()
