"""Learn ANDD weights from a project's coder and see what a re-run would change (no Qt).

The steps behind a "Learn from my clusters" action, none of which writes to the project:
the coder's judgements in the current run (:func:`labelled_from_project`), moved onto the
pages of the archive as read again; weights trained on them (with the threshold that
separated the coder's clusters best); every pair at or above it; clusters made as the
current run made them; and the merges and splits from the current clusters (hand edits
included) to the new ones. Applying is the caller's: save the result as a new run,

    project.save_run(rerun.params, "andd", rerun.timings, rerun.pages, rerun.pairs,
                     rerun.clusters, skipped=rerun.skipped)

which keeps the current run in the project and moves the tags with their pages, as any
detection run does.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.clusters.andd_preview import Changes, preview_changes
from workbench.core.clusters.clustering import cluster_pairs
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import Cluster, PageInfo, SkipRecord
from workbench.detect.andd.andd import AnddDetector
from workbench.detect.andd.features import PageGrams
from workbench.detect.andd.labels import Labelled, labelled_from_project
from workbench.detect.andd.model import AnddWeights
from workbench.detect.andd.train import NOTHING_CHECKED, train_grams
from workbench.detect.join.matcher import PairResult

if TYPE_CHECKING:
    from workbench.detect.texts import Texts
    from workbench.store import Project


@dataclass(slots=True)
class Rerun:
    """A re-run with learned weights, ready to preview and, if the coder wants, to save."""

    labelled: Labelled  # what was learned from, numbered as ``pages``
    weights: AnddWeights
    threshold: float
    cluster_method: str
    pages: list[PageInfo]
    skipped: list[SkipRecord]
    pairs: PairResult
    clusters: list[Cluster]
    changes: Changes
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, Any]:
        """What the run depends on, for ``save_run`` (JSON-able; the weights included)."""
        return {**AnddDetector(self.weights).parameters(), "tau": self.threshold,
                "cluster_method": self.cluster_method}


def plan_rerun(project: Project, texts: Texts, *, features: Sequence[PageGrams] | None = None,
               threshold: float | None = None, k: int = 1,
               progress: ProgressFn = no_progress) -> Rerun:
    """Train on the coder's clusters in ``project``'s current run and re-run ``texts``
    (the project's archive read with ``read_texts``; ``features``: its pages' k-grams if
    already made, e.g. by workers with ``AnddDetector(k=k).featurize``).

    ``threshold``: the cosine to cut at (default: the one learned). Raises ValueError
    (with what the coder should do) when nothing checked can be learned from.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    labelled = labelled_from_project(project).reindexed([p.key for p in texts.pages])
    if not labelled.positive_pairs:
        raise ValueError(NOTHING_CHECKED)  # before the work, not after it
    if features is None:
        unit = AnddDetector(k=k)
        made: list[PageGrams] = []
        for i, text in enumerate(texts.texts):
            made.append(unit.featurize(text))
            if i % 200 == 0:
                progress("featurize", i, len(texts.texts))
        features = made
    timings["featurize"] = time.perf_counter() - started
    started = time.perf_counter()
    progress("train", 0, None)
    weights = train_grams(features, labelled.groups, labelled.negatives, k=k)
    timings["train"] = time.perf_counter() - started
    detector = AnddDetector(weights)
    tau = detector.default_threshold() if threshold is None else threshold
    started = time.perf_counter()
    pairs = detector.find_pairs(features, tau, progress)
    timings["match"] = time.perf_counter() - started
    started = time.perf_counter()
    run = project.current_run()
    method = str(run.params.get("cluster_method", "star")) if run is not None else "star"
    # The current run's other clustering settings are on its own similarity's scale (a
    # SpotSigs Jaccard), so none of them carries over to a cosine.
    clusters = cluster_pairs(method, len(texts.pages), pairs.a, pairs.b, pairs.similarity)
    timings["cluster"] = time.perf_counter() - started
    changes = preview_changes(texts.pages, labelled.clusters, clusters)
    return Rerun(labelled, weights, tau, method, list(texts.pages), list(texts.skipped), pairs,
                 clusters, changes, timings)
