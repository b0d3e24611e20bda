#!/usr/bin/env python3
"""The ``--dask`` join alone: its wall time and each process's memory while it runs.

    python benchmarks/bench_dask_join.py CRAWL [--repeats 3] [--bucket-entries N ...] [--matrix FILE]

The crawl is read and filtered once here, with the local pipeline (``load_corpus``), into
its signature matrix (``--matrix FILE``: kept in FILE, a .npz, and read from there on the
next call). Then, ``--repeats`` times, on a fresh 2-worker LocalCluster each time, the
join runs (``workbench.cluster.join.find_pairs_on``, at the run's pair floor, as
``detect`` runs it) with every ``--bucket-entries`` given (default: the join's own); each
run prints its wall time, the buckets and tasks it made, how much this process (the
client) and the largest worker grew while it ran (resident memory sampled every 20 ms,
above what each held when the join began, after a join of 2,000 pages that loaded the
workers' code: benchmarks/process_tree.py) and the client's
and the largest worker's peak. The local join (``find_pairs``) runs in between, so the
figures are interleaved, and every run's pairs are checked against it.
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from process_tree import PAGE_SIZE, read_stat  # noqa: E402

MB = PAGE_SIZE / 2**20


class RssPeaks:
    """Each process's largest resident set while running, sampled every 20 ms."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.start = {pid: self._rss(pid) for pid in pids}
        self.peak = dict(self.start)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _rss(pid: int) -> int:
        st = read_stat(pid)
        return st.rss_pages if st is not None else 0

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            for pid in self.pids:
                self.peak[pid] = max(self.peak[pid], self._rss(pid))

    def __enter__(self) -> RssPeaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def load_matrix(crawl: Path, cache: Path | None):
    from workbench.detect.join.matcher import SignatureMatrix
    from workbench.detect.spotsigs.params import SpotSigsParams
    from workbench.usecases.pipeline import load_corpus

    if cache is not None and cache.exists():
        with np.load(cache) as d:
            groups = d["groups"] if len(d["groups"]) else None
            m = SignatureMatrix(d["ptr"], d["sig"], d["cnt"], None, d["unindexed"])
            return m, groups, float(d["floor"])
    params = SpotSigsParams()
    corpus = load_corpus(crawl, params, workers=2)
    m, groups = corpus.matrix, corpus.checksum_group
    floor = params.floor_for(m.n)
    if cache is not None:
        np.savez(cache, ptr=m.ptr, sig=m.sig, cnt=m.cnt, unindexed=m.unindexed_counts(),
                 groups=groups if groups is not None else np.empty(0), floor=floor)
    return SignatureMatrix(m.ptr, m.sig, m.cnt, None, m.unindexed_counts()), groups, floor


def _first_rows(m, rows: int):
    from workbench.detect.join.matcher import SignatureMatrix

    rows = min(rows, m.n)
    end = int(m.ptr[rows])
    return SignatureMatrix(m.ptr[: rows + 1], m.sig[:end], m.cnt[:end], None, m.unindexed_counts()[:rows])


def on_cluster(m, groups, floor: float, bucket_entries: int | None, want) -> dict[str, float]:
    from workbench.cluster import join
    from workbench.cluster.run import dask_run, local_cluster
    from workbench.core.clusters.heap import release_free_memory

    release_free_memory()  # the local join's freed index goes back first: only the join's own growth counts
    counted: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as work, local_cluster(2) as cluster, \
            dask_run(None, work, cluster=cluster) as run:
        workers = list(run.client.run(os.getpid).values())
        # A small join first, so that the workers' imports and compiled loops are not counted.
        join.find_pairs_on(run.client, run.work_dir, _first_rows(m, 2000), floor)
        extra = {} if bucket_entries is None else {"bucket_entries": bucket_entries}

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "tasks":
                counted["tasks"] = total

        with RssPeaks([os.getpid(), *workers]) as peaks:
            started = time.perf_counter()
            got = join.find_pairs_on(run.client, run.work_dir, m, floor, groups, progress, **extra)
            wall = time.perf_counter() - started
    same = (np.array_equal(got.a, want.a) and np.array_equal(got.b, want.b)
            and got.similarity.tobytes() == want.similarity.tobytes())
    if not same:
        sys.exit("the cluster's pairs differ from the local join's")
    me = os.getpid()
    grew = {pid: (peaks.peak[pid] - peaks.start[pid]) * MB for pid in peaks.pids}
    return {"wall_s": wall, "tasks": counted.get("tasks", 0),
            "client_grew_mb": grew[me], "client_peak_mb": peaks.peak[me] * MB,
            "worker_grew_mb": max(grew[p] for p in workers),
            "worker_peak_mb": max(peaks.peak[p] for p in workers) * MB}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--bucket-entries", type=int, nargs="*", default=[],
                    help="the buckets' size limits to run (default: the join's own)")
    ap.add_argument("--matrix", type=Path, default=None, help="keep the signature matrix in this .npz")
    args = ap.parse_args()

    from workbench.cluster import join
    from workbench.detect.join.matcher import find_pairs

    m, groups, floor = load_matrix(args.crawl, args.matrix)
    print(f"{m.n:,} pages, {len(m.sig):,} entries, pair floor {floor}", flush=True)
    takes_buckets = "bucket_entries" in inspect.signature(join.find_pairs_on).parameters
    sizes: list[int | None] = list(args.bucket_entries) if takes_buckets and args.bucket_entries else [None]
    runs: dict[str, list[dict[str, float]]] = {}
    local: list[float] = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        want = find_pairs(m, floor, groups)
        local.append(time.perf_counter() - started)
        print(f"local find_pairs {local[-1]:6.1f} s  ({len(want):,} pairs)", flush=True)
        for size in sizes:
            got = on_cluster(m, groups, floor, size, want)
            name = "default" if size is None else f"{size:,}"
            runs.setdefault(name, []).append(got)
            print(f"--dask join, buckets of {name:>10} entries: {got['wall_s']:6.1f} s, "
                  f"{got['tasks']:5} tasks; "
                  f"client +{got['client_grew_mb']:5.0f} MB (peak {got['client_peak_mb']:5.0f}), "
                  f"largest worker +{got['worker_grew_mb']:5.0f} MB (peak {got['worker_peak_mb']:5.0f})",
                  flush=True)
    print(f"medians: local {statistics.median(local):.1f} s", flush=True)
    for name, got in runs.items():
        med = {k: statistics.median(g[k] for g in got) for k in got[0]}
        print(f"  buckets of {name:>10} entries: {med['wall_s']:.1f} s, "
              f"client +{med['client_grew_mb']:.0f} MB, largest worker +{med['worker_grew_mb']:.0f} MB "
              f"(peak {med['worker_peak_mb']:.0f} MB)", flush=True)


if __name__ == "__main__":
    main()
