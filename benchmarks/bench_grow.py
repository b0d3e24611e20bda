"""Add Pages against a full run: a gensmall project that grows by 10 % (issue 34 item 7).

usage: bench_grow.py --gensmall DIR [--every 11] [--repeats 3] [--work DIR] [--workers N] [--reuse]

DIR is a gensmall output (../shared/tools/gensmall.py --docs 110000 --out DIR). Every
``--every``-th file (in sorted order) is held back: the project is made by a full run on
the rest (100,000 of 110,000 pages), the held files are put back, and then, interleaved,
``workbench dedup CRAWL --project COPY --add`` on a fresh copy of that project and a full
``workbench dedup CRAWL --project NEW`` run, each a process of its own, timed from start
to exit. Prints each run, the medians, the machine's load, and whether the pairs CSVs of
the two are byte for byte the same.

Measured (gensmall --docs 110000 --seed 1, 100,000 + 10,000 added, this 2-core machine
shared with other jobs, --reuse after a first run; each pair of lines an --add and the
full run after it):
- Before (kept pages rewritten whole by every --add, pairs saved in the matcher's order;
  1-min load 12-15): --add 170.7, 115.1, 326.5 s against full runs of 1127.8, 1034.7 s
  (the third full run was stopped for time): medians 170.7 vs 1081.3 s, 6.3x. At a load of
  6-8 an earlier run gave medians 80.2 vs 378.8 s, 4.7x: the heavier the load, the
  more a full run's reading of every file suffers.
- After (an --add appends only its files to the kept pages, which load with the cycle
  collector paused; pairs saved in key order; base project the same, its kept pages
  written in the new format; load 6-14): --add 363.9, 84.2, 105.6 s against full runs of
  939.9, 382.5, 512.9 s: medians 105.6 vs 512.9 s, 4.9x (pair by pair 2.6x with a test
  run beside the first, 4.5x, 4.9x). The pairs CSVs of every --add and full run the same
  (before and after too).
Where an --add's time goes (after, run 1, load 6-9): read+extract 18.4 s (the walk of
110,000 files, loading 100,000 kept pages, extracting the 10,000 new ones), keep pages
0.25 s (5.5-10 s before), filter 8.1, match 23.0, cluster 5.0, start-up and the rest 29.0
(opening the project with its backup and check, saving the run, carrying the coding over,
dating the new clustered pages). The full run after it: read+extract 238.3 s, filter
10.4, match 19.9, cluster 5.3, the rest 104.8 (saving the run, dating all 44,000
clustered pages). The filters, the join and clustering are redone in full over every
page (docs/command-line.md says why): about 36 s that no --add can skip, which holds the
ratio near 5x at such loads.
- Pairs from the project's run (workbench.usecases.grown_pairs; the matched line says how
  the pairs were found), base made by the code before it, load 14.6-23.8: --add 236.5 s
  against a full run of 1442.1 s, 6.1x, pairs CSVs the same; the --add matched 72,569 of
  109,999 pages again (adding 10 % changed every site's boilerplate on 62,569 old pages),
  match 40.3 s against the full run's 63.2 s. A second --add at load 33 took 848.4 s, its
  match 264.6 s: probing 60 % of the pages costs more than a full join, so above 5 % (as
  any addition of 10 % is) the join is now the full one again.
- Fixed costs (benchmarks/bench_grow_steps.py, each run under benchmarks/process_tree.py,
  interleaved: --add on the code before, --add after, a full run; 2 pairs, 1-min load
  14-21): --add before 159.8, 145.5 s (CPU of the whole process tree 54.8, 53.3 s), after
  148.4, 143.0 s (51.5, 57.2 s), full runs 703.7, 679.2 s (234.7, 237.1 s). Medians: full
  run / --add 4.5x before, 4.7x after in wall time, 4.4x and 4.3x in CPU seconds (which the
  load does not change); every pairs CSV byte for byte the full run's. The cut (no second
  stat of each file after the walk, numba's setup while the files are read) is about 0.5 s
  of CPU, within the runs' spread: an --add's own steps (the walk, 0.5 s of CPU; loading
  100,000 kept pages, 0.8-0.9 s; appending 10,000, 0.1 s; opening the project with its
  backup on a thread, 0.3 s) are small, reading and extracting the new files costs what a
  full run's reading costs a file, and the rest is over the whole grown crawl (filters and
  site titles ~7 s of CPU, match and clustering ~13-14 s, saving 110,000 pages and 1.2
  million pairs ~7 s) or over the pages newly clustered (their dates, ~9 s of the workers').
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def workbench(*args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench", "dedup", *args, "-q"],
                          check=True, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout


def line(out: str, start: str) -> str:
    return next((x for x in out.splitlines() if x.startswith(start)), "").strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gensmall", required=True, type=Path)
    ap.add_argument("--every", type=int, default=11)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench_grow"))
    ap.add_argument("--workers", type=str, default=None)
    ap.add_argument("--reuse", action="store_true",
                    help="use the grown crawl and base project --work holds from an earlier run")
    args = ap.parse_args()
    extra = ["--workers", args.workers] if args.workers else []

    work = args.work
    crawl, held = work / "crawl", work / "held"
    base = work / "base.wbproj"
    if args.reuse:  # the grown crawl and the base project of an earlier run of this script
        run(args, extra, work, crawl, base)
        return
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(args.gensmall / "pages", crawl)
    files = sorted(crawl.rglob("*.html"))
    for path in files[args.every - 1 :: args.every]:
        target = held / path.relative_to(crawl)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
    n_held = sum(1 for _ in held.rglob("*.html"))
    print(f"crawl: {len(files) - n_held:,} files, {n_held:,} held back and added", flush=True)

    seconds, out = workbench(str(crawl), "--project", str(base), *extra)
    print(f"base project: {seconds:.1f} s; {line(out, 'pages read')}", flush=True)
    for path in held.rglob("*.html"):
        target = crawl / path.relative_to(held)
        shutil.copy2(path, target)
    run(args, extra, work, crawl, base)


def run(args: argparse.Namespace, extra: list[str], work: Path, crawl: Path, base: Path) -> None:
    """The interleaved runs: --add on a copy of the base project, then a full run."""
    adds: list[float] = []
    fulls: list[float] = []
    same: list[bool] = []
    load = [os.getloadavg()[0]]
    for k in range(args.repeats):
        project = work / f"add{k}.wbproj"
        shutil.copy2(base, project)
        shutil.copy2(f"{base}.pages", f"{project}.pages")
        add_pairs, full_pairs = work / f"add{k}.csv", work / f"full{k}.csv"
        seconds, out = workbench(str(crawl), "--project", str(project), "--add", "--pairs", str(add_pairs),
                                 *extra)
        adds.append(seconds)
        print(f"add  {k}: {seconds:7.1f} s  {line(out, 'files:')}", flush=True)
        print(f"        {line(out, 'matched:')}", flush=True)
        print(f"        {line(out, 'wall time')}", flush=True)
        seconds, out = workbench(str(crawl), "--project", str(work / f"full{k}.wbproj"),
                                 "--pairs", str(full_pairs), *extra)
        fulls.append(seconds)
        print(f"full {k}: {seconds:7.1f} s  {line(out, 'pairs')}", flush=True)
        print(f"        {line(out, 'wall time')}", flush=True)
        same.append(add_pairs.read_bytes() == full_pairs.read_bytes())
        load.append(os.getloadavg()[0])
    add, full = statistics.median(adds), statistics.median(fulls)
    print(f"median: --add {add:.1f} s, full run {full:.1f} s: {full / add:.1f}x faster; "
          f"same pairs CSV: {all(same)} ({same}); 1-min load average {', '.join(f'{x:.1f}' for x in load)} "
          f"on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
