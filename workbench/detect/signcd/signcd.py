"""SigNCD (Zhang, Yao, Ji and Fang 2016): compression distance between comma signatures.

Each page becomes the words before its commas (:mod:`workbench.detect.signcd.signature`),
and two pages are as alike as LZ4 finds their signatures: 1 - NCD, with P1 pruning the
pairs whose compressed sizes are too far apart
(:mod:`workbench.detect.signcd.compression_distance`). The paper's only parameter is the NCD
threshold tau; here the threshold is a similarity, 1 - tau.

Not taken from the paper: its Algorithm 1 skips a page once it was found a duplicate of
an earlier one ("checked"), which loses pairs; every pair at or above the threshold is
returned here. P2 (the triangle inequality) is left out: the paper measured it slower
than P1 alone (§5.3.2), and LZ4's NCD is not a metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.detector import Detector, PageText
from workbench.detect.join.matcher import PairResult
from workbench.detect.signcd.compression_distance import LZ4Size, ncd_pairs
from workbench.detect.signcd.signature import COMMAS, MIN_SPOTS, comma_signature

# The paper's best NCD threshold on the Gold Set, tau = 0.7 (§5.3.3, Figure 6).
PAPER_THRESHOLD = 0.3


class SigNCDFeatures(NamedTuple):
    """A page's signature (UTF-8) and its compressed size, computed once in the worker."""

    signature: bytes
    compressed_size: int


class SigNCDDetector(Detector):
    """SigNCD with P1 pruning; exact: every pair at or above the threshold is found."""

    name: ClassVar[str] = "signcd"
    label: ClassVar[str] = "SigNCD (Zhang et al. 2016)"
    similarity: ClassVar[str] = (
        "1 - NCD of the pages' comma signatures (the word before each comma) under LZ4, "
        "with C(xy) at least max(C(x), C(y)), clipped to [0, 1]")
    exact: ClassVar[bool] = True

    def __init__(self, level: int = 0) -> None:
        """``level``: 0 for LZ4's default fast mode, 1 to 12 for LZ4 HC at that level."""
        self._size = LZ4Size(level)

    def parameters(self) -> dict[str, Any]:
        return {
            "signature": "word before each comma (Sig-1L)",
            "commas": COMMAS,
            "min_spots": MIN_SPOTS,
            "compressor": "lz4 block, no size header",
            "lz4_level": self._size.level,
            "lz4_library": LZ4Size.library_version(),
            "concatenation": "larger signature first, C(xy) >= max(C(x), C(y))",
            "pruning": "P1",
        }

    def default_threshold(self) -> float:
        return PAPER_THRESHOLD

    def thresholds(self) -> Sequence[float]:
        # Similarity 0.05 to 1 in steps of 0.05: the paper's good range, tau 0.5 to 0.7,
        # is 0.3 to 0.5 here, and the dev Gold Set's best lies at 0.2.
        return [round(0.05 * k, 2) for k in range(1, 21)]

    def featurize(self, page: PageText) -> SigNCDFeatures:
        signature = comma_signature(page.text).encode("utf-8")
        return SigNCDFeatures(signature, self._size(signature))

    def find_pairs(self, features: Sequence[SigNCDFeatures], threshold: float,
                   progress: ProgressFn = no_progress) -> PairResult:
        signatures = [f.signature for f in features]
        sizes = np.fromiter((f.compressed_size for f in features), dtype=np.int64, count=len(features))
        return ncd_pairs(signatures, sizes, threshold, self._size, progress=progress)
