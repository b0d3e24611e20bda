"""The exact join cut into length buckets: which rows a task indexes and which it probes.

The rows (pages) are in ascending length, and a page x only meets rows from
``first(x)`` (the first row of length >= tau |x|) up to itself: SpotSigs' own length
partitions. The rows are cut into *probe ranges* (``step`` rows each: progress and cancel
points) and the ranges are gathered into *buckets* of at most ``bucket_entries`` ranked
entries (so a bucket's index stays bounded whatever the crawl's size). A task pairs one
bucket with one probe range inside the length bound: the range itself lies in the bucket
(then the pairs among the bucket's rows before each page are found) or after it (then the
pairs with the bucket's rows). A range meets the buckets from the one holding
``first(lo)`` up to its own, so every pair (y, x), y < x, is found by exactly one task:
the one of x's range and y's bucket.

A bucket's index is built once, by a task of its own (:func:`build_bucket`), over the
bucket's rows only; ``allpairs.probe`` runs on it unchanged. Its rows are the bucket's
rows followed by the probed range's (when the range lies after the bucket): the kernel's
length filter (a binary search over the rows' lengths before x) and its lists (rows
before x) then see exactly the rows they would see in the whole index, so a pair's
candidates, score and similarity are computed from the same numbers, in the same order:
the result is the local join's to the last digit.

Ranks are renumbered inside a bucket so that its inverted lists are sized by the ranks
its rows hold, not by every signature of the crawl: a rank the bucket holds becomes
2 p + 1 (p: the ranks it holds below it), any other rank 2 p. The order of ranks is kept
(ranks the bucket does not hold may share a number, but never with one it holds), and
probing only compares ranks for order, looks lists up by the probing page's prefix ranks
and merges a candidate's row with the page's, where only ranks both hold can be equal.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.cluster.records.shards import new_shard
from workbench.detect.join import allpairs
from workbench.detect.join.matcher import (
    InvertedLists,
    Probed,
    ProbeIndex,
    RankedPages,
    RankedRows,
    index_rows,
    probe_facts,
)

# Ranked entries a bucket holds at most: its index (the ranked rows, about 5 bytes an
# entry, and the lists of its prefixes, about 4 bytes an entry at tau 0.4) stays near
# 150 MB whatever the crawl's size (16.8 million entries: about 200,000 small pages).
BUCKET_ENTRIES = 1 << 24

# The bound's margin: a range meets the buckets from the one holding its first row of
# length >= (tau - _MARGIN) |lo|, a little further back than allpairs.probe's own bound, so
# that rounding never leaves out a bucket; the kernel's bound then decides exactly.
_MARGIN = 1e-6

# Entries renumbered at once when a bucket is built: the temporaries stay small.
_CHUNK = 1 << 20

_RANKED = ("ptr", "rank", "cnt", "length", "unindexed")  # the ranked rows' files, as RankedRows


@dataclass(frozen=True, slots=True)
class JoinTask:
    """Probe rows lo:hi against bucket ``bucket``'s rows."""

    bucket: int
    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class JoinLayout:
    buckets: list[tuple[int, int]]  # each bucket's rows, lo:hi (whole probe ranges)
    tasks: list[JoinTask]  # bucket by bucket, ranges in row order


def lay_out(ptr: np.ndarray, length: np.ndarray, tau: float, step: int,
            bucket_entries: int = BUCKET_ENTRIES) -> JoinLayout:
    """The buckets and tasks of a join over ranked rows (``ptr``: where each row's entries
    start; ``length``: each row's length, ascending). A range is ``step`` rows, or fewer
    when they would hold more than a quarter of a bucket's entries (a bucket then holds
    several ranges however large the crawl); a bucket holds at least one range."""
    ranges = _ranges(ptr, step, max(1, bucket_entries // 4))
    buckets: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if buckets and ptr[hi] - ptr[buckets[-1][0]] <= bucket_entries:
            buckets[-1] = (buckets[-1][0], hi)
        else:
            buckets.append((lo, hi))
    bucket_ends = np.array([hi for _, hi in buckets], dtype=np.int64)
    by_bucket: list[list[JoinTask]] = [[] for _ in buckets]
    for lo, hi in ranges:
        first = int(np.searchsorted(length, (tau - _MARGIN) * length[lo]))
        own = int(np.searchsorted(bucket_ends, lo, side="right"))
        for b in range(int(np.searchsorted(bucket_ends, first, side="right")), own + 1):
            by_bucket[b].append(JoinTask(b, lo, hi))
    return JoinLayout(buckets, [t for tasks in by_bucket for t in tasks])


def _ranges(ptr: np.ndarray, step: int, most_entries: int) -> list[tuple[int, int]]:
    """Rows cut into ranges of ``step`` rows, each cut shorter where its rows hold more
    than ``most_entries`` entries (a range holds at least one row)."""
    rows, ranges, lo = len(ptr) - 1, [], 0
    while lo < rows:
        fits = int(np.searchsorted(ptr, ptr[lo] + most_entries, side="right")) - 1  # rows lo:fits fit
        hi = max(lo + 1, min(lo + step, rows, fits))
        ranges.append((lo, hi))
        lo = hi
    return ranges


def write_ranked(pages: RankedPages, work_dir: Path | str, rows_at_once: int) -> str:
    """The pages' ranked rows as .npy files in a new folder of the work directory (its
    path), for the tasks to map into memory and read their rows from. Ranked and written
    ``rows_at_once`` rows at a time: the client never holds them all."""
    folder = new_shard(work_dir, "ranked").with_suffix("")
    part = folder.with_suffix(".part")
    part.mkdir()
    np.save(part / "ptr.npy", pages.ptr)
    np.save(part / "length.npy", pages.length)
    np.save(part / "unindexed.npy", pages.unindexed)
    entries, rows = int(pages.ptr[-1]), len(pages.pages)
    with open(part / "rank.npy", "wb") as ranks, open(part / "cnt.npy", "wb") as counts:
        for fh, kind in ((ranks, np.dtype(np.int32)), (counts, pages.cnt_type)):
            np.lib.format.write_array_header_1_0(fh, {"descr": np.lib.format.dtype_to_descr(kind),
                                                      "fortran_order": False, "shape": (entries,)})
        for lo in range(0, rows, rows_at_once):
            rank, cnt = pages.ranked(lo, min(lo + rows_at_once, rows))
            rank.tofile(ranks)
            cnt.tofile(counts)
    os.replace(part, folder)  # whole or absent, as the shards
    return str(folder)


def read_ranked(folder: str) -> RankedRows:
    """The ranked rows :func:`write_ranked` wrote, mapped into memory (read only)."""
    ptr, rank, cnt, length, unindexed = (np.load(Path(folder) / f"{n}.npy", mmap_mode="r") for n in _RANKED)
    return ptr, rank, cnt, length, unindexed


def rank_table(members: np.ndarray, n_ranks: int) -> np.ndarray:
    """Every rank's number inside a bucket holding the ranks ``members`` (ascending):
    2 p + 1 for a member, 2 p for any other, p being the members below it."""
    held = np.zeros(n_ranks, dtype=np.int32)
    held[members] = 1
    table = np.cumsum(held, dtype=np.int32)  # members up to and including each rank
    table *= 2
    table -= held
    return table


def build_bucket(ranked_dir: str, lo: int, hi: int, n_ranks: int, tau: float, delta_type: str,
                 work_dir: str) -> str:
    """Task: the prefix index of rows lo:hi, written into the work directory (its path)."""
    files = read_ranked(ranked_dir)
    start, end = int(files[0][lo]), int(files[0][hi])
    rows: RankedRows = (np.asarray(files[0][lo : hi + 1]) - start, np.array(files[1][start:end]),
                        np.array(files[2][start:end]), np.array(files[3][lo:hi]), np.array(files[4][lo:hi]))
    del files  # unmapped: the pages of the files read leave this process before the lists come
    local = rows[1]
    held = np.zeros(n_ranks, dtype=bool)
    held[local] = True
    members = np.flatnonzero(held).astype(np.int32)
    del held
    table = rank_table(members, n_ranks)
    for k in range(0, len(local), _CHUNK):  # renumbered in place, a chunk at a time
        local[k : k + _CHUNK] = table[local[k : k + _CHUNK]]
    del table
    every_row = np.arange(hi - lo, dtype=np.int64)
    ranks = 2 * len(members) + 1  # the bucket's numbers for them (rank_table)
    index, prefix_last, prefix_rest = index_rows(every_row, rows, ranks, tau, np.dtype(delta_type))
    path = new_shard(work_dir, "bucket").with_suffix(".npz")
    part = path.with_suffix(".part")
    with open(part, "wb") as fh:  # a file object: np.savez adds no suffix of its own
        np.savez(fh, members, *rows, *index, prefix_last, prefix_rest)
    os.replace(part, path)
    return str(path)


class LoadedBucket:
    """A bucket's index in a worker, with room after its rows for a probed range's: the
    tasks of one bucket follow each other, so a worker loads it once for all of them."""

    def __init__(self, path: str, lo: int, n_ranks: int, exact_type: str) -> None:
        with np.load(path) as npz:
            a = [npz[f"arr_{k}"] for k in range(len(npz.files))]
        self.path, self.lo, self.n_ranks = path, lo, n_ranks
        self.members = a[0]
        self.ptr, self.rank, self.cnt, length, self.unindexed = a[1:6]
        self.lists: InvertedLists = (a[6], a[7], a[8], a[9])
        self.facts = probe_facts(length, a[10], a[11])
        self.lengths = length.astype(exact_type)
        self.rows, self.entries = len(length), int(self.ptr[-1])
        self.score = np.zeros(self.rows, dtype=exact_type)
        self._table: np.ndarray | None = None

    def probe(self, ranked: RankedRows, tau: float, lo: int, hi: int) -> Probed:
        """Pairs of rows lo:hi with this bucket's rows before them, as rows of the whole join."""
        if lo < self.lo + self.rows:  # the range is the bucket's own
            a, b, s, verified = allpairs.probe(lo - self.lo, hi - self.lo, *self._index(self.rows, tau),
                                               self.score[: self.rows])
            return a + self.lo, b + self.lo, s, verified
        total = self._append(ranked, lo, hi)
        a, b, s, verified = allpairs.probe(self.rows, total, *self._index(total, tau), self.score[:total])
        # a is the bucket's row (the shorter page), b the range's.
        return a + self.lo, b - self.rows + lo, s, verified

    def _index(self, rows: int, tau: float) -> ProbeIndex:
        """allpairs.probe's index over the first ``rows`` rows held."""
        entries = int(self.ptr[rows])
        return (self.ptr[: rows + 1], self.rank[:entries], self.cnt[:entries], self.unindexed[:rows], tau,
                *self.lists, self.facts[:rows], self.lengths[:rows])

    def _append(self, ranked: RankedRows, lo: int, hi: int) -> int:
        """Rows lo:hi after the bucket's, their ranks renumbered as the bucket's; the rows
        now held."""
        ptr, rank, cnt, length, unindexed = ranked
        start, end = int(ptr[lo]), int(ptr[hi])
        self._make_room(hi - lo, end - start)
        if self._table is None:
            self._table = rank_table(self.members, self.n_ranks)
        n, e = self.rows, self.entries
        total = n + hi - lo
        self.ptr[n + 1 : total + 1] = np.asarray(ptr[lo + 1 : hi + 1]) - start + e
        self.rank[e : e + end - start] = self._table[rank[start:end]]
        self.cnt[e : e + end - start] = cnt[start:end]
        self.unindexed[n:total] = unindexed[lo:hi]
        # Only the bucket's rows are ever candidates: the range's need only their lengths.
        self.facts[n:total, 0] = length[lo:hi]
        self.facts[n:total, 1:] = -1.0
        self.lengths[n:total] = length[lo:hi]
        return total

    def _make_room(self, rows: int, entries: int) -> None:
        """Arrays long enough for this many rows and entries after the bucket's."""
        if len(self.unindexed) >= self.rows + rows and len(self.rank) >= self.entries + entries:
            return
        rows, entries = self.rows + rows * 5 // 4, self.entries + entries * 5 // 4  # room for the next ones

        def grown(array: np.ndarray, size: int, kept: int) -> np.ndarray:
            out = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
            out[:kept] = array[:kept]
            return out

        self.ptr = grown(self.ptr, rows + 1, self.rows + 1)
        self.rank = grown(self.rank, entries, self.entries)
        self.cnt = grown(self.cnt, entries, self.entries)
        self.unindexed = grown(self.unindexed, rows, self.rows)
        self.facts = grown(self.facts, rows, self.rows)
        self.lengths = grown(self.lengths, rows, self.rows)
        self.score = np.zeros(rows, dtype=self.score.dtype)


# The bucket each worker thread holds, by thread (the tasks of one bucket follow each
# other): a dict, not a thread-local, so that release_buckets can let them all go.
_held: dict[int, LoadedBucket] = {}
_lock = threading.Lock()


def probe_bucket(bucket_path: str, bucket_lo: int, ranked_dir: str, n_ranks: int, tau: float,
                 exact_type: str, lo: int, hi: int) -> Probed:
    """Rows lo:hi probed against the bucket at ``bucket_path`` (rows from ``bucket_lo``),
    loaded once per worker thread."""
    me = threading.get_ident()
    with _lock:
        bucket = _held.get(me)
        if bucket is not None and bucket.path != bucket_path:
            del _held[me]  # the last bucket goes before this one comes
            bucket = None
    if bucket is None:
        bucket = LoadedBucket(bucket_path, bucket_lo, n_ranks, exact_type)
        with _lock:
            _held[me] = bucket
    return bucket.probe(read_ranked(ranked_dir), tau, lo, hi)


def release_buckets() -> None:
    """Let go of the buckets this process holds (once a join is over)."""
    with _lock:
        _held.clear()
