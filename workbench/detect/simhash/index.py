"""Every pair of 64-bit fingerprints within Hamming distance k (Manku, Jain & Das Sarma, WWW 2007).

The paper's permuted tables, generalised from its k = 3 example: split the 64 bits into
k + 2 blocks. Two fingerprints that differ in at most k bits differ in at most k blocks,
so (pigeonhole) at least 2 of the k + 2 blocks are identical in both. One table per
choice of 2 blocks, C(k + 2, 2) tables, permutes every fingerprint so those two blocks
lead and sorts; every pair within k then shares the leading bits of at least one table,
and only fingerprints that do are compared (by popcount of their xor). No pair within k
is ever missed: the index is exact, not an approximation. For k = 3 this is the paper's
layout: 5 blocks of 13, 13, 13, 13 and 12 bits, 10 tables with 25- or 26-bit keys.

Why two leading blocks rather than one of k + 1: the keys are twice as long, so far fewer
unrelated fingerprints share one (about n^2 / 2^26 per table for k = 3 instead of
n^2 / 2^16), at the price of more tables. Past :data:`MAX_TABLE_K` the keys get so short
(under 11 bits) and the tables so many (78 for k = 11) that comparing every pair is as
cheap and simpler; :func:`pairs_within` then does that (for any k up to 64), and also
whenever the tables' candidates would cost more than all pairs (many equal fingerprints).

Batch mode (:func:`pairs_within`) sorts each permuted table once with numpy and compares
within runs of equal keys in compiled loops (:mod:`workbench.detect.simhash.loops`);
:class:`SimhashStream` answers one new fingerprint at a time against all earlier ones,
with the same tables kept as hash maps.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join.matcher import PairResult
from workbench.detect.simhash.loops import all_pairs_within, runs_within

BITS = 64
Method = Literal["auto", "tables", "all"]
# Largest k answered with tables; above it every pair is compared (see the module text).
MAX_TABLE_K = 10
# What a table candidate costs in comparisons of the all-pairs loop, roughly, sorting
# included (100,000 random fingerprints, k = 10: 14 ns a candidate, 2.9 ns a comparison).
# Only the time depends on it: both ways are exact.
CANDIDATE_COST = 4


@dataclass(frozen=True, slots=True)
class Block:
    """``width`` bits of the fingerprint starting at bit ``shift`` (bit 0 the lowest)."""

    shift: int
    width: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass(frozen=True, slots=True)
class Table:
    """One permuted table: ``leading`` (two block indexes) moved to the top, the other
    blocks following in their order; its key is the top ``key_bits`` bits."""

    leading: tuple[int, int]
    order: tuple[Block, ...]  # the blocks from the most significant end of the permuted value

    @property
    def key_bits(self) -> int:
        return self.order[0].width + self.order[1].width

    def key_of(self, fp: int) -> int:
        """The leading bits of ``fp`` permuted (one Python int, for the stream)."""
        first, second = self.order[0], self.order[1]
        return (((fp >> first.shift) & first.mask) << second.width) | ((fp >> second.shift) & second.mask)


def blocks_of(k: int) -> list[Block]:
    """k + 2 blocks covering the 64 bits, most significant first; the first 64 % (k + 2)
    are one bit wider (k = 3: 13, 13, 13, 13, 12)."""
    count = k + 2
    widths = [BITS // count + (1 if i < BITS % count else 0) for i in range(count)]
    blocks: list[Block] = []
    top = BITS
    for width in widths:
        top -= width
        blocks.append(Block(top, width))
    return blocks


def tables_of(k: int) -> list[Table]:
    """The C(k + 2, 2) tables for distance k, in the order pairs are credited to them."""
    if not 0 <= k <= MAX_TABLE_K:
        raise ValueError(f"permuted tables are built for k in 0..{MAX_TABLE_K}, not {k}")
    blocks = blocks_of(k)
    tables = []
    for p, q in itertools.combinations(range(len(blocks)), 2):
        rest = tuple(b for i, b in enumerate(blocks) if i not in (p, q))
        tables.append(Table((p, q), (blocks[p], blocks[q], *rest)))
    return tables


def permute(fps: np.ndarray, table: Table) -> np.ndarray:
    """Every fingerprint (uint64) with the table's blocks moved into its order."""
    out = np.zeros(len(fps), dtype=np.uint64)
    top = BITS
    for block in table.order:
        top -= block.width
        bits = (fps >> np.uint64(block.shift)) & np.uint64(block.mask)
        out |= bits << np.uint64(top)
    return out


def pairs_within(fps: np.ndarray, k: int, progress: ProgressFn = no_progress,
                 method: Method = "auto") -> PairResult:
    """Every pair a < b (indexes into ``fps``, uint64) with Hamming distance <= k, with
    similarity 1 - distance / 64, sorted by (a, b). ``candidates`` counts the pairs whose
    fingerprints were compared.

    ``method`` "auto" uses the permuted tables when k <= MAX_TABLE_K and their
    candidates (estimated from the first table's sorted keys) cost less than comparing
    every pair, else compares every pair; "tables" and "all" force one way. All are
    exact, so the choice changes only the time.
    """
    if k < 0:
        raise ValueError(f"k is a number of bits, 0 or more, not {k}")
    if method not in ("auto", "tables", "all"):
        raise ValueError(f"method is 'auto', 'tables' or 'all', not {method!r}")
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    n = len(fps)
    k = min(k, BITS)
    if method == "tables" or (method == "auto" and k <= MAX_TABLE_K):
        tables = tables_of(k)
        # The first table's candidates, times the number of tables, estimate them all
        # (the tables are alike: two blocks each); counting every table would sort twice.
        estimate = table_candidates(fps, tables[:1]) * len(tables)
        if method == "tables" or estimate * CANDIDATE_COST < n * (n - 1) // 2:
            return _table_pairs(fps, k, tables, progress)
    a, b, distance = all_pairs_within(fps, k, progress)
    return _sorted(PairResult(a, b, 1.0 - distance.astype(np.float64) / BITS, n * (n - 1) // 2))


def table_candidates(fps: np.ndarray, tables: list[Table]) -> int:
    """How many candidate pairs the tables would compare (pairs sharing a key, per table)."""
    total = 0
    for table in tables:
        keys = np.sort(permute(fps, table) >> np.uint64(BITS - table.key_bits))
        _, sizes = _runs(keys)
        total += int((sizes * (sizes - 1) // 2).sum())
    return total


def _runs(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal keys starts, and its length."""
    if len(sorted_keys) == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    new_key = np.ones(len(sorted_keys), dtype=bool)
    new_key[1:] = sorted_keys[1:] != sorted_keys[:-1]
    starts = np.flatnonzero(new_key)
    return starts, np.diff(np.append(starts, len(sorted_keys)))


def _table_pairs(fps: np.ndarray, k: int, tables: list[Table], progress: ProgressFn) -> PairResult:
    """Every pair within k, each from the first table whose key it shares."""
    blocks = blocks_of(k)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    candidates = 0
    for number, table in enumerate(tables):

        def tick(number: int = number) -> None:
            progress("match", number, len(tables))

        tick()
        permuted = permute(fps, table)
        order = np.argsort(permuted, kind="stable")
        sorted_fps = fps[order]
        starts, sizes = _runs(permuted[order] >> np.uint64(BITS - table.key_bits))
        shared = sizes > 1
        starts, sizes = starts[shared], sizes[shared]
        candidates += int((sizes * (sizes - 1) // 2).sum())
        # A pair is credited to the first table (in tables_of order) whose two blocks are
        # both zero in its xor: here, when no other block before the second leading one is.
        p, q = table.leading
        earlier = [(blocks[b].shift, blocks[b].mask) for b in range(q) if b != p]
        ids = order.astype(np.int64)
        parts.append(runs_within(sorted_fps, ids, starts, starts + sizes, k, earlier, tick))
    progress("match", len(tables), len(tables))
    return _sorted(_joined(parts, candidates))


def _joined(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], candidates: int) -> PairResult:
    if not parts:
        return PairResult(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), candidates)
    distance = np.concatenate([p[2] for p in parts]).astype(np.float64)
    return PairResult(np.concatenate([p[0] for p in parts]).astype(np.int64),
                      np.concatenate([p[1] for p in parts]).astype(np.int64),
                      1.0 - distance / BITS, candidates)


def _sorted(result: PairResult) -> PairResult:
    order = np.lexsort((result.b, result.a))
    return PairResult(result.a[order], result.b[order], result.similarity[order], result.candidates)


class SimhashStream:
    """Fingerprints arriving one at a time, each answered with the earlier ones within k.

    The paper's online mode. Its tables are sorted so a key's run is found by binary
    search; here each table is a hash map from key to the ids with that key, which finds
    the same run in constant time and takes inserts without re-sorting. For k above
    :data:`MAX_TABLE_K` every earlier fingerprint is compared, as in batch mode.
    """

    def __init__(self, k: int) -> None:
        if not 0 <= k <= BITS:
            raise ValueError(f"k is a number of bits from 0 to {BITS}, not {k}")
        self.k = k
        self._tables = tables_of(k) if k <= MAX_TABLE_K else []
        self._buckets: list[dict[int, list[int]]] = [{} for _ in self._tables]
        self._fps = np.empty(1024, dtype=np.uint64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, fp: int | np.integer) -> list[tuple[int, int]]:
        """Add ``fp`` (id = how many were added before it) and return every earlier
        (id, Hamming distance) within k, ids ascending."""
        value = int(fp)
        if not 0 <= value < 1 << BITS:
            raise ValueError(f"a fingerprint is an unsigned 64-bit number, not {value}")
        new_id = self._count
        if self._tables:
            seen: set[int] = set()
            for table, bucket in zip(self._tables, self._buckets, strict=True):
                ids = bucket.setdefault(table.key_of(value), [])
                seen.update(ids)
                ids.append(new_id)
            candidates = np.fromiter(sorted(seen), dtype=np.int64, count=len(seen))
        else:
            candidates = np.arange(new_id, dtype=np.int64)
        distance = np.bitwise_count(self._fps[candidates] ^ np.uint64(value))
        near = distance <= self.k
        self._store(value)
        return [(int(i), int(d)) for i, d in zip(candidates[near], distance[near], strict=True)]

    def _store(self, value: int) -> None:
        if self._count == len(self._fps):
            self._fps = np.concatenate([self._fps, np.empty(len(self._fps), dtype=np.uint64)])
        self._fps[self._count] = value
        self._count += 1
