#!/usr/bin/env python3
"""Benchmark the detection pipeline: per-stage wall time, pages/s, peak memory, quality.

    python benchmarks/bench_engine.py goldset [--runs 3]
    python benchmarks/bench_engine.py gencorpus --docs 10000 [--tau 0.9] [--dir /tmp/gc10000]
    python benchmarks/bench_engine.py methods CRAWL [--methods spotsigs,simhash,...] [--runs 3]

``goldset`` runs on ../shared/data/goldset-dev and scores the clusters. ``methods`` runs
``workbench dedup CRAWL --method M`` for every detector as a whole process, the methods
interleaved run by run, and prints each one's median wall time, pages/s and the peak
memory of its whole process tree (workers included; benchmarks/process_tree.py). ``gencorpus``
makes (or reuses) a crawl with ../shared/tools/gencorpus.py and scores the output
against its truth.csv. Figures are medians over --runs; peak memory is the largest
resident set of the main process and of any worker process.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))

from workbench.commands.cli import gold_scores  # noqa: E402
from workbench.core.clusters.evaluation import pairs_of_groups, score_pairs  # noqa: E402
from workbench.detect.spotsigs.params import SpotSigsParams  # noqa: E402
from workbench.usecases.pipeline import DedupResult, run_dedup  # noqa: E402


class TreeMemory:
    """Samples the summed resident memory of this process and all its descendants.

    Worker processes are started by a fork server, so they are grandchildren that
    getrusage(RUSAGE_CHILDREN) never sees; /proc does.
    """

    def __init__(self, interval: float = 0.05) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)
        self._thread.start()

    @staticmethod
    def _tree_rss() -> int:
        parent: dict[int, int] = {}
        rss: dict[int, int] = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(d)] = int(fields[1])
            rss[int(d)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        me = os.getpid()
        total = 0
        for pid in rss:
            p = pid
            while p > 1 and p != me:
                p = parent.get(p, 0)
            if p == me:
                total += rss[pid]
        return total

    def _run(self, interval: float) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._tree_rss())
            time.sleep(interval)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak / 2**20


MEMORY: TreeMemory | None = None


def peak_mb() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tree = MEMORY.stop() if MEMORY else 0.0
    return me, tree


def timed_runs(root: Path, params: SpotSigsParams, runs: int) -> tuple[DedupResult, dict[str, float], float]:
    walls, stages = [], {}
    result = None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = run_dedup(root, params)
        walls.append(time.perf_counter() - t0)
        for k, v in result.timings.items():
            stages.setdefault(k, []).append(v)
    assert result is not None
    return result, {k: statistics.median(v) for k, v in stages.items()}, statistics.median(walls)


def report(name: str, result: DedupResult, stages: dict[str, float], wall: float, input_bytes: int) -> None:
    me, kids = peak_mb()
    n = len(result.pages)
    print(f"== {name}")
    print(f"pages {n:,}  input {input_bytes / 2**20:,.0f} MB  pairs {len(result.pairs):,}  "
          f"clusters {len(result.clusters):,}  tau {result.params.tau}")
    print("stages (median s): " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))
    print(f"end to end (median): {wall:.2f} s = {n / wall:,.0f} pages/s, "
          f"{input_bytes / 2**20 / wall:,.1f} MB/s")
    print(f"peak memory: main process {me:,.0f} MB; all processes together {kids:,.0f} MB")


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def cmd_goldset(args: argparse.Namespace) -> None:
    root = SHARED / "data" / "goldset-dev"
    if not root.exists():
        sys.exit(f"needs {root}")
    params = SpotSigsParams(tau=args.tau) if args.tau else SpotSigsParams()
    result, stages, wall = timed_runs(root, params, args.runs)
    report("dev Gold Set", result, stages, wall, folder_bytes(root))
    pair, clus = gold_scores(result)
    print(f"quality: pairs P {pair.precision:.3f} R {pair.recall:.3f} F1 {pair.f1:.3f}; "
          f"clusters P {clus.precision:.3f} R {clus.recall:.3f} F1 {clus.f1:.3f}")
    main_content_cost(root)


def main_content_cost(root: Path, limit: int = 400) -> None:
    """Milliseconds per page of the main-content step (resiliparse plus marking our
    blocks) next to the rest of text extraction, in one process, medians of 3 passes."""
    from workbench.archive import scan
    from workbench.core.records import RawPage
    from workbench.text.decode import decode_bytes
    from workbench.text.html import extract

    pages = [decode_bytes(p.data, p.charset_hint).text for p in scan(root) if isinstance(p, RawPage)][:limit]
    per_page = {}
    for flag in (False, True):
        passes = []
        for _ in range(3):
            t0 = time.perf_counter()
            for markup in pages:
                extract(markup, main_content=flag)
            passes.append((time.perf_counter() - t0) / len(pages) * 1000)
        per_page[flag] = statistics.median(passes)
    print(f"text extraction per page (median of 3 passes over {len(pages)} pages): "
          f"{per_page[False]:.2f} ms without main content, {per_page[True]:.2f} ms with "
          f"(main content {per_page[True] - per_page[False]:.2f} ms)")


def cmd_gencorpus(args: argparse.Namespace) -> None:
    out = Path(args.dir or f"/tmp/gencorpus-{args.docs}-{args.format}")
    if not (out / "truth.csv").exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(SHARED / "tools" / "gencorpus.py"), "--docs",
                        str(args.docs), "--out", str(out), "--format", args.format, "--force"],
                       check=True)
        print(f"generated {args.docs:,} pages in {time.perf_counter() - t0:.0f} s into {out}")
    root = out / "pages" if args.format == "html" else out
    params = SpotSigsParams(tau=args.tau)
    result, stages, wall = timed_runs(root, params, args.runs)
    report(f"gencorpus {args.docs:,} pages ({args.format})", result, stages, wall, folder_bytes(root))
    with (out / "truth.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    key = "path" if "path" in rows[0] else "uri"
    groups: dict[str, list[str]] = {}
    for r in rows:
        name = r[key].removeprefix("pages/") if key == "path" else r[key]
        groups.setdefault(r["cluster"], []).append(name)
    truth = pairs_of_groups(g for g in groups.values() if len(g) > 1)
    names = [p.key if key == "path" else (p.url or p.key) for p in result.pages]
    clus = score_pairs(pairs_of_groups([[names[m] for m in c.members] for c in result.clusters]), truth)
    found = {(names[a], names[b]) for a, b in zip(result.pairs.a, result.pairs.b, strict=True)}
    pair = score_pairs(found, truth)
    print(f"quality vs truth.csv: pairs P {pair.precision:.3f} R {pair.recall:.3f} F1 {pair.f1:.3f}; "
          f"clusters P {clus.precision:.3f} R {clus.recall:.3f} F1 {clus.f1:.3f}")


def cmd_methods(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from process_tree import run_measured

    from workbench.detect.registry import parse_methods

    methods = parse_methods(args.methods)
    root = Path(args.crawl)
    pages = sum(1 for p in root.rglob("*") if p.is_file() and p.suffix.lower() in (".html", ".htm"))
    walls: dict[str, list[float]] = {m: [] for m in methods}
    peaks: dict[str, list[float]] = {m: [] for m in methods}
    for _ in range(args.runs):
        for m in methods:  # interleaved: load on the machine falls on every method alike
            usage = run_measured([sys.executable, "-m", "workbench", "dedup", str(root), "--method", m, "-q"])
            if usage.returncode != 0:
                sys.exit(f"{m}: exit status {usage.returncode}")
            walls[m].append(usage.wall_s)
            peaks[m].append(usage.peak_rss_bytes / 2**20)
    print(f"{root}: {pages:,} HTML files, {args.runs} interleaved runs per method (medians)")
    print(f"{'method':<9} {'wall s':>8} {'pages/s':>8} {'peak MB':>8}")
    for m in methods:
        wall = statistics.median(walls[m])
        print(f"{m:<9} {wall:>8.1f} {pages / wall:>8,.0f} {statistics.median(peaks[m]):>8,.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    g = sub.add_parser("goldset")
    g.add_argument("--runs", type=int, default=3)
    g.add_argument("--tau", type=float, default=None)
    g.set_defaults(func=cmd_goldset)
    c = sub.add_parser("gencorpus")
    c.add_argument("--docs", type=int, default=10_000)
    c.add_argument("--tau", type=float, default=0.9)
    c.add_argument("--format", choices=("html", "warc"), default="html")
    c.add_argument("--dir", help="where the corpus is (or is made); default /tmp/gencorpus-N-FORMAT")
    c.add_argument("--runs", type=int, default=1)
    c.set_defaults(func=cmd_gencorpus)
    m = sub.add_parser("methods")
    m.add_argument("crawl")
    m.add_argument("--methods", default="spotsigs,simhash,minhash,imatch,signcd,andd")
    m.add_argument("--runs", type=int, default=3)
    m.set_defaults(func=cmd_methods)
    args = ap.parse_args()
    global MEMORY
    MEMORY = TreeMemory()
    args.func(args)


if __name__ == "__main__":
    main()
