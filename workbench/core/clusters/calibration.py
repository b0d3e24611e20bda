"""What another τ would do to a run's clusters: the presenter behind Detection ▸ Calibrate.

A run stores every pair of pages with similarity ≥ its *floor* (``min(tau, pair_floor)``),
while its clusters come from the pairs ≥ tau only. So for any τ' ≥ floor the clusters
can be rebuilt from the stored pairs alone, without reading a page again, and compared
with the clusters the coder sees now. No Qt and no I/O here: the widget draws what this
module counts, and tests drive it directly.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.clusters.clustering import METHODS, PageColumn, Vouch, cluster_pairs
from workbench.core.distinct import count_distinct
from workbench.core.records import Cluster

# τ moves in steps of this size (arrow keys, dragging): finer steps mean nothing to a
# coder and would defeat the cache of exact counts.
STEP = 0.01


def snap(tau: float) -> float:
    """τ rounded to the calibration grid (two decimals)."""
    return round(round(tau / STEP) * STEP, 2)


# The key a run's recorded parameters keep its pairs' lower end under, when the run says
# (a crawl too large for the pair floor stores pairs from tau: SpotSigsParams.floor_for).
STORED_FLOOR = "stored_floor"


def run_floor(params: dict[str, Any]) -> float:
    """The lowest similarity a run stored pairs for: what it recorded (``stored_floor``),
    else ``min(tau, pair_floor)``.

    Runs saved before ``pair_floor`` existed stored pairs ≥ tau only, so their floor is tau.
    """
    tau = float(params.get("tau", 0.2))
    if params.get(STORED_FLOOR) is not None:
        return min(tau, float(params[STORED_FLOOR]))
    floor = params.get("pair_floor")
    return tau if floor is None else min(tau, float(floor))


def floor_note(params: dict[str, Any]) -> str:
    """Why a run kept no pairs below its τ, for the calibration view ('' when it kept some)."""
    tau = float(params.get("tau", 0.2))
    if run_floor(params) < tau - 1e-9:
        return ""
    kept = f"This run kept pairs down to its τ {tau:.2f} only, so τ can only be raised here"
    # The floor asked for was below tau, yet the pairs start at tau: the page limit.
    asked = run_floor({k: v for k, v in params.items() if k != STORED_FLOOR})
    if params.get(STORED_FLOOR) is not None and asked < tau - 1e-9:
        limit = params.get("pair_floor_max_pages")
        cap = f"of {int(limit):,} pages " if limit else ""
        return (f"{kept}: the crawl was over the pair floor's limit {cap}(pairs below τ grow with "
                "the square of a crawl). Raise the limit (--pair-floor-max-pages) to look below τ.")
    return f"{kept}. Run detection again with a lower pair floor to look below it."


@dataclass(frozen=True, slots=True)
class PairGraph:
    """A run's stored pairs as page indexes ``0..n-1``, most similar first.

    Sorting once by descending similarity makes "the pairs ≥ τ" a prefix for any τ,
    and puts the pairs in one canonical order, so the presenter and Apply hand
    ``cluster_pairs`` identical input (star clustering sums similarities per page,
    and a float sum depends on the order of its terms).
    """

    n: int
    a: np.ndarray  # int64
    b: np.ndarray  # int64
    similarity: np.ndarray  # float64, descending

    @classmethod
    def build(cls, n: int, a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
              similarity: Sequence[float] | np.ndarray) -> PairGraph:
        a_ = np.asarray(a, dtype=np.int64)
        b_ = np.asarray(b, dtype=np.int64)
        s_ = np.asarray(similarity, dtype=np.float64)
        if not (len(a_) == len(b_) == len(s_)):
            raise ValueError("a, b and similarity must have the same length")
        lo, hi = np.minimum(a_, b_), np.maximum(a_, b_)
        if len(lo) and (lo.min() < 0 or hi.max() >= n or (lo == hi).any()):
            raise ValueError(f"pairs must join two different pages among 0..{n - 1}")
        order = np.lexsort((hi, lo, -s_))
        return cls(int(n), lo[order], hi[order], s_[order])

    def __len__(self) -> int:
        return len(self.similarity)

    def count_at(self, tau: float) -> int:
        """How many pairs have similarity ≥ tau (the length of the prefix)."""
        # similarity is descending; -similarity ascending: pairs with -s <= -tau.
        return int(np.searchsorted(-self.similarity, -tau, side="right"))


# Settings a run records that change how its pairs become clusters, besides τ and the
# method (see workbench.core.clusters.clustering); each is off (0) when a run did not record it.
CLUSTER_OPTIONS = ("corroborate_below", "weak_join", "hub_split")


def clustering_options(params: dict[str, Any], checkable: bool = False) -> dict[str, float]:
    """The clustering settings a run recorded (a run from before a setting existed was
    clustered without it, so a missing one stays off). Weak joins that the run checked
    against its pages' own text (``weak_join_own_text``) are left out unless they can be
    checked again (``checkable``: the run kept its signature matrix, see
    :func:`run_vouch`): unchecked they merge clusters that share one story
    (workbench.core.clusters.own_text)."""
    options = {k: float(params[k]) for k in CLUSTER_OPTIONS if params.get(k) is not None}
    if options.get("weak_join") and params.get("weak_join_own_text") and not checkable:
        del options["weak_join"]
    return options


def run_vouch(params: dict[str, Any], signatures: Any) -> Vouch | None:
    """The check a run's weak joins were made with, from the signature matrix it kept
    (anything with ``ptr``, ``sig`` and ``unindexed``: workbench.store.runs.signatures); None
    when its weak joins were not checked or it kept no matrix."""
    minimum = params.get("weak_join_own_text")
    if not params.get("weak_join") or not minimum or signatures is None:
        return None
    from workbench.core.clusters.own_text import OwnTextCheck  # compiled code: only for such a run

    return OwnTextCheck(signatures.ptr, signatures.sig, signatures.unindexed).vouch(float(minimum))


def weak_joins_note(params: dict[str, Any], checkable: bool = False) -> str:
    """What the calibration view leaves out of a run's clusters ('' when nothing)."""
    if not params.get("weak_join") or not params.get("weak_join_own_text") or checkable:
        return ""
    return ("Weak joins are left out here: the run may also have joined rewritten copies "
            "below τ after checking their text, which needs the pages' signatures, and this "
            "project did not keep them. A cluster that has such pages shows as splitting at "
            "the run's τ; a new detection run at another τ joins them again.")


def corroboration_note(params: dict[str, Any]) -> str:
    """What τ cannot do in a run's star clusters ('' when nothing): a member less similar
    than ``corroborate_below`` to its reference needs a link from another member too, so
    a τ under it adds no cluster of two pages. Said only when the view can move τ there."""
    below = float(params.get("corroborate_below") or 0.0)
    if params.get("cluster_method", "star") != "star" or below <= run_floor(params) + 1e-9:
        return ""  # off, or τ cannot be moved below it here
    return (f"A member less than {below:.2f} similar to its cluster's reference needs a link "
            f"from another member too (corroborate below {below:.2f}): below τ {below:.2f}, "
            "pages join clusters of three or more, but no two pages make a cluster on their "
            "own. Settings (or --corroborate-below) change it.")


def _local_clusters(graph: PairGraph, method: str, tau: float, options: dict[str, float] | None,
                    groups_only: bool = False,
                    vouch: Vouch | None = None) -> tuple[np.ndarray, list[Cluster]]:
    """Cluster the stored pairs at tau, numbering only the pages that have a pair.

    Every method breaks ties by page index, so a monotone renumbering of the pages keeps
    every tie the same: the result is the run's own clustering, without walking the
    100,000 pages of a crawl that has 20,000 pairs. All pairs down to the floor are
    passed with tau, as the pipeline does: star clustering takes its similarities to the
    reference (and, with ``weak_join``, leftover pages) from the pairs below tau.
    ``groups_only``: only who is with whom matters, not the similarities; without
    ``weak_join`` the pairs below tau then change nothing and are left out (half the
    work at a low floor; the property tests compare both ways). ``vouch`` checks weak
    joins, asked with the run's page indexes.
    """
    options = options or {}
    m = graph.count_at(tau) if groups_only and not options.get("weak_join") else len(graph)
    nodes, inverse = np.unique(np.concatenate([graph.a[:m], graph.b[:m]]), return_inverse=True)
    local_vouch = None
    if vouch is not None:
        def local_vouch(side: PageColumn, other: PageColumn) -> bool:
            return vouch(nodes[np.asarray(side, dtype=np.int64)], nodes[np.asarray(other, dtype=np.int64)])
    local = cluster_pairs(method, len(nodes), inverse[:m].tolist(), inverse[m:].tolist(),
                          graph.similarity[:m].tolist(), tau=tau, vouch=local_vouch, **options)
    return nodes, local


def cluster_at(graph: PairGraph, method: str, tau: float,
               options: dict[str, float] | None = None, vouch: Vouch | None = None) -> list[Cluster]:
    """The clusters ``method`` (with the run's ``options`` and weak joins checked by
    ``vouch``) builds at tau, as page indexes of the run. A member not paired with its
    reference keeps the similarity -1.0 ("below the floor")."""
    nodes, local = _local_clusters(graph, method, tau, options, vouch=vouch)
    back = nodes.tolist()
    return [Cluster(back[c.reference], [back[x] for x in c.members], list(c.similarities))
            for c in local]


def labels_at(graph: PairGraph, method: str, tau: float,
              options: dict[str, float] | None = None, vouch: Vouch | None = None) -> np.ndarray:
    """:func:`labels_of` the clusters at tau, without building them page by page."""
    nodes, local = _local_clusters(graph, method, tau, options, groups_only=True, vouch=vouch)
    labels = np.full(graph.n, -1, dtype=np.int64)
    big = [c.members for c in local if len(c.members) >= 2]
    if big:
        flat = np.fromiter(itertools.chain.from_iterable(big), dtype=np.int64)
        sizes = np.fromiter((len(g) for g in big), dtype=np.int64, count=len(big))
        labels[nodes[flat]] = np.repeat(np.arange(len(big), dtype=np.int64), sizes)
    return labels


def labels_of(n: int, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """Per page, the number of its group of two or more pages, or -1 when it is alone."""
    labels = np.full(n, -1, dtype=np.int64)
    k = 0
    for members in groups:
        if len(members) >= 2:
            labels[np.asarray(members, dtype=np.int64)] = k
            k += 1
    return labels


@dataclass(frozen=True, slots=True)
class Change:
    """How one clustering differs from another (the coder's current one)."""

    clusters: int  # clusters of two or more pages
    pages: int  # pages in them
    split: int  # current clusters whose pages would not all stay together
    merged: int  # current clusters that would share a cluster with another current cluster
    merges: int  # new clusters holding pages of two or more current clusters
    joined: int  # pages alone now that would be in a cluster
    left: int  # pages in a cluster now that would be alone


def compare(current: np.ndarray, new: np.ndarray) -> Change:
    """Count splits and merges from ``current`` to ``new`` (both from :func:`labels_of`)."""
    current = np.asarray(current, dtype=np.int64)
    new = np.asarray(new, dtype=np.int64)
    if current.shape != new.shape:
        raise ValueError("both clusterings must label the same pages")
    in_new = new >= 0
    clusters = count_distinct(new[in_new])
    pages = int(in_new.sum())
    in_cur = current >= 0
    joined = int((~in_cur & in_new).sum())
    left = int((in_cur & ~in_new).sum())

    split = 0
    if in_cur.any():
        cur, nw = current[in_cur], new[in_cur]
        order = np.argsort(cur, kind="stable")
        cur, nw = cur[order], nw[order]
        starts = np.flatnonzero(np.r_[True, cur[1:] != cur[:-1]])
        lo = np.minimum.reduceat(nw, starts)
        hi = np.maximum.reduceat(nw, starts)
        # A current cluster stays whole only when all its pages share one new cluster.
        split = int(((lo != hi) | (lo < 0)).sum())

    merged = merges = 0
    both = in_cur & in_new
    if both.any():
        links = np.unique(np.stack([new[both], current[both]], axis=1), axis=0)
        new_ids, per_new = np.unique(links[:, 0], return_counts=True)
        merging = new_ids[per_new >= 2]
        merges = int(len(merging))
        merged = count_distinct(links[np.isin(links[:, 0], merging), 1])
    return Change(clusters, pages, split, merged, merges, joined, left)


@dataclass(frozen=True, slots=True)
class Counts:
    """The exact consequences of τ' for the run, as the calibration view shows them."""

    tau: float
    pairs: int  # stored pairs ≥ τ'
    change: Change


@dataclass(frozen=True, slots=True)
class Estimate:
    """What is known at once while the τ line moves: the pairs that would link pages.

    (A cheaper clustering is no estimate of star clustering: on a crawl with a low floor,
    connected components chain into a handful of giant clusters where star makes
    thousands. So the view says "counting…" until the exact numbers are in.)
    """

    tau: float
    pairs: int


@dataclass(frozen=True, slots=True)
class Histogram:
    """Pair counts in bins of ``width`` starting at ``start`` (the last bin ends at 1.0)."""

    start: float
    width: float
    counts: tuple[int, ...]

    def edges(self) -> list[float]:
        return [round(self.start + i * self.width, 6) for i in range(len(self.counts) + 1)]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


class Calibration:
    """Counts for a candidate τ' on one run (the Qt-free half of the calibration view).

    ``current``: per page index, the coder's current cluster (``labels_of``; -1 alone),
    which includes their hand splits and merges. ``run_tau``: the run's τ; ``floor``:
    the lowest similarity the run stored pairs for.
    """

    def __init__(self, graph: PairGraph, current: np.ndarray, *, method: str, run_tau: float,
                 floor: float, options: dict[str, float] | None = None,
                 vouch: Vouch | None = None) -> None:
        if len(current) != graph.n:
            raise ValueError("one current label per page of the run is needed")
        if method not in METHODS:
            raise ValueError(f"the run used the clustering {method!r}, which this version does not know")
        self.graph = graph
        self.current = np.asarray(current, dtype=np.int64)
        self.method = method
        self.options = dict(options or {})
        self.vouch = vouch  # checks weak joins as the run did (run_vouch), when it can
        self.run_tau = float(run_tau)
        self.floor = float(min(floor, run_tau))
        self._exact: dict[float, Counts] = {}

    # ------------------------------------------------------------ range
    @property
    def low(self) -> float:
        """The lowest τ' the stored pairs can answer for (the floor, on the grid)."""
        lowest = snap(self.floor)
        return lowest if lowest >= self.floor - 1e-9 else round(lowest + STEP, 2)

    def clamp(self, tau: float) -> float:
        """τ' snapped to the grid and kept within [floor, 1]."""
        return min(1.0, max(self.low, snap(tau)))

    # -------------------------------------------------------- histogram
    def histogram(self, width: float = 0.02) -> Histogram:
        """Pair similarities from the floor (rounded down to a bin edge) up to 1.0."""
        start = np.floor(self.floor / width + 1e-9) * width
        bins = max(1, int(np.ceil((1.0 - start) / width - 1e-9)))
        index = np.floor((self.graph.similarity - start) / width + 1e-9).astype(np.int64)
        counts = np.bincount(np.clip(index, 0, bins - 1), minlength=bins)
        return Histogram(round(float(start), 6), width, tuple(int(c) for c in counts))

    # ---------------------------------------------------------- counting
    def cached(self, tau: float) -> Counts | None:
        """The exact counts for τ' if they were computed already (no work)."""
        return self._exact.get(self.clamp(tau))

    def counts(self, tau: float) -> Counts:
        """Exact counts for τ' (clustered once per grid value, then cached)."""
        tau = self.clamp(tau)
        hit = self._exact.get(tau)
        if hit is None:
            new = labels_at(self.graph, self.method, tau, self.options, self.vouch)
            hit = self._exact[tau] = Counts(tau, self.graph.count_at(tau), compare(self.current, new))
        return hit

    def clusters(self, tau: float) -> list[Cluster]:
        """The clusters τ' makes (what Apply stores, before one-page clusters)."""
        return cluster_at(self.graph, self.method, self.clamp(tau), self.options, self.vouch)

    def estimate(self, tau: float) -> Estimate:
        """Cheap (a binary search) numbers for τ' while the line is being dragged."""
        tau = self.clamp(tau)
        return Estimate(tau, self.graph.count_at(tau))

    def grid(self) -> list[float]:
        """Every τ' the view can show, nearest to the run's τ first (the order in which
        idle time fills the cache)."""
        steps = int(round((1.0 - self.low) / STEP))
        values = [round(self.low + i * STEP, 2) for i in range(steps + 1)]
        return sorted(values, key=lambda t: (abs(t - self.run_tau), t))

    # ------------------------------------------------------------- words
    def describe(self, counts: Counts) -> str:
        """One line for the view: "τ 0.45: 38 clusters, 412 pages — 3 clusters would split, …"."""
        ch = counts.change
        head = f"τ {counts.tau:.2f}: {_plural(ch.clusters, 'cluster')}, {_plural(ch.pages, 'page')}"
        parts = []
        if ch.split:
            parts.append(f"{_plural(ch.split, 'cluster')} would split")
        if ch.merges:
            into = f"into {ch.merges:,}"
            parts.append(f"{ch.merged:,} would merge {into}" if parts
                         else f"{_plural(ch.merged, 'cluster')} would merge {into}")
        if not parts:
            return f"{head} — no cluster would split or merge"
        return f"{head} — {', '.join(parts)}"

    def detail(self, counts: Counts) -> str:
        """The second line: pairs and single pages."""
        ch = counts.change
        bits = [f"{_plural(counts.pairs, 'pair')} ≥ τ"]
        if ch.joined:
            bits.append(f"{_plural(ch.joined, 'single page')} would join a cluster")
        if ch.left:
            bits.append(f"{_plural(ch.left, 'page')} would be left alone")
        return " · ".join(bits)

    def describe_estimate(self, est: Estimate) -> str:
        return f"τ {est.tau:.2f}: counting clusters… ({_plural(est.pairs, 'pair')} ≥ τ)"
