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

Measured (gensmall 110,000 seed 1: 100,000 + 10,000 added, see bench_grow.py), each run
under process_tree.py, interleaved with the other code and a full run: see the commit that
added this file and benchmarks/bench_grow.py.
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
