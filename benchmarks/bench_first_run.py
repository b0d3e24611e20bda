#!/usr/bin/env python3
"""A fresh install's first ``workbench dedup`` against its second: what compiling costs.

    python benchmarks/bench_first_run.py [CRAWL] [--repeats 3] [--mode both|cold|warmed]

Each repeat starts from an empty numba cache (a new temporary ``NUMBA_CACHE_DIR``: numba
then neither reads nor writes the caches beside the sources, so this is the cache of a
fresh install) and runs ``workbench dedup CRAWL -q`` twice, as separate processes, timed as
whole process trees (the fork server and its workers included: benchmarks/process_tree.py).

* ``cold``: nothing else; the first run compiles every numba loop it calls (what a user
  paid before ``workbench.detect.compile_ahead`` existed).
* ``warmed``: the install step first (``python -m workbench.detect.compile_ahead``, what
  scripts/bootstrap.sh runs after installing; timed on its own), then the two runs.

``both`` (the default) interleaves the two per repeat. Printed: each run's wall and CPU
time, then per mode the medians of the first run, the second and of their difference (on
a loaded machine the CPU times say more than the wall times).
CRAWL defaults to the dev Gold Set (../shared/data/goldset-dev).

Measured 2026-11-27 on the dev Gold Set (2 cores shared with other jobs, load 3-6; 5
interleaved repeats): cold, first 17.6 s and second 5.9 s (+11.4 s; CPU 16.8 s against
4.6 s); warmed, first 6.0 s and second 5.9 s (-0.2 s; CPU 4.9 s both), the install step
20.6 s. Before compile_ahead (3 repeats): first 20.0 s, second 5.5 s (+15.1 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from process_tree import run_measured  # noqa: E402

GOLD_SET = ROOT.parent / "shared" / "data" / "goldset-dev"
WARM_MODULE = "workbench.detect.compile_ahead"


@dataclass(frozen=True)
class Pair:
    warm_s: float | None  # the install step's wall time (warmed mode only)
    first_s: float
    second_s: float
    first_cpu_s: float
    second_cpu_s: float


def child_env(cache_dir: Path) -> dict[str, str]:
    """The environment of every command of one repeat: its own empty numba cache, and this
    checkout's sources first (so a copy of another commit can be measured the same way)."""
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def dedup(crawl: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``workbench dedup`` process tree."""
    usage = run_measured([sys.executable, "-m", "workbench", "dedup", str(crawl), "-q"], env=env,
                         stdout=subprocess.DEVNULL)
    if usage.returncode != 0:
        sys.exit(f"workbench dedup failed with status {usage.returncode}")
    return usage.wall_s, usage.cpu_s


def one_pair(crawl: Path, warmed: bool) -> Pair:
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = child_env(Path(cache))
        warm_s = None
        if warmed:
            usage = run_measured([sys.executable, "-m", WARM_MODULE, "--quiet"], env=env)
            if usage.returncode != 0:
                sys.exit(f"{WARM_MODULE} failed with status {usage.returncode}")
            warm_s = usage.wall_s
        first, first_cpu = dedup(crawl, env)
        second, second_cpu = dedup(crawl, env)
    return Pair(warm_s, first, second, first_cpu, second_cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crawl", nargs="?", type=Path, default=GOLD_SET)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mode", choices=["both", "cold", "warmed"], default="both")
    args = ap.parse_args()
    if not args.crawl.exists():
        sys.exit(f"no crawl at {args.crawl} (the dev Gold Set is ../shared/data/goldset-dev)")
    modes = {"both": [False, True], "cold": [False], "warmed": [True]}[args.mode]
    results: dict[bool, list[Pair]] = {m: [] for m in modes}
    for repeat in range(1, args.repeats + 1):
        for warmed in modes:
            pair = one_pair(args.crawl, warmed)
            results[warmed].append(pair)
            step = f"install step {pair.warm_s:.1f} s, " if pair.warm_s is not None else ""
            print(f"repeat {repeat} {'warmed' if warmed else 'cold':>6}: {step}first {pair.first_s:.2f} s "
                  f"(CPU {pair.first_cpu_s:.1f} s), second {pair.second_s:.2f} s "
                  f"(CPU {pair.second_cpu_s:.1f} s), first - second {pair.first_s - pair.second_s:+.2f} s",
                  flush=True)
    for warmed, pairs in results.items():
        med = statistics.median
        step = (f", install step {med(p.warm_s for p in pairs if p.warm_s is not None):.1f} s"
                if warmed else "")
        mode = "warmed" if warmed else "cold"
        print(f"median of {len(pairs)} {mode}: first {med(p.first_s for p in pairs):.2f} s, "
              f"second {med(p.second_s for p in pairs):.2f} s, "
              f"first - second {med(p.first_s - p.second_s for p in pairs):+.2f} s{step}; CPU: first "
              f"{med(p.first_cpu_s for p in pairs):.1f} s, second {med(p.second_cpu_s for p in pairs):.1f} s")


if __name__ == "__main__":
    main()
