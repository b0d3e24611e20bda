"""A detection run with a method other than SpotSigs, into the same project file.

The run reads and extracts pages with the project's extraction settings (main content,
block filter, languages), lets the workers featurize each page for the chosen detector,
finds every pair at or above the detector's threshold, clusters them (star clusters, as
SpotSigs runs do, without SpotSigs' corroboration and weak joins, which were tuned on its
similarity) and saves the run. Tags live on pages, so every tag survives a change of
method; clusters whose pages now carry differing tags are flagged for review as after
any re-run.

The run's parameters record the extraction settings, ``detector`` and
``detector_parameters`` (what a methods section needs), and ``tau``: the detector's
threshold on its own similarity scale, so reclustering and calibration work on it.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.clusters.clustering import cluster_pairs
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import Cluster, PageInfo, RunFilters, SkipRecord
from workbench.detect.detector import Detector
from workbench.detect.join.matcher import PairResult
from workbench.detect.registry import SPOTSIGS, make_detector
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.texts import read_texts
from workbench.usecases.pipeline import pending_run


@dataclass(frozen=True, slots=True)
class MethodChoice:
    """Which detector a run uses, with its constructor options and threshold (None: the
    detector's default)."""

    name: str = SPOTSIGS
    threshold: float | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def is_spotsigs(self) -> bool:
        return self.name == SPOTSIGS

    @classmethod
    def of_run(cls, method: str, params: dict | None) -> MethodChoice:
        """The choice a recorded run was made with (older runs: SpotSigs)."""
        params = params or {}
        name = str(params.get("detector") or method or SPOTSIGS)
        if name == SPOTSIGS:
            return cls()
        options = params.get("detector_options") or {}
        threshold = params.get("detector_threshold", params.get("tau"))
        return cls(name, None if threshold is None else float(threshold), dict(options))


@dataclass(slots=True)
class MethodResult:
    """A finished run of a detector other than SpotSigs, ready to save."""

    choice: MethodChoice
    detector: Detector
    params: SpotSigsParams  # extraction settings, with tau = the detector's threshold
    pages: list[PageInfo]
    skipped: list[SkipRecord]
    pairs: PairResult
    clusters: list[Cluster]
    timings: dict[str, float]

    def recorded_params(self) -> dict[str, Any]:
        """What the run records: every setting the result depends on."""
        d = self.params.to_dict()
        d["detector"] = self.choice.name
        d["detector_label"] = self.detector.label
        d["detector_similarity"] = self.detector.similarity
        d["detector_parameters"] = self.detector.parameters()
        d["detector_options"] = self.choice.options
        d["detector_threshold"] = self.params.tau
        return d


def run_method(
    root: Path | str,
    choice: MethodChoice,
    params: SpotSigsParams | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
) -> MethodResult:
    """Read ``root``, featurize every page for ``choice``'s detector, match and cluster."""
    if choice.is_spotsigs:
        raise ValueError("SpotSigs runs through workbench.usecases.pipeline.run_dedup")
    detector = make_detector(choice.name, **choice.options)
    threshold = detector.default_threshold() if choice.threshold is None else float(choice.threshold)
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"the threshold must be a similarity in (0, 1], not {threshold}")
    base = params or SpotSigsParams()
    # Only the corroboration, weak joins and hub splits are SpotSigs-specific; the pair
    # floor is the threshold (pairs below it are not looked for).
    params = dataclasses.replace(base, tau=threshold, pair_floor=threshold, cluster_method="star",
                                 corroborate_below=0.0, weak_join=0.0, hub_split=0.0)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    read = read_texts(root, params, progress, workers or os.cpu_count() or 1, detector=detector)
    timings["read+extract"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    progress("match", 0, None)
    pairs = detector.find_pairs(read.texts, threshold, progress)
    timings["match"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    progress("cluster", 0, None)
    clusters = cluster_pairs("star", len(read.pages), pairs.a, pairs.b, pairs.similarity, 0.0, threshold, 0.0)
    timings["cluster"] = time.perf_counter() - t2
    return MethodResult(choice, detector, params, read.pages, read.skipped, pairs, clusters, timings)


def run_method_into_project(project, root: Path | str, choice: MethodChoice,
                            params: SpotSigsParams | None = None, progress: ProgressFn = no_progress,
                            workers: int | None = None) -> tuple[MethodResult, int]:
    """:func:`run_method` saved into an open project as its current run; the settings are
    kept as a pending run until it is saved, as for SpotSigs runs."""
    base = params or SpotSigsParams()
    with pending_run(project, base, _pending_record(choice)):
        result = run_method(root, choice, base, progress, workers)
        run_id = project.save_run(result.recorded_params(), choice.name, result.timings, result.pages,
                                  result.pairs, result.clusters, progress=progress, filters=RunFilters(),
                                  skipped=result.skipped)
    return result, run_id


def _pending_record(choice: MethodChoice) -> dict[str, Any]:
    """What a pending run keeps beside its extraction settings, so a run killed half way
    is offered again with its own method and threshold."""
    return {"detector": choice.name, "detector_options": choice.options,
            "detector_threshold": choice.threshold}
