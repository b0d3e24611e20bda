#!/usr/bin/env python3
"""Each process's peak memory in ``workbench dedup CRAWL --dask`` runs: the client (the
command) apart from the cluster's scheduler, nannies and workers, so that one can see
whether the client's peak grows with the crawl (issue 34: it must not, beyond what
clustering needs).

    python benchmarks/bench_dask_memory.py CRAWL [CRAWL...] [--project-dir DIR] [--local] [--keep DIR]

Each crawl runs once as ``workbench dedup CRAWL -q --workers 2 --dask --project P``
(``--local``: without ``--dask``) in a session of its own; every 50 ms each process of the
session is sampled (benchmarks/process_tree.py) and its largest resident set kept.
Printed per crawl: pages (the folder's .html files), wall time, the client's peak, the
largest worker's peak, the peak summed over the tree, and the project file's size.

``--stages``: instead, the run through the Python API in this process (the client) on a
2-worker LocalCluster, with this process's resident memory after each stage and its peak
so far: what the client holds, stage by stage (the pages' records come back; their
signature arrays stay in the shards, and the matrix's rows are made and filtered by the
tasks: a mark once their files are read, before the filtered matrix is filled).
With two crawls or more, the records' cost a page follows: the growth of the client's
resident memory over reading the records back, from one crawl to the next, per page
added (issue 34's client memory: the records stay for the whole run). ``--trace``: the
Python and numpy objects still alive once the records are back too (tracemalloc: slower).

    python benchmarks/bench_dask_memory.py --stages [--trace] /tmp/gs100k/pages /tmp/gs300k/pages

``--parts`` says where the client's memory is at each stage: file mappings, glibc's heap
(in use and free), Python's own arenas (and the part in live objects), Arrow's pools, and
what tracemalloc sees with ``--trace``; ``--trim`` then gives the heap's free pages back and
says how much went. ``--steps`` marks the filter stage's client steps (the corpus
boilerplate's inputs and decision, the document frequencies, the rows): the client's
memory before each, at its peak (sampled every 5 ms) and after. ``--readback`` marks the
read-back's steps (the plan made, the logs replayed, the records read), with Python's
arenas and the part of them in live objects. ``--detect-steps`` marks the match and cluster
stage's client steps the same way (the join's ranking, its ranked rows written, its tasks
waited for, its pairs read and sorted; clustering, the reference similarities, the shares).
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the checkout whose workbench runs (cwd of the command)
sys.path.insert(0, str(HERE))

from process_tree import PAGE_SIZE, SessionSampler, _all_pids, read_stat  # noqa: E402


class PerProcessSampler(SessionSampler):
    """:class:`SessionSampler` that also keeps each process's own peak."""

    def __init__(self, session: int) -> None:
        super().__init__(session)
        self.peaks: dict[int, int] = {}  # pid -> largest resident set seen, in pages

    def sample(self) -> None:
        super().sample()
        for pid in _all_pids():
            st = read_stat(pid)
            if st is not None and st.session == self.session:
                self.peaks[pid] = max(self.peaks.get(pid, 0), st.rss_pages)


def measure(crawl: Path, project: Path, dask: bool) -> dict[str, float]:
    cmd = [sys.executable, "-m", "workbench", "dedup", str(crawl), "-q", "--workers", "2",
           "--project", str(project)] + (["--dask"] if dask else [])
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    sampler = PerProcessSampler(proc.pid)
    sampler.start()
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    wall = time.perf_counter() - started
    sampler.stop()
    if proc.wait() != 0:
        sys.exit(f"workbench dedup {crawl} failed")
    mb = PAGE_SIZE / 2**20
    others = [v for pid, v in sampler.peaks.items() if pid != proc.pid]
    return {"wall_s": wall, "client_mb": sampler.peaks.get(proc.pid, 0) * mb,
            "largest_other_mb": max(others, default=0) * mb, "tree_mb": sampler.peak_rss_pages * mb,
            "project_mb": project.stat().st_size / 2**20}


def _rss_mb() -> tuple[float, float]:
    """This process's resident memory now and its peak so far, in MB."""
    import resource

    with open("/proc/self/statm") as fh:
        now = int(fh.read().split()[1]) * PAGE_SIZE / 2**20
    return now, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _MallInfo2(ctypes.Structure):
    # glibc's struct mallinfo2 (malloc.h): every field a size_t.
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                 "fordblks", "keepcost")]


def _c_heap_mb() -> tuple[float, float] | None:
    """glibc's heap: the bytes in use (small blocks and mapped ones) and the free bytes it
    keeps, in MB; None off glibc."""
    try:
        fn = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return None
    fn.restype = _MallInfo2
    info = fn()
    return (info.uordblks + info.hblkhd) / 2**20, info.fordblks / 2**20


def _mappings_mb() -> dict[str, float]:
    """This process's resident memory by kind of mapping (/proc/self/smaps), in MB: files
    (libraries and mapped files), code made at run time (numba's compiled loops), and
    the rest of the anonymous memory (the C heap, Python's own arenas, Arrow's pool)."""
    out = {"files": 0.0, "run-time code": 0.0, "anonymous": 0.0}
    kind = "anonymous"
    with open("/proc/self/smaps") as fh:
        for line in fh:
            head = line.split()
            if "-" in head[0] and len(head) >= 5:  # a mapping's first line
                name = head[5] if len(head) > 5 else ""
                kind = ("files" if name.startswith("/") else
                        "run-time code" if "x" in head[1] else "anonymous")
            elif head[0] == "Rss:":
                out[kind] += int(head[1]) / 1024
    return out


def _python_arenas_mb() -> tuple[float, float]:
    """The memory of Python's own small-object arenas (mapped apart from the C heap) and
    the part of it in live objects, in MB, from ``sys._debugmallocstats`` (which writes to
    the C stderr)."""
    import re

    with tempfile.TemporaryFile(mode="w+") as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read()
    figures = []
    for pattern in (r"arenas \* \d+ bytes/arena\s*=\s*([\d,]+)",
                    r"# bytes in allocated blocks\s*=\s*([\d,]+)"):
        got = re.search(pattern, text)
        figures.append(int(got.group(1).replace(",", "")) / 2**20 if got else float("nan"))
    return figures[0], figures[1]


def _parts(trim: bool = False) -> str:
    """Where the resident memory is: mappings, glibc's heap, Arrow's pool, and what
    tracemalloc sees (Python objects and numpy arrays) when it runs."""
    import tracemalloc

    import pyarrow as pa

    maps = _mappings_mb()
    heap = _c_heap_mb()
    said = [f"files {maps['files']:.0f}", f"run-time code {maps['run-time code']:.0f}",
            f"anonymous {maps['anonymous']:.0f}"]
    if heap is not None:
        said.append(f"C heap in use {heap[0]:.0f} + free {heap[1]:.0f}")
    arenas, live = _python_arenas_mb()
    said.append(f"Python's arenas {arenas:.0f} ({live:.0f} in objects)")
    said.append(f"Arrow's pools {pa.total_allocated_bytes() / 2**20:.0f} + "
                f"{pa.system_memory_pool().bytes_allocated() / 2**20:.0f} (C heap)")
    if tracemalloc.is_tracing():
        said.append(f"traced {tracemalloc.get_traced_memory()[0] / 2**20:.0f}")
    if trim:  # what glibc's heap gives back when asked: its resident free pages
        from workbench.core.clusters.heap import release_free_memory

        before = _mappings_mb()["anonymous"]
        release_free_memory()
        said.append(f"trimmed {before - _mappings_mb()['anonymous']:.0f}")
    return "      MB: " + ", ".join(said)


def _live_objects(pages: int, stop: bool = True) -> None:
    """The allocations still alive (tracemalloc has traced since the read-back began)."""
    import gc
    import tracemalloc

    gc.collect()
    stats = tracemalloc.take_snapshot().statistics("lineno")
    if stop:
        tracemalloc.stop()
    total = sum(s.size for s in stats)
    print(f"    live objects made since: {total / 2**20:.1f} MB, {total / max(pages, 1):.0f} bytes a page; "
          "the largest:", flush=True)
    for stat in stats[:12]:
        where = stat.traceback[0]
        print(f"      {stat.size / 2**20:7.1f} MB {stat.count:>10,} objects  "
              f"{where.filename.split('site-packages/')[-1]}:{where.lineno}", flush=True)


# The client's steps of the filter stage that --steps marks (workbench.cluster.run's names;
# the two before them are what an older checkout calls the corpus boilerplate's steps).
_FILTER_STEPS = ("corpus_inputs", "corpus_boilerplate_flat", "corpus_inputs_on", "corpus_boilerplate_weighed",
                 "too_common_and_filters_on", "matrix_rows_on")


class _PeakWatch:
    """This process's largest resident set while a step runs, sampled every 5 ms."""

    def __init__(self) -> None:
        import threading

        self.peak = 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, _rss_mb()[0])
            self._done.wait(0.005)

    def __enter__(self) -> _PeakWatch:
        self.peak = _rss_mb()[0]  # a step shorter than a sample has its start and end
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_mb()[0])


# The match and cluster stage's client steps that --detect-steps marks, by module.
_DETECT_STEPS = {
    "workbench.cluster.join": ("rank_join", "write_ranked", "wait_all", "finish_join"),
    "workbench.usecases.pipeline": ("_at_least", "weak_join_check", "cluster_pairs", "reference_similarities",
                                    "boilerplate_shares"),
}


def _mark_steps(module_name: str = "workbench.cluster.run", names: tuple[str, ...] = _FILTER_STEPS) -> None:
    """Each step of the client (a function ``module_name`` calls by these names) prints its
    resident memory before, at its peak and after (its temporaries: what it adds above
    what the client held)."""
    import functools
    import importlib

    module = importlib.import_module(module_name)
    for name in names:
        step = getattr(module, name, None)
        if step is None:
            continue

        def marked(*args: Any, _step: Any = step, _name: str = name, **kwargs: Any) -> Any:
            before = _rss_mb()[0]
            with _PeakWatch() as watch:
                try:
                    return _step(*args, **kwargs)
                finally:
                    print(f"    {_name:<30} before {before:6.0f} MB, peak {watch.peak:6.0f} "
                          f"(+{watch.peak - before:4.0f}), after {_rss_mb()[0]:6.0f}", flush=True)

        setattr(module, name, functools.wraps(step)(marked))


def _mark_readback() -> None:
    """The read-back's steps: the client's memory, Python's arenas and the part of them in
    live objects once the plan is made, once the logs are replayed, and once the records
    are read back (with that read's time)."""
    import workbench.cluster.extract as extract
    from workbench.cluster.records import light_pages

    def say(step: str) -> None:
        now, peak = _rss_mb()
        arenas, live = _python_arenas_mb()
        print(f"    {step:<38} client now {now:6.0f} MB, peak so far {peak:6.0f}, "
              f"Python's arenas {arenas:4.0f} ({live:4.0f} in objects)", flush=True)

    run_plan = getattr(extract, "run_plan")  # noqa: B009 - the name extract imported

    def replayed(*args: Any, **kwargs: Any) -> Any:
        say("the plan made")
        got = run_plan(*args, **kwargs)
        say("the logs replayed")
        return got

    setattr(extract, "run_plan", replayed)  # noqa: B010
    made = light_pages.LightPages.__init__

    def records(self: Any, places: Any) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        made(self, places)
        say(f"records read ({time.perf_counter() - wall:.1f} s, CPU {time.process_time() - cpu:.1f} s)")

    light_pages.LightPages.__init__ = records  # type: ignore[method-assign]


def client_stages(crawl: Path, where: Path, trace: bool = False, parts: bool = False,
                  trim: bool = False, steps: bool = False, readback: bool = False,
                  detect_steps: bool = False) -> tuple[int, float]:
    """Prints the stages; returns the pages and how much the client grew reading their
    records back (MB)."""
    sys.path.insert(0, str(ROOT))
    from workbench.cluster.run import dask_run, local_cluster
    from workbench.store import Project
    from workbench.usecases.pipeline import detect, filter_corpus, retitle_corpus, save_result

    def say(stage: str) -> None:
        now, peak = _rss_mb()
        print(f"  {stage:<34} client now {now:7.0f} MB, peak so far {peak:7.0f} MB", flush=True)
        if parts:
            print(_parts(trim), flush=True)

    if steps:
        _mark_steps()
    if readback:
        _mark_readback()
    if detect_steps:
        for module_name, names in _DETECT_STEPS.items():
            _mark_steps(module_name, names)
    say("start")
    with local_cluster(2) as cluster, dask_run(None, where, cluster=cluster) as run:
        say("cluster up")
        from workbench.detect.spotsigs.params import SpotSigsParams

        params = SpotSigsParams()
        if trace:
            import tracemalloc

            tracemalloc.start()
        before, _ = _rss_mb()
        pages, skipped = run.extract_all(crawl, params, lambda *_: None, 2)
        grew = _rss_mb()[0] - before
        n = len(pages)
        say(f"pages' records read back ({n:,})")
        if trace:
            _live_objects(n, stop=not parts)

        def matrix_rows(*args: Any) -> Any:
            # The filter stage's two steps: the rows tasks' files read (the repeated blocks'
            # table and each page's length), then the filtered matrix filled from them.
            made = run.matrix_rows(*args)
            say("filter: rows tasks done, files read")
            return made

        # corpus_of's two steps, with a mark after each.
        corpus = filter_corpus(str(crawl), params, pages, skipped, {}, site_boiler=run.site_boilerplate,
                               too_common_ids=run.too_common_ids, checksum_groups=run.checksum_groups,
                               matrix_rows=matrix_rows)
        del pages
        say("filtered: signature matrix")
        retitle_corpus(corpus)
        say("site labels retitled")
        if trace and parts:
            _live_objects(n)
        result = detect(corpus, join=run.join)
        say(f"matched and clustered ({len(result.pairs.a):,} pairs)")
        project = Project.create(where / "p.wbproj", str(crawl))
        save_result(project, result)
        project.close()
        say("saved into the project")
    return n, grew


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("crawls", nargs="+", type=Path)
    ap.add_argument("--project-dir", type=Path, default=None)
    ap.add_argument("--local", action="store_true", help="the local pipeline instead of --dask")
    ap.add_argument("--stages", action="store_true", help="the client's memory stage by stage (in process)")
    ap.add_argument("--trace", action="store_true",
                    help="with --stages: the objects alive once the records are back (tracemalloc)")
    ap.add_argument("--parts", action="store_true",
                    help="with --stages: where the memory is at each stage (mappings, C heap, Arrow's "
                         "pool; with --trace, what tracemalloc sees, and its largest objects once "
                         "retitled too)")
    ap.add_argument("--steps", action="store_true",
                    help="with --stages: the client's memory around each of the filter stage's steps")
    ap.add_argument("--readback", action="store_true",
                    help="with --stages: the client's memory and arenas through the read-back's steps")
    ap.add_argument("--detect-steps", action="store_true",
                    help="with --stages: the client's memory around each of the match and cluster "
                         "stage's steps (the join's ranking, its tasks, its pairs read; clustering)")
    ap.add_argument("--trim", action="store_true",
                    help="with --parts: then give the C heap's free pages back, and say how much went")
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the projects in this folder (to score them afterwards: "
                         "scripts/score_project.py); default: removed")
    args = ap.parse_args()
    if args.stages:
        grown: list[tuple[int, float]] = []
        for crawl in args.crawls:
            with tempfile.TemporaryDirectory(dir=args.project_dir) as where:
                print(f"{crawl}:", flush=True)
                grown.append(client_stages(crawl, Path(where), args.trace, args.parts, args.trim, args.steps,
                                           args.readback, args.detect_steps))
        for (n0, mb0), (n1, mb1) in itertools.pairwise(grown):
            if n1 != n0:
                print(f"records read back: {n0:,} -> {n1:,} pages, the client grew {mb0:.0f} -> {mb1:.0f} "
                      f"MB: {(mb1 - mb0) * 2**20 / (n1 - n0):.0f} bytes a page more", flush=True)
        return
    with tempfile.TemporaryDirectory(dir=args.project_dir) as where:
        for k, crawl in enumerate(args.crawls):
            pages = sum(1 for _ in crawl.rglob("*.html"))
            project = Path(where) / f"p{k}.wbproj"
            got = measure(crawl, project, not args.local)
            print(f"{pages:>9,} pages  wall {got['wall_s']:7.1f} s  client peak {got['client_mb']:7.0f} MB  "
                  f"largest other process {got['largest_other_mb']:6.0f} MB  tree {got['tree_mb']:7.0f} MB  "
                  f"project {got['project_mb']:6.0f} MB", flush=True)
            if args.keep is not None:
                args.keep.mkdir(parents=True, exist_ok=True)
                how = "local" if args.local else "dask"
                kept = args.keep / f"{crawl.parent.name}-{crawl.name}-{how}.wbproj"
                shutil.move(project, kept)  # the project file only (not its kept pages)
                print(f"project kept: {kept}", flush=True)


if __name__ == "__main__":
    main()
