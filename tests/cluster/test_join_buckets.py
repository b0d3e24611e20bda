"""The join cut into length buckets (workbench.cluster.join_buckets) finds the local join's
pairs to the last bit, whatever the buckets and ranges; a task's index holds only its
bucket; and on a cluster the client builds no index at all (workbench.cluster.join).

Most tests run the tasks' functions here, one after the other, as the cluster's tasks
would (``_bucketed``); one runs them on the cluster.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cluster.test_dask_same_results import cluster  # noqa: F401 - fixture
from tests.detect.join.multisets import checksum_groups, matrix_of
from workbench.cluster import join_buckets
from workbench.cluster.join import find_pairs_on
from workbench.cluster.join_buckets import (
    LoadedBucket,
    build_bucket,
    lay_out,
    probe_bucket,
    release_buckets,
    write_ranked,
)
from workbench.cluster.run import dask_run
from workbench.detect.join import allpairs
from workbench.detect.join.jaccard import brute_force_pairs
from workbench.detect.join.matcher import (
    PairResult,
    SignatureMatrix,
    find_pairs,
    finish_join,
    narrowest,
    rank_join,
)

multiset = st.dictionaries(st.integers(0, 30), st.integers(1, 4), max_size=14)




def _bucketed(m: SignatureMatrix, tau: float, groups: np.ndarray | None, step: int, bucket_entries: int,
              work: Path, seen: list[LoadedBucket] | None = None) -> PairResult:
    """What find_pairs_on has its tasks do, done here: buckets indexed, then every task probed."""
    plan, pages = rank_join(m, tau, groups)
    if pages is None:
        return finish_join(plan, [])
    layout = lay_out(pages.ptr, pages.length, tau, step, bucket_entries)
    delta_type, n_ranks = narrowest(int(pages.length.max())).name, pages.n_ranks
    ranked_dir = write_ranked(pages, work, step)
    paths = [build_bucket(ranked_dir, lo, hi, n_ranks, tau, delta_type, str(work))
             for lo, hi in layout.buckets]
    kind = np.dtype(plan.exact_type).name
    parts = []
    for t in reversed(layout.tasks):  # any order: every task stands alone
        bucket_lo = layout.buckets[t.bucket][0]
        parts.append(probe_bucket(paths[t.bucket], bucket_lo, ranked_dir, n_ranks, tau, kind, t.lo, t.hi))
        if seen is not None:
            seen.extend(join_buckets._held.values())
    release_buckets()
    return finish_join(plan, parts)


def _assert_same(got: PairResult, want: PairResult) -> None:
    assert np.array_equal(got.a, want.a) and np.array_equal(got.b, want.b)
    assert got.similarity.tobytes() == want.similarity.tobytes()  # to the last bit
    assert got.candidates == want.candidates


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(docs=st.lists(multiset, max_size=24),
       tau=st.one_of(st.floats(0.05, 1.0), st.sampled_from([0.15, 0.25, 0.4, 0.5, 1.0])),
       step=st.integers(1, 5), bucket_entries=st.integers(1, 60), with_checksums=st.booleans())
def test_any_buckets_and_ranges_find_the_local_pairs(docs, tau, step, bucket_entries, with_checksums,
                                                     tmp_path_factory):
    m = matrix_of(docs)
    groups = checksum_groups(docs) if with_checksums else None
    work = tmp_path_factory.mktemp("work")
    _assert_same(_bucketed(m, tau, groups, step, bucket_entries, work), find_pairs(m, tau, groups))


def test_pages_exactly_at_the_bound_are_met_across_a_bucket_edge(tmp_path: Path):
    """tau |x| = |y| exactly: pages of 25 signatures and pages of 10 of them (J = 10/25 = tau),
    the short ones in buckets of their own, each ending where the long ones begin. A bucket
    left out at the bound (an off-by-one in the layout) would lose their pairs."""
    tau = 0.4
    long_docs = [{s + 100 * k: 1 for s in range(25)} for k in range(6)]
    short_docs = [{s + 100 * k: 1 for s in range(j, j + 10)} for k in range(6) for j in (0, 5, 15)]
    docs = short_docs + long_docs  # 18 pages of length 10, then 6 of 25
    m = matrix_of(docs)
    want = find_pairs(m, tau)
    assert len(want) == 18 and set(want.similarity.tolist()) == {tau}  # every pair sits exactly at tau
    found = {(int(a), int(b)) for a, b in zip(want.a, want.b, strict=True)}
    assert found == set(brute_force_pairs(docs, tau))
    ptr, length = _ranked_lengths(m, tau)
    tried = 0
    for step in (1, 2, 3, 6, 9, 18):
        for entries in range(10, 400, 10):
            buckets = lay_out(ptr, length, tau, step, entries).buckets
            if (0, 24) in buckets or all(hi != 18 for _, hi in buckets):
                continue  # the last short row must end a bucket
            work = tmp_path / f"{step}-{entries}"
            work.mkdir()
            _assert_same(_bucketed(m, tau, None, step, entries, work), want)
            tried += 1
    assert tried >= 10


def _ranked_lengths(m: SignatureMatrix, tau: float) -> tuple[np.ndarray, np.ndarray]:
    _, pages = rank_join(m, tau)
    assert pages is not None
    return pages.ptr, pages.length


def test_a_tasks_index_holds_its_bucket_only_when_the_lengths_spread(tmp_path: Path):
    """Pages of 1 to 400 signatures: a range of long pages meets only the buckets within tau
    of its lengths, and each task holds one bucket (and its own range) of all the rows."""
    rng = np.random.default_rng(3)
    docs = []
    for size in rng.integers(1, 400, size=300):
        ids = rng.integers(0, 600, size=int(size))
        docs.append({int(i): int(c) for i, c in zip(*np.unique(ids, return_counts=True), strict=True)})
    m = matrix_of(docs)
    tau, step, entries = 0.5, 20, 8000
    ptr, length = _ranked_lengths(m, tau)
    layout = lay_out(ptr, length, tau, step, entries)
    assert len(layout.buckets) >= 4
    last_range = max(t.lo for t in layout.tasks)
    met = {t.bucket for t in layout.tasks if t.lo == last_range}
    assert 0 not in met and len(met) < len(layout.buckets)  # the shortest pages are beyond tau

    held: list[LoadedBucket] = []
    _assert_same(_bucketed(m, tau, None, step, entries, tmp_path, held), find_pairs(m, tau))
    rows = len(length)
    assert held and max(b.rows for b in held) < rows / 2
    assert max(b.entries for b in held) <= entries


def test_ranges_are_cut_to_a_quarter_of_a_bucket_and_a_long_row_has_a_range_of_its_own():
    length = np.array([2, 2, 2, 2, 2, 2, 2, 2, 50, 60], dtype=np.float64)
    ptr = np.concatenate([[0], np.cumsum(length.astype(np.int64))])
    layout = lay_out(ptr, length, 0.9, step=100, bucket_entries=16)
    ranges = sorted({(t.lo, t.hi) for t in layout.tasks})
    assert ranges == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 9), (9, 10)]
    assert layout.buckets == [(0, 8), (8, 9), (9, 10)]


def test_every_pair_is_found_by_exactly_one_task():
    rng = np.random.default_rng(5)
    length = np.sort(rng.integers(1, 200, size=500)).astype(np.float64)
    ptr = np.concatenate([[0], np.cumsum(length.astype(np.int64))])
    tau, step = 0.3, 7
    layout = lay_out(ptr, length, tau, step, bucket_entries=900)
    bucket_of = np.searchsorted([hi for _, hi in layout.buckets], np.arange(len(length)), side="right")
    for x in range(0, len(length), 13):
        tasks = [t for t in layout.tasks if t.lo <= x < t.hi]
        for y in range(x):
            if length[y] >= tau * length[x]:  # y may pair with x: one task holds them both
                assert sum(t.bucket == bucket_of[y] for t in tasks) == 1


@pytest.mark.slow
def test_the_client_builds_no_index_and_the_cluster_finds_the_local_pairs(cluster, tmp_path: Path,  # noqa: F811
                                                                          monkeypatch):
    rng = np.random.default_rng(11)
    docs = []
    for _ in range(600):
        base = int(rng.integers(0, 40))
        size = int(rng.integers(3, 120))
        docs.append({int(base * 50 + i): 1 + int(i % 3 == 0) for i in rng.integers(0, 2 * size, size=size)})
    docs += docs[:30]  # identical pages
    m = matrix_of(docs)
    groups = checksum_groups(docs)
    want = find_pairs(m, 0.3, groups)
    assert len(want) > 100

    def no_index_here(*args, **kwargs):
        raise AssertionError("the client built a prefix index")

    monkeypatch.setattr(allpairs, "build_index", no_index_here)  # the workers are other processes
    with dask_run(None, tmp_path / "work", cluster=cluster) as run:
        got = find_pairs_on(run.client, run.work_dir, m, 0.3, groups, bucket_entries=4000)
        left = sorted(p.name for p in run.work_dir.iterdir() if not p.name.startswith("pairs-"))
    _assert_same(got, want)
    assert left == ["run.lock"]  # the ranked rows and the buckets' indexes go with the join
