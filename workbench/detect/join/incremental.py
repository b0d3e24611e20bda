"""Matching a crawl that grew: the pairs new pages bring, without matching the old again.

The SpotSigs tech report's incremental match (Figure 8) probes each new page against an
index of the pages before it. Here that is made exact with the prefix-filtered join of
:mod:`workbench.detect.join.matcher`: every pair a < b with multiset Jaccard >= tau where b is
new, with the similarity a full run gives it. Old pages are only probed *into*, never
compared with one another.

The prefix filter is sound only when both pages of a pair cut their prefixes under one
global order of signatures. An index kept from an earlier run was cut under the order of
the older, smaller corpus (signatures ranked by document frequency then), so probing it
with prefixes cut under the new order can miss pairs. So the signatures are ranked anew
over the whole matrix and the index of every page's prefix is built again under that
order (one linear pass; building and probing take the time, and probing is done for new
pages only). The pages' lengths are symmetric in a pair, so a new page looks at partners
both shorter and longer than itself; a pair of two new pages is found once, by the one
later in the probing order, as in a full run.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from workbench.core.distinct import distinct
from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join.allpairs import _EPS, _overlap, least_overlap, with_room
from workbench.detect.join.matcher import _THREADS, PairResult, SignatureMatrix, prefix_index

__all__ = ["IncrementalIndex", "find_new_pairs", "find_pairs_touching"]


def find_new_pairs(
    m: SignatureMatrix,
    first_new: int,
    tau: float,
    progress: ProgressFn = no_progress,
) -> PairResult:
    """Every pair a < b of pages of ``m`` with multiset Jaccard >= tau and b >= first_new
    (rows ``first_new`` on are new), with its similarity, sorted by (a, b).

    Together with a full run on rows 0..first_new-1 these are exactly the pairs of a full
    run on all rows (:func:`workbench.detect.join.matcher.find_pairs`), with the same
    similarities. ``candidates`` counts the pairs verified, all with a new page.
    """
    n = m.n
    if not 0 <= first_new <= n:
        raise ValueError(f"the first new page must be a row of the matrix (0..{n}), not {first_new}")
    return find_pairs_touching(m, np.arange(n) >= first_new, tau, progress)


def find_pairs_touching(
    m: SignatureMatrix,
    new: np.ndarray,
    tau: float,
    progress: ProgressFn = no_progress,
    active: np.ndarray | None = None,
) -> PairResult:
    """Every pair a < b of active pages of ``m`` with multiset Jaccard >= tau of which at
    least one page is ``new`` (a bool per page, anywhere in the matrix), with its
    similarity, sorted by (a, b). ``active``: the pages that take part (default: every
    page with a signature; a page without one is never active).

    Together with the pairs of the active pages that are not new, these are exactly a
    full run's pairs over the active pages, with the same similarities: the pairs of a
    crawl that grew are those of its new pages and of the old pages whose signatures the
    filters changed, and the old pages' other pairs stay what they were
    (workbench.usecases.grown_pairs).
    """
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"tau must be in (0, 1], not {tau}")
    n = m.n
    new = np.asarray(new, dtype=bool)
    if len(new) != n:
        raise ValueError(f"one new flag per page: {len(new)} for {n} pages")
    lengths = m.lengths().astype(np.int64)
    active = lengths > 0 if active is None else np.asarray(active, dtype=bool) & (lengths > 0)
    empty = PairResult(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    if not (active & new).any():
        return empty

    order, (ptr, rank, cnt, length, unindexed), index, prefix_last, _ = prefix_index(m, active, lengths, tau)

    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(len(order), dtype=np.int64)
    probes = np.sort(position[np.flatnonzero(active & new)])
    index_args = (ptr, rank, cnt, length, length[order], unindexed, float(tau), new, *index, prefix_last)

    step = max(64, len(probes) // 200)  # new pages a task probes: progress and cancel points
    local = threading.local()

    def probe(lo: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        if not hasattr(local, "score"):  # each thread its own scratch scores
            local.score = np.zeros(n, dtype=np.float64)
        return probe_new(order, probes[lo : lo + step], *index_args, local.score)

    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
    with ThreadPoolExecutor(max_workers=_THREADS) as pool:
        futures = [pool.submit(probe, lo) for lo in range(0, len(probes), step)]
        try:
            for k, future in enumerate(futures):
                parts.append(future.result())
                progress("match", min((k + 1) * step, len(probes)), len(probes))
        except BaseException:  # Cancelled: tasks not yet started never run
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    s = np.concatenate([p[2] for p in parts])
    by_pair = np.lexsort((b, a))
    return PairResult(a[by_pair], b[by_pair], s[by_pair], sum(p[3] for p in parts))


@njit(cache=True, nogil=True)
def probe_new(
    order: np.ndarray,  # active pages by ascending (length, id)
    probes: np.ndarray,  # positions in ``order`` of the new pages to probe
    ptr: np.ndarray,
    rank: np.ndarray,
    cnt: np.ndarray,
    length: np.ndarray,
    sorted_length: np.ndarray,  # length[order]
    unindexed: np.ndarray,
    tau: float,
    new: np.ndarray,  # bool per page: probed (the others are only probed into)
    list_ptr: np.ndarray,
    list_pos: np.ndarray,
    list_delta: np.ndarray,
    list_cnt: np.ndarray,
    prefix_last: np.ndarray,
    score: np.ndarray,  # per page, all 0 (scratch for this caller: one per thread)
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Pairs >= tau of each probed (new) page with every old page and with the new pages
    before it in ``order``: (a, b, similarity, candidates verified).

    The filters and the verification are those of :func:`workbench.detect.join.allpairs.probe`;
    only the length window differs: it reaches past the probed page, to partners up to
    length |x| / tau, since an old partner may be longer.
    """
    touched = np.empty(max(len(order), 1), dtype=np.int64)  # distinct active pages
    out_a = np.empty(64, dtype=np.int64)
    out_b = np.empty(64, dtype=np.int64)
    out_s = np.empty(64, dtype=np.float64)
    found = 0
    verified = 0
    for k in probes:
        # The loops are in helpers whose arrays are never reassigned (see allpairs.probe).
        n_touched, last = _scan_new(order, k, ptr, rank, cnt, length, sorted_length, unindexed, tau,
                                    new, list_ptr, list_pos, list_delta, list_cnt, score, touched)
        out_a, out_b, out_s = with_room(out_a, out_b, out_s, found + n_touched)  # for every candidate
        found, checked = _verify_new(order[k], n_touched, last, ptr, rank, cnt, length, tau, prefix_last,
                                     score, touched, out_a, out_b, out_s, found)
        verified += checked
    return out_a[:found], out_b[:found], out_s[:found], verified


@njit(cache=True, nogil=True)
def _scan_new(order: np.ndarray, k: int, ptr: np.ndarray, rank: np.ndarray, cnt: np.ndarray,
              length: np.ndarray, sorted_length: np.ndarray, unindexed: np.ndarray, tau: float,
              new: np.ndarray, list_ptr: np.ndarray, list_pos: np.ndarray, list_delta: np.ndarray,
              list_cnt: np.ndarray, score: np.ndarray, touched: np.ndarray) -> tuple[int, int]:
    """Scan the lists of the prefix of page order[k] over its length window, adding up
    each candidate's shared items in ``score`` (-1: dropped by the positional filter) and
    listing the candidates met in ``touched``. Returns (candidates, the rank of the
    page's last prefix signature).

    The step per list entry repeats allpairs._scan_prefix's on purpose: as a shared numba
    helper (even inlined) it made that loop four to six times slower, measured on a
    million pages."""
    longest = tau - _EPS  # a partner y of x needs tau |y| <= |x| (with the matcher's slack)
    x = order[k]
    lx = length[x]
    need_x = np.ceil(tau * lx - _EPS * lx)
    prefix_end = lx - need_x
    first = np.searchsorted(sorted_length, tau * lx - _EPS * lx)
    stop = np.searchsorted(sorted_length, lx / longest, side="right") if longest > 0 else len(order)
    n_touched = 0
    delta = unindexed[x]
    e = ptr[x]
    last = -1
    while e < ptr[x + 1] and delta <= prefix_end:
        r = rank[e]
        last = r
        c = cnt[e]
        rest_x = lx - delta - c
        begin, end = list_ptr[r], list_ptr[r + 1]
        q = begin + np.searchsorted(list_pos[begin:end], first)
        q_end = begin + np.searchsorted(list_pos[begin:end], stop)
        while q < q_end:
            p = list_pos[q]
            y = order[p]
            # Not the page itself, nor a new page later in the order (it finds the pair).
            if p < k or (p > k and not new[y]):
                sy = score[y]
                if sy >= 0:
                    ly = length[y]
                    shared = min(c, list_cnt[q])
                    rest = min(rest_x, ly - list_delta[q] - list_cnt[q])
                    need = least_overlap(tau, lx, ly)
                    if sy == 0:
                        touched[n_touched] = y
                        n_touched += 1
                    score[y] = -1.0 if sy + shared + rest < need else sy + shared
            q += 1
        delta += c
        e += 1
    return n_touched, last


@njit(cache=True, nogil=True)
def _verify_new(x: int, n_touched: int, last: int, ptr: np.ndarray, rank: np.ndarray, cnt: np.ndarray,
                length: np.ndarray, tau: float, prefix_last: np.ndarray, score: np.ndarray,
                touched: np.ndarray, out_a: np.ndarray, out_b: np.ndarray, out_s: np.ndarray,
                found: int) -> tuple[int, int]:
    """Verify page x's candidates and reset their scores; pairs >= tau are written from
    ``found`` on (the outputs have room for every candidate). Returns (pairs written in
    all, candidates verified)."""
    lx = length[x]
    verified = 0
    for t in range(n_touched):
        y = touched[t]
        if score[y] > 0:
            verified += 1
            # Shared signatures up to the end of the shorter-ranked prefix are in both
            # prefixes, so the score holds them: only the rest is merged.
            seen = min(last, prefix_last[y])
            inter = score[y] + _overlap(ptr, rank, cnt, x, y, seen)
            ly = length[y]
            sim = inter / (lx + ly - inter)
            if sim >= tau:
                out_a[found] = min(x, y)
                out_b[found] = max(x, y)
                out_s[found] = sim
                found += 1
        score[y] = 0.0
    return found, verified


class IncrementalIndex:
    """Pages added batch by batch; each :meth:`add` returns the pairs (>= tau) its pages
    make with the pages added before and among themselves. Pages are numbered in the
    order they were added, from 0.

    Signatures get dense ids in the order they are first met, so the rows of earlier
    pages never change; every page keeps all its signatures, so one that only one page
    had can become shared when a later page brings it.
    """

    def __init__(self, tau: float) -> None:
        if not 0.0 < tau <= 1.0:
            raise ValueError(f"tau must be in (0, 1], not {tau}")
        self.tau = tau
        self._ptr = np.zeros(1, dtype=np.int64)
        self._sig = np.empty(0, dtype=np.int64)  # dense ids, ascending within each page
        self._cnt = np.empty(0, dtype=np.int64)
        self._raw = np.empty(0, dtype=np.int64)  # dense id -> 64-bit id
        self._df = np.empty(0, dtype=np.int64)  # pages that have each signature
        self._sorted_raw = np.empty(0, dtype=np.int64)  # the 64-bit ids met, ascending,
        self._sorted_dense = np.empty(0, dtype=np.int64)  # and the dense id of each

    @property
    def n(self) -> int:
        """Pages added so far."""
        return len(self._ptr) - 1

    def add(self, rows: SignatureMatrix, progress: ProgressFn = no_progress) -> PairResult:
        """Add the pages of ``rows`` (with their 64-bit ids in ``rows.raw_ids``, as
        :meth:`SignatureMatrix.from_vectors` makes them) and return the pairs they bring,
        in the numbering of all pages added."""
        if rows.unindexed is not None and rows.unindexed.any():
            raise ValueError("pages to add must list every signature: left-out (unindexed) signatures "
                             "could be shared with pages added later; build the rows with "
                             "SignatureMatrix.from_vectors and without index_only")
        if len(rows.sig) and rows.raw_ids is None:
            raise ValueError("pages to add need their 64-bit signature ids (raw_ids): build the rows "
                             "with SignatureMatrix.from_vectors")
        first_new = self.n
        # raw_ids is there whenever there are signatures (checked above).
        raw = rows.raw_ids[rows.sig] if rows.raw_ids is not None and len(rows.sig) else np.empty(0, np.int64)
        batch = SignatureMatrix(rows.ptr, self._dense(raw), rows.cnt.astype(np.int64)).sorted_rows()
        self._ptr = np.concatenate([self._ptr, self._ptr[-1] + batch.ptr[1:]])
        self._sig = np.concatenate([self._sig, batch.sig])
        self._cnt = np.concatenate([self._cnt, batch.cnt])
        self._df += np.bincount(batch.sig, minlength=len(self._raw))
        m = SignatureMatrix(self._ptr, self._sig, self._cnt, self._raw)
        # A signature no page shares stays in its page's length only: sound, as which
        # ones those are is decided again, with the new pages, at every add.
        return find_new_pairs(m.index_only(self._df[self._sig] >= 2), first_new, self.tau, progress)

    def _dense(self, raw: np.ndarray) -> np.ndarray:
        """The dense id of every 64-bit id in ``raw``, giving ids never met the next free ones."""
        at = np.searchsorted(self._sorted_raw, raw)
        known = np.zeros(len(raw), dtype=bool)
        if len(self._sorted_raw):
            known = self._sorted_raw[np.minimum(at, len(self._sorted_raw) - 1)] == raw
        unseen = distinct(raw[~known])
        fresh = np.arange(len(self._raw), len(self._raw) + len(unseen), dtype=np.int64)
        dense = np.empty(len(raw), dtype=np.int64)
        dense[known] = self._sorted_dense[at[known]]
        dense[~known] = fresh[np.searchsorted(unseen, raw[~known])]
        where = np.searchsorted(self._sorted_raw, unseen)
        self._sorted_raw = np.insert(self._sorted_raw, where, unseen)
        self._sorted_dense = np.insert(self._sorted_dense, where, fresh)
        self._raw = np.concatenate([self._raw, unseen])
        self._df = np.concatenate([self._df, np.zeros(len(unseen), dtype=np.int64)])
        return dense

