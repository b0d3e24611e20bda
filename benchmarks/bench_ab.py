#!/usr/bin/env python3
"""Two versions of the workbench on one crawl, interleaved: whole-process-tree medians and ratios.

    git worktree add /tmp/before <commit>
    python benchmarks/bench_ab.py --before /tmp/before [--after .] [--runs 8] CRAWL [-- dedup args]

(the options before CRAWL: after it, argparse takes ``-- --tau 0.44`` for nothing and stops)

Runs ``python -m workbench dedup CRAWL -q`` with each source tree first on ``PYTHONPATH``,
A B A B ..., after one warm-up run each (numba compiles into a new tree's cache on its first
run), and prints wall and CPU time of the command and every process it starts (the fork
server's workers included: benchmarks/process_tree.py): each run, the medians, and the
median of the ratios of each pair, which holds when the machine's load drifts between pairs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from process_tree import run_measured  # noqa: E402


def one_run(tree: Path, crawl: str, extra: list[str]) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    usage = run_measured([sys.executable, "-m", "workbench", "dedup", crawl, "-q", *extra],
                         env=env, cwd=Path("/"))
    if usage.returncode != 0:
        raise SystemExit(f"{tree}: the run exited with {usage.returncode}")
    return usage.wall_s, usage.cpu_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crawl")
    ap.add_argument("--before", type=Path, required=True, help="source tree A (a worktree of the old commit)")
    ap.add_argument("--after", type=Path, default=HERE.parent, help="source tree B (default: this one)")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("extra", nargs="*", help="more dedup arguments (after --)")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():
        one_run(tree, args.crawl, args.extra)  # warm-up, not counted
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, tree in trees.items():
            got[name].append(one_run(tree, args.crawl, args.extra))
    for name, runs in got.items():
        print(f"{name:6s} wall median {statistics.median(w for w, _ in runs):6.2f} s, "
              f"CPU median {statistics.median(c for _, c in runs):6.2f} s   "
              + " ".join(f"{w:.2f}/{c:.2f}" for w, c in runs))
    pairs = list(zip(got["after"], got["before"], strict=True))
    print(f"after/before, median of pairs: wall {statistics.median(a[0] / b[0] for a, b in pairs):.3f}, "
          f"CPU {statistics.median(a[1] / b[1] for a, b in pairs):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
