"""The detectors a run or a comparison can use, by the name a run records.

SpotSigs is listed first and is the default; it runs through its own pipeline
(:mod:`workbench.usecases.pipeline`), since its signatures are found per block during extraction so
that boilerplate can be dropped once the whole crawl is read. Every other method is a
:class:`~workbench.detect.detector.Detector` over the shared page texts. Detector modules
are imported on first use: a run of one method never pays for the others.
"""

from __future__ import annotations

import importlib
from typing import Any, cast

from workbench.detect.detector import Detector

SPOTSIGS = "spotsigs"

# name -> (module, class) of every Detector.
_DETECTORS: dict[str, tuple[str, str]] = {
    "simhash": ("workbench.detect.simhash.simhash", "SimhashDetector"),
    "minhash": ("workbench.detect.minhash", "MinHashDetector"),
    "imatch": ("workbench.detect.imatch", "IMatchDetector"),
    "signcd": ("workbench.detect.signcd.signcd", "SigNCDDetector"),
    "andd": ("workbench.detect.andd.andd", "AnddDetector"),
}

METHODS: tuple[str, ...] = (SPOTSIGS, *_DETECTORS)


def parse_methods(text: str) -> list[str]:
    """``spotsigs,simhash`` -> the names, checked, in the order given, without repeats."""
    names: list[str] = []
    for part in text.split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise ValueError(f"no method named; choose from {', '.join(METHODS)}")
    return names


def make_detector(name: str, **options: Any) -> Detector:
    """A detector by its name, with its constructor's options (none: its defaults)."""
    try:
        module, cls = _DETECTORS[name]
    except KeyError:
        raise ValueError(f"{name!r} is not a text detector; choose from {', '.join(_DETECTORS)}") from None
    # Every class _DETECTORS names is a subclass of Detector.
    detector_class = cast(type[Detector], getattr(importlib.import_module(module), cls))
    return detector_class(**options)
