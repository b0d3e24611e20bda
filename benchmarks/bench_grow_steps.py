"""Where one Add Pages (``workbench dedup CRAWL --project P --add``) spends its time, step by step.

usage: bench_grow_steps.py WORK [--keep-csv]

WORK is a work folder of benchmarks/bench_grow.py (its ``crawl`` and ``base.wbproj`` with
its kept pages, made once by that script). A copy of the base project is given one ``--add``
of the crawl in this process, with ``--pairs``, and each step is timed: wall time (Python's
``perf_counter``) and this process's CPU time (user + sys of all its threads, from
``getrusage``; the workers' CPU is not in it, so run this under benchmarks/process_tree.py
for the whole tree's). CPU seconds do not depend on the machine's load, wall times do: quote
the load (printed) beside them. Steps nest: "grow_corpus (all)" holds the walk, the kept
pages' load, the reading of the new files, their keeping and the filters; what it holds
beyond those is the walk and putting the pages in order. The copy is removed afterwards
(with ``--keep-csv`` its pairs CSV stays, ``WORK/steps.csv``, to compare with a full run's).

Measured (gensmall 110,000 seed 1: 100,000 + 10,000 added, see bench_grow.py; 2 cores
shared with other jobs, 1-min load 14-21), each run under process_tree.py, interleaved:
--add before (main at 14c764a) and after (this branch), then a full run; wall s / CPU s of
this process (the workers' CPU only in the tree's figure):

    step                       before, pair 1 / 2             after, pair 1 / 2
    walk, stamps, ordering *   -/2.2       -/2.2              5.29/2.1    4.20/2.2
    load kept pages            1.85/0.81   2.23/0.79          2.68/0.88   1.87/0.89
    read+extract new files    49.19/0.77  46.38/0.76         49.14/0.72  44.84/0.90
    append kept pages          0.28/0.11   0.49/0.12          0.39/0.12   0.33/0.13
    filters + site titles     18.18/7.14  22.40/7.35         17.85/6.59  15.66/7.24
    match + cluster           42.10/14.06 35.36/13.37        36.62/12.66 39.27/14.57
    pairs CSV                  1.81/0.66   1.21/0.59          1.57/0.61   1.26/0.63
    save run                  19.76/7.28  17.80/7.06         16.49/6.70  16.97/7.79
    date clustered pages      14.28/0.22  10.37/0.22         12.81/0.20  13.63/0.22
    open / close project       0.03, 1.66  0.02, 0.14         0.03, 0.08  0.02, 0.07
    the whole tree (wall/CPU) 159.8/54.8  145.5/53.3         148.4/51.5  143.0/57.2
    (*) CPU: grow_corpus less the steps below it (after: with numba's setup, now in a
    thread while the files are read); wall (after only): the walk's own timing.

The step an --add adds to a full run's work is small: the walk of all 110,000 files
(0.5 s of CPU; a second stat of every file, 0.5 s more, is gone), the kept pages' load
(0.8-0.9 s of CPU for 100,000 pages, 160 MB) and their append (0.1 s). Reading and
extracting the 10,000 new files costs the workers about 12 s of CPU, as a full run's
reading does per file (10,000 files scattered through the crawl 17.9 s of CPU for the
whole tree, the same 10,000 in a folder of their own 17.2 s). Every other step is over
the whole grown crawl (filters, join, clustering, site titles, saving 110,000 pages and
1.2 million pairs down to the pair floor), or over the pages the addition newly put in
clusters (dating: about 4,650 pages through htmldate in the workers, ~9 s of their CPU),
as in a full run.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import resource
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROWS: list[tuple[str, float, float]] = []


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(module: str, name: str, label: str) -> None:
    """Replace ``module.name`` (a function, or ``Class.method``) by one that records its time."""
    owner: Any = importlib.import_module(module)
    if "." in name:
        cls, name = name.split(".")
        owner = getattr(owner, cls)
    classmethod_ = isinstance(owner, type) and isinstance(owner.__dict__.get(name), classmethod)
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def step(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), cpu_seconds()
        try:
            return original(*args, **kwargs)
        finally:
            ROWS.append((label, time.perf_counter() - wall, cpu_seconds() - cpu))

    setattr(owner, name, staticmethod(step) if classmethod_ else step)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("work", type=Path)
    ap.add_argument("--keep-csv", action="store_true")
    args = ap.parse_args()
    started = time.time()
    work: Path = args.work
    project = work / "steps.wbproj"
    pages = Path(f"{project}.pages")
    for path in (project, pages):
        path.unlink(missing_ok=True)
    shutil.rmtree(f"{project}.backups", ignore_errors=True)
    shutil.copy2(work / "base.wbproj", project)
    shutil.copy2(work / "base.wbproj.pages", pages)

    # Each where it is looked up when the run calls it.
    timed("workbench.store.project", "Project.open", "open project")
    timed("workbench.usecases.grow", "load_kept", "load kept pages")
    timed("workbench.usecases.grow", "_read", "read+extract new files")
    timed("workbench.usecases.grow", "_save_quietly", "append kept pages")
    timed("workbench.usecases.grow", "corpus_of", "filters+titles")
    timed("workbench.usecases.grow", "grow_corpus", "grow_corpus (all)")
    timed("workbench.commands.cli", "detect", "match+cluster")
    timed("workbench.commands.cli", "write_pairs", "pairs CSV")
    timed("workbench.commands.cli", "save_result", "save run")
    timed("workbench.usecases.published_dates", "date_clustered_pages", "date clustered pages")
    timed("workbench.commands.cli", "_close", "close project")
    cli = importlib.import_module("workbench.commands.cli")

    wall, cpu = time.perf_counter(), cpu_seconds()
    cli.main(["dedup", str(work / "crawl"), "--project", str(project), "--add",
              "--pairs", str(work / "steps.csv"), "-q"], started=started)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    for label, w, c in ROWS:
        print(f"  {label:28s} {w:7.2f} s  cpu {c:6.2f} s")
    print(f"  {'the whole command':28s} {wall:7.2f} s  cpu {cpu:6.2f} s (this process); "
          f"1-min load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for path in (project, pages):
        path.unlink(missing_ok=True)
    shutil.rmtree(f"{project}.backups", ignore_errors=True)
    if not args.keep_csv:
        (work / "steps.csv").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
