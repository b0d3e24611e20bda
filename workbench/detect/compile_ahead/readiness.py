"""Whether a detection would compile anything: every cached numba function in the modules a
SpotSigs detection imports has a version in the cache this machine can load.

Only those modules count: a function of a detector nobody picked (or of a benchmark-only
module) would otherwise keep the cache "cold" forever and the warm-up running at every
start. Checking imports the detection's modules (about a second), not numba's compiler.
The functions are those read from the sources and those found on the imported modules
(a frozen bundle has no sources to read).
"""

from __future__ import annotations

import importlib
import sys

from workbench.detect.compile_ahead.cache_state import loadable_versions
from workbench.detect.compile_ahead.discover import (
    CachedFunction,
    cached_functions,
    compiled_on_own,
    live_cached_functions,
)

# What a detection imports: the pipeline (main process) and the workers' preloads.
DETECTION_MODULES = ("workbench.usecases.pipeline", "workbench.detect.spotsigs.extract",
                     "workbench.archive.worker")


def detection_functions() -> list[CachedFunction]:
    """The cached functions of every module a detection imports."""
    for module in DETECTION_MODULES:
        importlib.import_module(module)
    read = {f for f in cached_functions() if f.module in sys.modules}
    return sorted(compiled_on_own(list(read | set(live_cached_functions()))))


def cold_detection_functions() -> list[CachedFunction]:
    """Those of them with no version this machine can load from the cache."""
    return [f for f in detection_functions() if loadable_versions(f.dispatcher()) == 0]


def detection_is_warm() -> bool:
    return not cold_detection_functions()
