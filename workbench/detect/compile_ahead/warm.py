"""Run what a detection runs, on a small crawl made from the demo archive shipped with the
workbench, so that numba compiles and caches every type signature a real run uses.

Calling each compiled function with made-up arguments would have to guess the types a run
passes (which differ with the data: counts are uint8, uint16 or int32 as they fit); a real
run through the same code passes exactly those. The crawl is the demo archive with a few
pages made to take the paths it does not (``crawl``). The paths:

1. a SpotSigs detection saved into a scratch project, in this process: reading,
   extraction, boilerplate, filters, the join, clustering, saving;
2. the same crawl extracted by worker processes (the fork server or spawned workers,
   as a real run starts them), with their own reading of files;
3. a run of every other detector (simhash, ANDD, ...) the window and ``--method`` offer,
   and ANDD's training on clusters.

A path that fails is reported and the others still run: a warm-up is only ever a saving.
"""

from __future__ import annotations

import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workbench.detect.compile_ahead.cache_state import loadable_versions
from workbench.detect.compile_ahead.crawl import write_crawl
from workbench.detect.compile_ahead.discover import (
    CachedFunction,
    cached_functions,
    compiled_on_own,
    live_cached_functions,
)


@dataclass
class WarmReport:
    """What a warm-up did, by function: ``compiled`` now load from the cache; ``cold`` are
    in modules a warmed path imported but have no version this machine can load (a path
    the warm-up crawl does not take); ``elsewhere`` are in modules no warmed path uses."""

    seconds: float = 0.0
    compiled: list[CachedFunction] = field(default_factory=list)
    cold: list[CachedFunction] = field(default_factory=list)
    elsewhere: list[CachedFunction] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def warm(workers: int = 2) -> WarmReport:
    """Run every path on the warm-up crawl and say what is cached."""
    from workbench.resources import DEMO_ARCHIVE

    report = WarmReport()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="workbench-warm-") as scratch:
        root = write_crawl(DEMO_ARCHIVE, Path(scratch) / "crawl")
        for path in (_detection_into_project, _extraction_in_workers, _other_detectors, _andd_training):
            _run_path(path, root, workers, report)
    report.seconds = time.perf_counter() - started
    _sort_functions(report)
    return report


def _run_path(path: Callable[[Path, int], None], root: Path, workers: int, report: WarmReport) -> None:
    try:
        path(root, workers)
    except Exception:  # noqa: BLE001 - reported; the other paths still warm
        report.failures.append(f"{path.__name__}: {traceback.format_exc(limit=-3).strip()}")


def _detection_into_project(root: Path, workers: int) -> None:
    """A detection in this process (one worker: a small archive is extracted here anyway)."""
    from workbench.store import Project
    from workbench.usecases.pipeline import run_into_project

    with tempfile.TemporaryDirectory(prefix="workbench-warm-") as scratch, \
            Project.create(Path(scratch) / "warm-up.wbproj", str(root)) as project:
        run_into_project(project, root, workers=1)


def _extraction_in_workers(root: Path, workers: int) -> None:
    """Reading and extraction as worker processes do them, however small the archive."""
    from workbench.core.progress import no_progress
    from workbench.detect.spotsigs.params import SpotSigsParams
    from workbench.detect.workers.parallel import read_and_extract

    read_and_extract(root, SpotSigsParams(), no_progress, max(2, workers), small_here=False)


def _other_detectors(root: Path, workers: int) -> None:
    from workbench.detect.registry import METHODS, SPOTSIGS
    from workbench.detect.simhash.index import MAX_TABLE_K
    from workbench.usecases.detector_run import MethodChoice, run_method

    for name in METHODS:
        if name != SPOTSIGS:
            run_method(root, MethodChoice(name), workers=1)
    # simhash's other compiled path: comparing every pair, which it takes for a k beyond its
    # permuted tables (and for crawls where the tables would not save anything).
    run_method(root, MethodChoice("simhash", options={"k": MAX_TABLE_K + 1}), workers=1)


def _andd_training(root: Path, workers: int) -> None:
    """ANDD's weights learned from clusters, as the window learns them from checked ones
    (here the clusters of an untrained ANDD run stand in for the coder's)."""
    from workbench.core.progress import no_progress
    from workbench.detect.andd.train import train_grams
    from workbench.detect.registry import make_detector
    from workbench.detect.spotsigs.params import SpotSigsParams
    from workbench.detect.texts import read_texts
    from workbench.usecases.detector_run import MethodChoice, run_method

    grams = read_texts(root, SpotSigsParams(), no_progress, 1, detector=make_detector("andd")).texts
    clusters = run_method(root, MethodChoice("andd"), workers=1).clusters
    train_grams(grams, [c.members for c in clusters if len(c.members) > 1])


def _sort_functions(report: WarmReport) -> None:
    # Read from the sources, and found on the imported modules (a bundle has no sources).
    for function in compiled_on_own(sorted(set(cached_functions()) | set(live_cached_functions()))):
        if function.module not in sys.modules:
            report.elsewhere.append(function)
        elif loadable_versions(function.dispatcher()) > 0:
            report.compiled.append(function)
        else:
            report.cold.append(function)
