"""The exact join as Dask tasks: the matcher's own plan, probed in ranges of rows.

The client ranks the pages and builds the prefix index (``matcher.plan_join``), writes it
once into the work directory and submits one task per range of rows. Rows are in
ascending length, so a range is a length bucket of the longer pages, and the kernel's
length filter (tau |x| <= |y|) lets each of its pages meet only the buckets inside that
ratio; a bucket is at most ``plan.step`` rows (a large bucket is cut into blocks). Every
pair is found by exactly one task, the one holding its longer page, with the numba kernel
``allpairs.probe`` unchanged; a task writes its pairs as a Parquet shard and returns the
shard's path and counts. The client joins the shards in range order (``finish_join``), so
the result is the local join's, to the last digit.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from workbench.cluster.shards import new_shard, read_pairs, write_pairs
from workbench.cluster.tasks import wait_all
from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join import allpairs
from workbench.detect.join.matcher import PairResult, ProbeIndex, SignatureMatrix, finish_join, plan_join

# The index a worker process has loaded (path, arrays, its scratch scores): the tasks of a
# run share it, and a run's index is loaded once per worker.
_loaded: tuple[str, ProbeIndex, np.ndarray] | None = None
_lock = threading.Lock()


def _index(path: str, exact_type: str) -> tuple[ProbeIndex, np.ndarray]:
    global _loaded
    with _lock:
        if _loaded is None or _loaded[0] != path:
            _loaded = None  # the last run's arrays go before this run's come
            with np.load(path) as npz:
                a = [npz[f"arr_{k}"] for k in range(len(npz.files))]
            shared: ProbeIndex = (a[0], a[1], a[2], a[3], float(a[4]), a[5], a[6], a[7], a[8], a[9], a[10])
            _loaded = (path, shared, np.zeros(len(a[10]), dtype=exact_type))
        return _loaded[1], _loaded[2]


def probe_task(index_path: str, exact_type: str, lo: int, hi: int, work_dir: str) -> tuple[str, int, int]:
    """Task: probe rows lo:hi; returns (pairs shard, pairs, candidates verified)."""
    shared, score = _index(index_path, exact_type)
    a, b, s, verified = allpairs.probe(lo, hi, *shared, score)
    path = new_shard(work_dir, "pairs")
    write_pairs(a, b, s, path)
    return str(path), len(a), int(verified)


def find_pairs_on(client: Any, work_dir: Path, m: SignatureMatrix, tau: float,
                  duplicate_group: np.ndarray | None = None,
                  progress: ProgressFn = no_progress) -> PairResult:
    """``matcher.find_pairs`` with the probing done by the cluster's workers."""
    plan = plan_join(m, tau, duplicate_group)
    if plan.rows == 0 or plan.shared is None:
        return finish_join(plan, [])
    index_path = _save_index(plan.shared, work_dir)
    kind = np.dtype(plan.exact_type).name
    futures = [client.submit(probe_task, str(index_path), kind, lo, min(lo + plan.step, plan.rows),
                             str(work_dir), pure=False, retries=2)
               for lo in plan.starts()]
    plan.shared = None  # the index is the workers' now: the client keeps what finish_join needs

    def report(done: int) -> None:
        progress("match", min(done * plan.step, plan.rows), plan.rows)
        progress("tasks", done, len(futures))

    done = wait_all(client, futures, report)
    parts = []
    for shard, _, verified in done:
        a, b, s = read_pairs(shard)
        parts.append((a.astype(np.int64), b.astype(np.int64), s, verified))
    return finish_join(plan, parts)


def _save_index(index: ProbeIndex, work_dir: Path) -> Path:
    path = new_shard(work_dir, "index").with_suffix(".npz")
    np.savez(path, *[np.asarray(x) for x in index])  # arr_0, arr_1...: _index reads them back
    return path
