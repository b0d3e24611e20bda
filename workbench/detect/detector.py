"""One interface for every near-duplicate detector the workbench can run.

A detector turns each page's extracted text into features (in worker processes, one page
at a time, so the features must pickle) and then finds every pair of pages at or above a
similarity threshold, with that similarity, from all pages' features. Everything around
it is shared: reading and extraction before, clustering, the project file, the GUI and
export after. A run records the detector's ``name`` and ``parameters()`` so a methods
section can say exactly what was used.

Similarities are always in [0, 1], higher meaning more alike, so one threshold grid and
one precision-recall plot serve every method; a detector whose own measure is a distance
(simhash's Hamming distance, SigNCD's NCD) says in ``similarity`` how it was mapped.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.join.matcher import PairResult


@dataclass(frozen=True, slots=True)
class PageText:
    """What every detector reads of a page.

    ``text`` is the compared text: the page's kept blocks (its main content when that was
    found, without blocks that read like navigation), one block a line; the same text
    SpotSigs takes its signatures from. ``title`` is the page's <title> as written.
    ``language`` is the detected language code (None: undetermined).
    """

    text: str
    title: str = ""
    language: str | None = None


class Detector(ABC):
    """Features per page, then every pair at or above a threshold."""

    # Recorded as the run's method; also the name on the command line (--methods).
    name: ClassVar[str]
    # For people: the method and where it comes from, e.g. "simhash (Manku et al., WWW 2007)".
    label: ClassVar[str]
    # What the similarity is, in one line for a methods section.
    similarity: ClassVar[str]
    # False when pairs come from a randomised index (LSH) that may miss some above the
    # threshold; True when every pair at or above it is found.
    exact: ClassVar[bool] = True

    @abstractmethod
    def parameters(self) -> dict[str, Any]:
        """Everything the result depends on (JSON-serialisable), recorded with the run."""

    @abstractmethod
    def default_threshold(self) -> float:
        """The similarity threshold a run uses when none is given."""

    def thresholds(self) -> Sequence[float]:
        """The thresholds a comparison tries (ascending), to find the method's best."""
        return [round(0.05 * k, 2) for k in range(2, 20)] + [1.0]

    @abstractmethod
    def featurize(self, page: PageText) -> Any:
        """One page's features; runs in a worker process, so the result must pickle."""

    @abstractmethod
    def find_pairs(self, features: Sequence[Any], threshold: float,
                   progress: ProgressFn = no_progress) -> PairResult:
        """Every pair (a < b, indexes into ``features``) with similarity >= threshold.

        ``progress`` is called now and then (stage "match"); it raises Cancelled to stop.
        """
