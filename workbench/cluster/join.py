"""The exact join as Dask tasks: one index per length bucket, built and probed by tasks.

The client ranks the pages (``matcher.rank_join``: the probing order, by ascending length,
and every page's signatures by rarity) and writes the ranked rows once into the work
directory, a range of rows at a time; it builds no index. Then (``join_buckets.lay_out``)
one task per bucket of rows builds that bucket's prefix index, and one task per (bucket,
range of rows) inside the length bound (tau |x| <= |y|) probes the range against the
bucket with the numba kernel ``allpairs.probe`` unchanged. A bucket holds a bounded number
of entries, so no task holds the whole index. Every pair is found by exactly one task (the
one of its longer page's range and its shorter page's bucket); a task writes its pairs as
a Parquet shard and returns the shard's path and counts. The client joins the shards
(``finish_join``, which sorts the pairs), so the result is the local join's, to the last
digit.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np

from workbench.cluster.join_buckets import (
    BUCKET_ENTRIES,
    build_bucket,
    lay_out,
    probe_bucket,
    release_buckets,
    write_ranked,
)
from workbench.cluster.records.c_heap import arrow_on_c_heap
from workbench.cluster.records.shards import new_shard, read_pairs, write_pairs
from workbench.cluster.tasks import wait_all
from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join.matcher import PairResult, SignatureMatrix, finish_join, narrowest, rank_join


def index_task(ranked_dir: str, lo: int, hi: int, n_ranks: int, tau: float, delta_type: str,
               work_dir: str) -> str:
    """Task: the prefix index of rows lo:hi (a bucket); returns its file's path."""
    return build_bucket(ranked_dir, lo, hi, n_ranks, tau, delta_type, work_dir)


def probe_task(bucket_path: str, bucket_lo: int, ranked_dir: str, n_ranks: int, tau: float, exact_type: str,
               lo: int, hi: int, work_dir: str) -> tuple[str, int, int]:
    """Task: probe rows lo:hi against a bucket; returns (pairs shard, pairs, candidates verified)."""
    a, b, s, verified = probe_bucket(bucket_path, bucket_lo, ranked_dir, n_ranks, tau, exact_type, lo, hi)
    path = new_shard(work_dir, "pairs")
    write_pairs(a, b, s, path)
    return str(path), len(a), int(verified)


def find_pairs_on(client: Any, work_dir: Path, m: SignatureMatrix, tau: float,
                  duplicate_group: np.ndarray | None = None,
                  progress: ProgressFn = no_progress, bucket_entries: int = BUCKET_ENTRIES) -> PairResult:
    """``matcher.find_pairs`` with the index built and probed by the cluster's workers, a
    bucket of at most ``bucket_entries`` ranked entries at a time."""
    plan, pages = rank_join(m, tau, duplicate_group)
    if pages is None:
        return finish_join(plan, [])
    layout = lay_out(pages.ptr, pages.length, tau, plan.step, bucket_entries)
    delta_type = narrowest(int(pages.length.max())).name  # as the local index's: one compiled kernel
    n_ranks = pages.n_ranks
    ranked_dir = write_ranked(pages, work_dir, plan.step)
    del pages  # the tasks read the rows from the files: the client keeps what finish_join needs
    kind = np.dtype(plan.exact_type).name
    indexes = [client.submit(index_task, ranked_dir, lo, hi, n_ranks, tau, delta_type, str(work_dir),
                             pure=False, retries=2)
               for lo, hi in layout.buckets]
    probes = [client.submit(probe_task, indexes[t.bucket], layout.buckets[t.bucket][0], ranked_dir, n_ranks,
                            tau, kind, t.lo, t.hi, str(work_dir), pure=False, retries=2)
              for t in layout.tasks]
    futures = indexes + probes

    def report(done: int) -> None:
        progress("match", plan.rows * done // len(futures), plan.rows)
        progress("tasks", done, len(futures))

    done = wait_all(client, futures, report)
    # The workers' buckets go now, not when the next join comes (a worker gone meanwhile holds none).
    client.run(release_buckets, on_error="ignore")
    shutil.rmtree(ranked_dir, ignore_errors=True)  # what only this join reads
    for bucket in done[: len(indexes)]:
        Path(bucket).unlink(missing_ok=True)
    # The pair shards' columns are read into the C heap: finish_join lets each go once
    # copied, and they go back to the system then, not to Arrow's pool for the run's rest.
    with arrow_on_c_heap():
        parts = []
        for shard, _, verified in done[len(indexes):]:
            a, b, s = read_pairs(shard)
            parts.append((a, b, s, verified))  # rows as stored: finish_join makes them pages
        return finish_join(plan, parts)
