#!/usr/bin/env python3
"""One whole ``workbench dedup`` run, measured as a process tree: the million-page check.

    python benchmarks/bench_whole_run.py /tmp/small1m --project /tmp/small1m.wbproj [--tau 0.9 ...]

Runs ``workbench dedup CRAWL --project P`` (any other arguments are passed on), with
wall time, CPU time and peak memory of the command and every process it starts (the
forkserver workers included: benchmarks/process_tree.py), the stage times the command
prints, the project file's size, and how long the saved project takes to open its
cluster list and counts. Make the crawl with
``python ../shared/tools/gensmall.py --docs 1000000 --out /tmp/small1m`` (about 8.6 GB;
delete it afterwards).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from process_tree import run_measured  # noqa: E402

from workbench.store import Project  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crawl")
    ap.add_argument("--project", required=True, help="project file to save into (replaced)")
    args, rest = ap.parse_known_args()
    project = Path(args.project)
    for leftover in project.parent.glob(project.name + "*"):
        leftover.unlink()
    extra = [a for a in rest if a != "--"]
    cmd = [sys.executable, "-m", "workbench", "dedup", args.crawl, "--project", str(project), "-q", *extra]
    with tempfile.TemporaryFile() as out:
        usage = run_measured(cmd, stdout=out, stderr=subprocess.STDOUT)
        out.seek(0)
        printed = out.read().decode(errors="replace")
    print(printed.rstrip())
    print(f"exit status {usage.returncode}; wall {usage.wall_s:,.1f} s ({usage.wall_s / 60:.1f} min); "
          f"CPU {usage.cpu_s:,.1f} s; peak memory of the whole process tree "
          f"{usage.peak_rss_bytes / 2**30:.2f} GB over {usage.processes} processes")
    if usage.returncode != 0 or not project.exists():
        sys.exit(1)
    print(f"project file: {project.stat().st_size / 2**20:,.0f} MB")
    t0 = time.perf_counter()
    with Project.open(project, backups=0, readonly=True) as p:
        rows = p.list_clusters(0, 200)
        t1 = time.perf_counter()
        counts = p.counts()
        t2 = time.perf_counter()
    print(f"opening the project and its first {len(rows)} clusters: {1000 * (t1 - t0):,.0f} ms; "
          f"counts(): {1000 * (t2 - t1):,.1f} ms ({counts})")


if __name__ == "__main__":
    main()
