"""Compare detectors on the coder's own data: precision, recall and F1 per threshold.

The truth is either a gold folder (one sub-folder per cluster: every page labelled) or
a project's coded clusters (a cluster the coder has tagged is a judgement that its
members, less those marked "not this story", are one story). Only labelled pages are
scored: a pair counts when both of its pages are labelled.

Every method reads the same extraction. SpotSigs runs its own pipeline (its signatures
are found per block during extraction, so its time includes reading and extraction);
the other methods share one reading into page texts, timed on its own. Each method is
scored at every threshold of its grid, on pairs (the measure of the papers: Max F1) and
on the clusters built from those pairs, so the best threshold can be read off and the
precision-recall curve drawn.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.core.clusters.clustering import cluster_pairs
from workbench.core.clusters.evaluation import Scores, pairs_of_groups, score_pairs
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import PageInfo
from workbench.detect.join.matcher import PairResult
from workbench.detect.registry import SPOTSIGS, make_detector
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.texts import Texts, read_texts
from workbench.usecases.pipeline import detect, load_corpus, weak_join_check

# The Gold Set figures the papers report for each method (Max F1 unless said), for the
# table beside ours. The SpotSigs paper's Gold Set has 2,160 pages in 68 clusters; the
# gold folders we have are halves of it (a dev half and a held-out half), so read these
# as the papers' claims on the whole, not a target for the pages compared.
PAPER_FIGURES: dict[str, tuple[str, ...]] = {
    SPOTSIGS: ("SpotSigs paper Table 1: F1 .94 at tau .44", "SigNCD Table 2: .83",
               "ANDD Table 2: .953"),
    "simhash": ("SigNCD Table 2 (Google's simhash): .59", "ANDD Table 3 (Charikar, 384 bits): .820"),
    "minhash": ("SpotSigs Table 1 (3-shingles, Jaccard): .69", "ANDD Table 3 (Shingles): .876"),
    "imatch": ("SpotSigs Table 1: .05", "ANDD Table 3: .002"),
    "signcd": ("SigNCD Table 2 (SigNCD w/ P1): .92",),
    "andd": ("ANDD Table 3 (ANDD-LSH-Cos): .943", "ANDD Table 2 (ANDD-Raw unigram cosine): .956"),
}


@dataclass(frozen=True, slots=True)
class Point:
    """A method's scores at one threshold."""

    threshold: float
    pairs: Scores
    clusters: Scores


@dataclass(slots=True)
class MethodResult:
    method: str
    label: str
    exact: bool
    points: list[Point]
    seconds: float  # the method's own work (for SpotSigs: its whole run, reading included)
    peak_bytes: int  # growth of this process's resident memory during that work
    parameters: dict = field(default_factory=dict)
    note: str = ""

    @property
    def best(self) -> Point:
        """The point of highest pair F1 (the papers' Max F1); on a tie, the higher threshold."""
        return max(self.points, key=lambda p: (p.pairs.f1, p.threshold))

    @property
    def best_clusters(self) -> Point:
        """The point of highest cluster F1: where the clusters a coder would see match the
        truth best, the threshold to code at; on a tie, the higher threshold (fewer false
        merges to undo by hand)."""
        return max(self.points, key=lambda p: (p.clusters.f1, p.threshold))


@dataclass(slots=True)
class Comparison:
    source: str  # the gold folder, or the project file
    labelled_pages: int
    true_clusters: int
    pages: int
    read_seconds: float  # reading and extracting the texts the non-SpotSigs methods share
    methods: list[MethodResult]


@dataclass(frozen=True, slots=True)
class Truth:
    """Which labelled page belongs to which true cluster (page key -> cluster name)."""

    cluster_of: dict[str, str]

    @classmethod
    def from_gold_folder(cls, pages: Sequence[PageInfo]) -> Truth:
        """The first folder of a page's key names its cluster; pages outside folders are
        not labelled."""
        return cls({p.key: p.key.split("/", 1)[0] for p in pages if "/" in p.key})

    def true_pairs(self) -> set[tuple]:
        groups: dict[str, list[str]] = {}
        for key, name in self.cluster_of.items():
            groups.setdefault(name, []).append(key)
        return pairs_of_groups(groups.values())


def truth_of_project(project) -> Truth:
    """The project's coded clusters as truth: a tagged cluster's members (those marked "not
    this story" left out) are one story; each left-out member is a story of its own."""
    cluster_of: dict[str, str] = {}
    offset, step = 0, 2000
    while True:
        rows = project.list_clusters(offset, step, order="size")
        if not rows:
            break
        for row in rows:
            if row.coded == "none":
                continue
            for m in project.members(row.id):
                cluster_of[m.key] = f"excluded:{m.key}" if m.excluded else f"cluster:{row.id}"
        offset += step
    return Truth(cluster_of)


class _PeakMemory:
    """Samples this process's resident memory from a thread; ``growth`` is the peak less
    the resident memory at the start (numpy allocations included, unlike tracemalloc's
    view, and without tracemalloc's slowdown of Python code)."""

    def __init__(self, interval: float = 0.02) -> None:
        self.start = _rss()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.peak = max(self.peak, _rss())

    def growth(self) -> int:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())
        return max(0, self.peak - self.start)


def _rss() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def compare(
    root: Path | str,
    truth: Truth | Callable[[Sequence[PageInfo]], Truth],
    methods: Sequence[str],
    *,
    params: SpotSigsParams | None = None,
    options: dict[str, dict] | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    source: str | None = None,
) -> Comparison:
    """Run every method on the crawl at ``root`` and score it against ``truth`` (or the
    truth made from the pages read, e.g. :meth:`Truth.from_gold_folder`).

    ``options`` gives a method's constructor options (e.g. trained ANDD weights).
    """
    params = params or SpotSigsParams()
    options = options or {}
    texts: Texts | None = None
    read_seconds = 0.0
    if any(m != SPOTSIGS for m in methods):
        t0 = time.perf_counter()
        texts = read_texts(root, params, progress, workers)
        read_seconds = time.perf_counter() - t0
    results: list[MethodResult] = []
    found_truth: Truth | None = truth if isinstance(truth, Truth) else None
    n_pages = len(texts.pages) if texts is not None else 0
    for name in methods:
        progress(f"method:{name}", len(results), len(methods))
        if name == SPOTSIGS:
            result, pages = _spotsigs(root, params, progress, workers)
        else:
            assert texts is not None
            result, pages = _detector(name, texts, options.get(name, {}), progress), texts.pages
        if found_truth is None:
            found_truth = truth(pages)  # type: ignore[operator]
        n_pages = max(n_pages, len(pages))
        results.append(_scored(result, pages, found_truth))
    assert found_truth is not None
    return Comparison(source or str(root), len(found_truth.cluster_of),
                      len(set(found_truth.cluster_of.values())), n_pages, read_seconds, results)


@dataclass(slots=True)
class _Run:
    """A method's raw output before scoring: pairs (down to its lowest threshold) and how
    to cluster them at each threshold."""

    name: str
    label: str
    exact: bool
    thresholds: list[float]
    pairs: PairResult
    clusters_at: Callable[[float], list[list[int]]]
    seconds: float
    peak: int
    parameters: dict
    note: str = ""


def _spotsigs(root: Path | str, params: SpotSigsParams, progress: ProgressFn,
              workers: int | None) -> tuple[_Run, list[PageInfo]]:
    memory = _PeakMemory()
    t0 = time.perf_counter()
    taus = [round(0.05 * k, 2) for k in range(2, 20)] + [1.0]
    corpus = load_corpus(root, params, progress, workers)
    # Pairs down to the lowest tau, found once; each tau's clusters are then built from
    # the pairs a run at that tau would have found (>= min(tau, pair floor)), exactly as
    # detect() builds them.
    low = detect(corpus, tau=taus[0], progress=progress)
    pairs = low.floor_pairs if low.floor_pairs is not None else low.pairs
    seconds = time.perf_counter() - t0
    peak = memory.growth()
    n = len(corpus.pages)

    vouch = weak_join_check(corpus.matrix, params)

    def clusters_at(tau: float) -> list[list[int]]:
        at = dataclasses.replace(params, tau=tau)
        floor = at.floor_for(n)
        keep = pairs.similarity >= floor
        return [c.members for c in cluster_pairs(params.cluster_method, n, pairs.a[keep], pairs.b[keep],
                                                 pairs.similarity[keep], params.corroborate_below, tau,
                                                 at.weak_join_for(floor), vouch, params.hub_split)]

    return (_Run(SPOTSIGS, "SpotSigs (Theobald, Siddharth, Paepcke, SIGIR 2008)", True, taus, pairs,
                 clusters_at, seconds, peak, params.to_dict(),
                 "time includes reading and extraction"), corpus.pages)


def _detector(name: str, texts: Texts, options: dict, progress: ProgressFn) -> _Run:
    detector = make_detector(name, **options)
    thresholds = sorted(detector.thresholds())
    memory = _PeakMemory()
    t0 = time.perf_counter()
    features = []
    for k, text in enumerate(texts.texts):
        if k % 256 == 0:
            progress(f"features:{name}", k, len(texts.texts))  # where Cancel takes effect
        features.append(detector.featurize(text))
    pairs = detector.find_pairs(features, thresholds[0], progress)
    seconds = time.perf_counter() - t0
    peak = memory.growth()
    n = len(texts.texts)

    def clusters_at(threshold: float) -> list[list[int]]:
        keep = pairs.similarity >= threshold
        return [c.members for c in cluster_pairs("star", n, pairs.a[keep], pairs.b[keep],
                                                 pairs.similarity[keep], 0.0, threshold, 0.0)]

    return _Run(name, detector.label, detector.exact, thresholds, pairs, clusters_at, seconds, peak,
                detector.parameters())


def _scored(run: _Run, pages: Sequence[PageInfo], truth: Truth) -> MethodResult:
    keys = [p.key for p in pages]
    labelled = np.array([k in truth.cluster_of for k in keys], dtype=bool)
    true_pairs = truth.true_pairs()
    both = labelled[run.pairs.a] & labelled[run.pairs.b] if len(run.pairs) else np.zeros(0, bool)
    a, b, sim = run.pairs.a[both], run.pairs.b[both], run.pairs.similarity[both]
    points: list[Point] = []
    for threshold in run.thresholds:
        keep = sim >= threshold
        found = {(keys[i], keys[j]) for i, j in zip(a[keep].tolist(), b[keep].tolist(), strict=True)}
        groups = [[keys[m] for m in members if labelled[m]] for members in run.clusters_at(threshold)]
        points.append(Point(threshold, score_pairs(found, true_pairs),
                            score_pairs(pairs_of_groups(groups), true_pairs)))
    return MethodResult(run.name, run.label, run.exact, points, run.seconds, run.peak, run.parameters,
                        run.note)
