"""Exact all-pairs multiset Jaccard >= tau: partitions plus a pruned inverted index.

This is Algorithm 1 of SIGIR'08 evaluated a whole batch of pages at a time with numpy
instead of one page and one list entry at a time:

* pages fall into the tau-only length partitions (§4.2); a page is matched against its
  own partition and, when its length is within reach of it, the next one;
* per partition and signature there is an inverted list sorted by descending length;
* a page visits its signatures in ascending document frequency within its partition,
  with ``delta1`` the total frequency of the signatures already finished;
* in a list, a page d' of length L' seen for the first time shares none of those
  finished signatures, so  min(f_d, f_d') summed <= min(L - delta1, L').  With
  J >= tau  <=>  I >= tau (L + L') / (1 + tau)  this leaves exactly the lengths
  tau L <= L' <= (L - (1 + tau) delta1) / tau, one contiguous run of the list, which
  we cut out with two binary searches (the paper's lines 15-18);
* when that run is empty for every L' (delta1 > (1 - tau) L) the page is done (line 25).

The bounds above are the sound forms of the paper's conditions. Each pair is looked at
from one side only (the lower partition, or the lower page id within a partition), and
a bound like the paper's line 17 (stop a list when delta1 + delta2 > (1 - tau) L) would
then lose true pairs: d = {s1: 3, s2: 7}, d' = {s2: 7}, tau = 0.5 has J = 0.7 but is cut
by it. Exact duplicates (same checksum) get similarity 1.0 without comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.partitions import partition_of, partition_starts

_EPS = 1e-9
_CANDIDATE_CHUNK = 2_000_000  # candidate postings expanded at once (memory bound)
_VERIFY_CHUNK = 2_000_000  # signature entries compared at once


@dataclass(slots=True)
class SignatureMatrix:
    """Pages as sparse multisets (CSR): page i owns entries ptr[i]:ptr[i+1].

    ``sig`` holds dense signature ids, ascending within each page; ``cnt`` their counts.
    ``unindexed[i]`` counts page i's signatures that are part of the page but left out of
    the index because no other page has them (they can never be shared): they add to the
    page's length, so similarity is measured against the whole page, and cost nothing in
    the inverted lists.
    """

    ptr: np.ndarray  # int64, n + 1
    sig: np.ndarray  # int64
    cnt: np.ndarray  # int64
    raw_ids: np.ndarray | None = None  # dense id -> the signature's 64-bit id, when known
    unindexed: np.ndarray | None = None  # int64 per page, or None for all zero

    @property
    def n(self) -> int:
        return len(self.ptr) - 1

    @property
    def n_signatures(self) -> int:
        return int(self.sig.max()) + 1 if len(self.sig) else 0

    def lengths(self) -> np.ndarray:
        """|d| of every page: the total of its signature counts, indexed or not."""
        sums = np.bincount(self.row_of_entries(), weights=self.cnt, minlength=self.n).astype(np.int64)
        return sums if self.unindexed is None else sums + self.unindexed

    def unindexed_counts(self) -> np.ndarray:
        return np.zeros(self.n, np.int64) if self.unindexed is None else self.unindexed

    def row_of_entries(self) -> np.ndarray:
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ptr))

    @classmethod
    def from_vectors(cls, vectors: list[tuple[np.ndarray, np.ndarray]]) -> SignatureMatrix:
        """From per-page (signature ids, counts), ids in any 64-bit space.

        The list is emptied as it is read (its arrays are let go early to keep the
        peak memory of a 100,000-page run down).
        """
        sizes = np.fromiter((len(v[0]) for v in vectors), dtype=np.int64, count=len(vectors))
        ptr = np.zeros(len(vectors) + 1, dtype=np.int64)
        np.cumsum(sizes, out=ptr[1:])
        total = int(ptr[-1])
        raw = np.empty(total, dtype=np.int64)
        cnt = np.empty(total, dtype=np.int64)
        for i in range(len(vectors)):
            ids, counts = vectors[i]
            raw[ptr[i] : ptr[i + 1]] = ids
            cnt[ptr[i] : ptr[i + 1]] = counts
            vectors[i] = None  # type: ignore[call-overload]
        vectors.clear()
        if total == 0:
            return cls(ptr, raw, cnt)
        uniq, dense = np.unique(raw, return_inverse=True)
        del raw
        matrix = cls(ptr, dense.astype(np.int64, copy=False), cnt, uniq)
        # Ids sorted and unique within each page stay so under the order-keeping dense
        # map; only when they are not is the (memory-hungry) full sort needed.
        rows = matrix.row_of_entries()
        same_row = rows[1:] == rows[:-1]
        if np.all(matrix.sig[1:][same_row] > matrix.sig[:-1][same_row]):
            return matrix
        return matrix.sorted_rows()

    def sorted_rows(self) -> SignatureMatrix:
        """The same matrix with ids ascending inside every page (merging repeats)."""
        rows = self.row_of_entries()
        order = np.lexsort((self.sig, rows))
        rows, sig, cnt = rows[order], self.sig[order], self.cnt[order]
        if len(sig) > 1:
            new = np.ones(len(sig), dtype=bool)
            new[1:] = (rows[1:] != rows[:-1]) | (sig[1:] != sig[:-1])
            if not new.all():
                starts = np.flatnonzero(new)
                cnt = np.add.reduceat(cnt, starts)
                rows, sig = rows[starts], sig[starts]
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n), out=ptr[1:])
        return SignatureMatrix(ptr, sig, cnt, self.raw_ids, self.unindexed)

    def select_entries(self, keep: np.ndarray) -> SignatureMatrix:
        """Keep only the entries where ``keep`` is true (e.g. after the IDF filter); the
        others leave the page altogether."""
        rows = self.row_of_entries()[keep]
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n), out=ptr[1:])
        return SignatureMatrix(ptr, self.sig[keep], self.cnt[keep], self.raw_ids, self.unindexed)

    def index_only(self, indexed: np.ndarray) -> SignatureMatrix:
        """Keep the entries where ``indexed`` is true in the index; the others stay in the
        pages' lengths (``unindexed``) but are never listed or compared."""
        rows = self.row_of_entries()
        left_out = np.bincount(rows[~indexed], weights=self.cnt[~indexed], minlength=self.n)
        m = self.select_entries(indexed)
        m.unindexed = self.unindexed_counts() + left_out.astype(np.int64)
        return m

    def select_rows(self, keep_rows: np.ndarray) -> SignatureMatrix:
        """Empty the rows where ``keep_rows`` is false (pages set aside), lengths included."""
        m = self.select_entries(keep_rows[self.row_of_entries()])
        if m.unindexed is not None:
            m.unindexed = np.where(keep_rows, m.unindexed, 0)
        return m


@dataclass(slots=True)
class PairResult:
    a: np.ndarray  # int64, a < b
    b: np.ndarray
    similarity: np.ndarray  # float64
    candidates: int = 0  # pairs whose multisets were compared
    partitions: int = 0

    def __len__(self) -> int:
        return len(self.a)


def _expand_ranges(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Concatenate arange(start[k], start[k] + count[k]) for every k."""
    total = int(count.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    offsets = np.repeat(np.cumsum(count) - count, count)
    return np.repeat(start, count) + (np.arange(total, dtype=np.int64) - offsets)


def intersections(m: SignatureMatrix, keys: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """sum of min(f_i, f_j) for every pair, looking up the shorter row in the longer."""
    width = np.diff(m.ptr)
    swap = width[i] > width[j]
    a = np.where(swap, j, i)
    b = np.where(swap, i, j)
    out = np.zeros(len(i), dtype=np.float64)
    wa = width[a]
    cw = np.cumsum(wa)
    lo = 0
    while lo < len(a):
        base = cw[lo - 1] if lo else 0
        hi = max(int(np.searchsorted(cw, base + _VERIFY_CHUNK, side="right")), lo + 1)
        sa, sb, sw = a[lo:hi], b[lo:hi], wa[lo:hi]
        ent = _expand_ranges(m.ptr[sa], sw)
        pair = np.repeat(np.arange(hi - lo, dtype=np.int64), sw)
        probe = sb[pair] * np.int64(m.n_signatures) + m.sig[ent]
        pos = np.minimum(np.searchsorted(keys, probe), len(keys) - 1)
        shared = np.where(keys[pos] == probe, np.minimum(m.cnt[ent], m.cnt[pos]), 0)
        out[lo:hi] = np.bincount(pair, weights=shared, minlength=hi - lo)
        lo = hi
    return out


def find_pairs(
    m: SignatureMatrix,
    tau: float,
    duplicate_group: np.ndarray | None = None,
    progress: ProgressFn = no_progress,
) -> PairResult:
    """Every pair of pages with multiset Jaccard >= tau, with its similarity.

    ``duplicate_group[i]`` (optional) names pages with identical content: pages in one
    group must have identical signature multisets; only the first is indexed.
    """
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"tau must be in (0, 1], not {tau}")
    n = m.n
    lengths = m.lengths().astype(np.int64)
    rep = np.arange(n, dtype=np.int64)
    if duplicate_group is not None and n:
        _, first, inverse = np.unique(duplicate_group, return_index=True, return_inverse=True)
        rep = first[inverse].astype(np.int64)
    active = (lengths > 0) & (rep == np.arange(n))
    empty = PairResult(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    if not active.any():
        return _with_duplicates(empty, rep, lengths)

    # Intermediate arrays are deleted as soon as they are used: on 100,000 pages each
    # is tens of MB, and together they set the run's peak memory.
    rows = m.row_of_entries()
    keep = active[rows]
    e_doc, e_sig, e_cnt = rows[keep], m.sig[keep], m.cnt[keep]
    n_sig = np.int64(m.n_signatures)
    keys = rows * n_sig + m.sig  # ascending: rows, then ids within a row (for verifying)
    del rows, keep
    max_len = int(lengths.max())
    starts = partition_starts(tau, max_len)
    part = partition_of(np.maximum(lengths, 1), starts)

    # Inverted lists: one per (partition, signature), entries by descending length.
    list_key = part[e_doc] * n_sig + e_sig
    lists, e_list = np.unique(list_key, return_inverse=True)
    df = np.bincount(e_list)
    post_order = np.lexsort((e_doc, -lengths[e_doc], e_list))
    post_doc = e_doc[post_order]
    shift = np.int64(1) << np.int64(32)
    post_key = e_list[post_order] * shift + (max_len - lengths[post_doc])
    del list_key, post_order

    # Each page's signatures by ascending df in its partition; delta1 before each list.
    visit = np.lexsort((e_sig, df[e_list], e_doc))
    v_doc, v_sig, v_cnt, v_list = e_doc[visit], e_sig[visit], e_cnt[visit], e_list[visit]
    cum = np.cumsum(v_cnt)
    first_of_doc = np.searchsorted(v_doc, v_doc, side="left")
    # Signatures no other page has come first in ascending df order: they are finished
    # before any list is read, so delta1 starts at their total.
    delta1 = cum - v_cnt - (cum[first_of_doc] - v_cnt[first_of_doc]) + m.unindexed_counts()[v_doc]
    L = lengths[v_doc].astype(np.float64)
    lo = np.ceil(tau * L - _EPS * L)
    hi = np.floor((L - (1.0 + tau) * delta1) / tau + _EPS * L)
    useful = hi >= lo
    v_doc, v_sig, v_list, lo, hi = v_doc[useful], v_sig[useful], v_list[useful], lo[useful], hi[useful]
    del visit, v_cnt, cum, first_of_doc, delta1, L, useful, e_doc, e_sig, e_cnt, e_list, df

    # Queries: own partition always; next partition when a page there can be close enough.
    nxt = part[v_doc] + 1
    can_reach = nxt < len(starts)
    reach_len = np.where(can_reach, starts[np.minimum(nxt, len(starts) - 1)], 0)
    can_reach &= lengths[v_doc] >= tau * reach_len - _EPS * reach_len
    next_key = nxt * n_sig + v_sig
    next_pos = np.searchsorted(lists, next_key)
    found = can_reach & (next_pos < len(lists))
    found[found] = lists[next_pos[found]] == next_key[found]
    q_doc = np.concatenate([v_doc, v_doc[found]])
    q_list = np.concatenate([v_list, next_pos[found]])
    q_own = np.concatenate([np.ones(len(v_doc), bool), np.zeros(int(found.sum()), bool)])
    q_lo = np.concatenate([lo, lo[found]])
    q_hi = np.concatenate([hi, hi[found]])
    order = np.argsort(q_doc, kind="stable")
    q_doc, q_list, q_own, q_lo, q_hi = (x[order] for x in (q_doc, q_list, q_own, q_lo, q_hi))
    del order, v_doc, v_sig, v_list, lo, hi, nxt, can_reach, reach_len, next_key, next_pos, found

    if not len(q_doc):  # nothing indexed can be shared (every signature on one page)
        return _with_duplicates(empty, rep, lengths)
    q_hi = np.minimum(q_hi, max_len).astype(np.int64)
    q_lo = np.maximum(q_lo, 0).astype(np.int64)
    begin = np.searchsorted(post_key, q_list * shift + (max_len - q_hi), side="left")
    end = np.searchsorted(post_key, q_list * shift + (max_len - q_lo), side="right")
    count = np.maximum(end - begin, 0)
    del q_list, q_lo, q_hi, end

    # Work through the queries in chunks that end at page boundaries.
    doc_end = np.flatnonzero(np.append(q_doc[1:] != q_doc[:-1], True)) + 1
    cum_per_doc = np.cumsum(count)[doc_end - 1]
    out_a, out_b, out_s = [], [], []
    candidates = 0
    k = 0
    while k < len(doc_end):
        q0 = int(doc_end[k - 1]) if k else 0
        base = cum_per_doc[k - 1] if k else 0
        k1 = max(int(np.searchsorted(cum_per_doc, base + _CANDIDATE_CHUNK, side="right")), k + 1)
        q1 = int(doc_end[k1 - 1])
        idx = _expand_ranges(begin[q0:q1], count[q0:q1])
        ci = np.repeat(q_doc[q0:q1], count[q0:q1])
        own = np.repeat(q_own[q0:q1], count[q0:q1])
        cj = post_doc[idx]
        ok = (cj != ci) & (~own | (cj > ci))
        pair_key = np.unique(ci[ok] * np.int64(n) + cj[ok])
        pi, pj = pair_key // n, pair_key % n
        candidates += len(pi)
        if len(pi):
            inter = intersections(m, keys, pi, pj)
            sim = inter / (lengths[pi] + lengths[pj] - inter)
            hit = sim >= tau
            out_a.append(np.minimum(pi[hit], pj[hit]))
            out_b.append(np.maximum(pi[hit], pj[hit]))
            out_s.append(sim[hit])
        progress("match", q1, len(q_doc))
        k = k1

    if out_a:
        result = PairResult(np.concatenate(out_a), np.concatenate(out_b), np.concatenate(out_s))
    else:
        result = empty
    result.candidates = candidates
    result.partitions = len(starts)
    return _with_duplicates(result, rep, lengths)


def _with_duplicates(result: PairResult, rep: np.ndarray, lengths: np.ndarray) -> PairResult:
    """Give every exact duplicate the pairs of its representative, and 1.0 among each other."""
    n = len(rep)
    is_copy = rep != np.arange(n)
    if not is_copy.any():
        return _sorted(result)
    members: dict[int, list[int]] = {}
    for i in np.flatnonzero(lengths > 0):
        members.setdefault(int(rep[i]), []).append(int(i))
    a, b, s = list(result.a), list(result.b), list(result.similarity)
    extra_a: list[int] = []
    extra_b: list[int] = []
    extra_s: list[float] = []
    for group in members.values():
        for x in range(len(group)):
            for y in range(x + 1, len(group)):
                extra_a.append(group[x])
                extra_b.append(group[y])
                extra_s.append(1.0)
    for x, y, sim in zip(a, b, s, strict=True):
        gx, gy = members.get(int(x), [int(x)]), members.get(int(y), [int(y)])
        if len(gx) == 1 and len(gy) == 1:
            continue
        for u in gx:
            for v in gy:
                if (u, v) != (x, y):
                    extra_a.append(min(u, v))
                    extra_b.append(max(u, v))
                    extra_s.append(sim)
    merged = PairResult(
        np.concatenate([result.a, np.asarray(extra_a, dtype=np.int64)]),
        np.concatenate([result.b, np.asarray(extra_b, dtype=np.int64)]),
        np.concatenate([result.similarity, np.asarray(extra_s, dtype=np.float64)]),
        result.candidates,
        result.partitions,
    )
    return _sorted(merged)


def _sorted(result: PairResult) -> PairResult:
    order = np.lexsort((result.b, result.a))
    return PairResult(
        result.a[order], result.b[order], result.similarity[order], result.candidates,
        result.partitions,
    )
