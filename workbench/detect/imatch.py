"""I-Match (Chowdhury, Frieder, Grossman and McCabe, TOIS 2002): one hash per page.

A page's terms are its lower-cased ``\\w+`` words, without English stopwords and
without tokens that contain no letter (numbers), the filtering the SpotSigs paper's
I-Match baseline describes ("tokens filtered by stopwords, special-character tokens, and
IDF"). Of these only the terms in the middle band of collection idf are kept, with idf
normalised as in the SpotSigs paper, idf = log(N / df) / log(N). The band is
[0.4, 0.75] by default: the SpotSigs paper found it best for I-Match on the Gold Set
("essentially confirming" Chowdhury et al.) and the ANDD paper used it for its I-Match
baseline too; very common terms (low idf) say little about a page and very rare ones
(high idf: typos, names in one page's teaser) break the equality between near copies.

The sorted set of a page's kept terms is hashed with SHA-1 into its signature; pages
with the same signature are duplicates (similarity 1.0) and no other pair is. A page
needs ``min_terms`` kept terms for a signature (the papers' minimum document length:
a page reduced to a term or two says nothing of its content); pages without one are
never paired. idf needs the whole collection, so a page's features are its terms (ids)
and the band is applied in :meth:`IMatchDetector.find_pairs`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from workbench.core.distinct import distinct
from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.detector import Detector, PageText
from workbench.detect.join.matcher import PairResult
from workbench.detect.spotsigs.hashing import signature_id
from workbench.text.stopwords import ENGLISH_STOPWORDS
from workbench.text.tokenize import words_of

_PROGRESS_STEP = 2048  # pages between progress calls (each may cancel)
# Powers such as 10_000 ** 0.25 come out a hair off 10 in floating point.
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class IMatchFeatures:
    """A page's distinct terms as 64-bit ids (int64, sorted)."""

    terms: np.ndarray


def page_terms(text: str) -> np.ndarray:
    """The ids of the distinct terms of ``text``: words with a letter, not stopwords."""
    words = {w for w in words_of(text) if w not in ENGLISH_STOPWORDS and any(c.isalpha() for c in w)}
    return distinct(np.fromiter((signature_id(w) for w in words), dtype=np.int64, count=len(words)))


def kept_df_range(pages: int, idf_low: float, idf_high: float) -> tuple[int, int]:
    """The document frequencies whose normalised idf lies in [idf_low, idf_high].

    log(N/df)/log(N) >= idf_low  <=>  df <= N ** (1 - idf_low), and
    log(N/df)/log(N) <= idf_high <=>  df >= N ** (1 - idf_high).
    """
    if pages < 2:  # log(1) = 0: no idf; one page has no duplicate anyway
        return 1, 1
    low = math.ceil(pages ** (1.0 - idf_high) - _EPS)
    high = math.floor(pages ** (1.0 - idf_low) + _EPS)
    return max(low, 1), high


def signatures(features: Sequence[IMatchFeatures], idf_low: float, idf_high: float, min_terms: int = 1,
               progress: ProgressFn = no_progress) -> list[bytes | None]:
    """Each page's I-Match signature (SHA-1 of its sorted kept term ids), or None when it
    keeps fewer than ``min_terms`` terms."""
    n = len(features)
    if n == 0:
        return []
    sizes = np.fromiter((len(f.terms) for f in features), dtype=np.int64, count=n)
    terms = np.concatenate([f.terms for f in features]) if sizes.sum() else np.empty(0, np.int64)
    _, inverse, df = np.unique(terms, return_inverse=True, return_counts=True)
    low, high = kept_df_range(n, idf_low, idf_high)
    kept_df = df[inverse]
    keep = (kept_df >= low) & (kept_df <= high)
    ends = np.cumsum(sizes)
    out: list[bytes | None] = []
    for i in range(n):
        if i % _PROGRESS_STEP == 0:
            progress("match", i, n)
        lo, hi = int(ends[i] - sizes[i]), int(ends[i])
        kept = terms[lo:hi][keep[lo:hi]]  # still ascending: each page's ids are sorted
        if len(kept) < max(min_terms, 1):
            out.append(None)
        else:
            out.append(hashlib.sha1(kept.astype("<i8").tobytes()).digest())
    progress("match", n, n)
    return out


class IMatchDetector(Detector):
    """Pages with the same SHA-1 of their mid-idf terms are duplicates."""

    name: ClassVar[str] = "imatch"
    label: ClassVar[str] = "I-Match (Chowdhury et al., TOIS 2002)"
    similarity: ClassVar[str] = (
        "1.0 when the SHA-1 of the two pages' sets of mid-idf terms is the same; other pairs are not reported"
    )
    exact: ClassVar[bool] = True

    def __init__(self, idf_low: float = 0.4, idf_high: float = 0.75, min_terms: int = 1) -> None:
        if not 0.0 <= idf_low <= idf_high <= 1.0:
            raise ValueError(f"the idf band must satisfy 0 <= low <= high <= 1, not [{idf_low}, {idf_high}]")
        if min_terms < 1:
            raise ValueError(f"a signature needs at least one term, not {min_terms}")
        self.idf_low = idf_low
        self.idf_high = idf_high
        self.min_terms = min_terms

    def parameters(self) -> dict[str, Any]:
        return {
            "idf_low": self.idf_low,
            "idf_high": self.idf_high,
            "min_terms": self.min_terms,
            "terms": "distinct lower-cased \\w+ words with a letter, English stopwords left out",
            "idf": "log(N/df)/log(N) over the run's pages",
            "signature": "SHA-1 of the sorted 64-bit ids of the kept terms",
        }

    def default_threshold(self) -> float:
        return 1.0

    def thresholds(self) -> Sequence[float]:
        return [1.0]

    def featurize(self, page: PageText) -> IMatchFeatures:
        return IMatchFeatures(page_terms(page.text))

    def find_pairs(self, features: Sequence[Any], threshold: float,
                   progress: ProgressFn = no_progress) -> PairResult:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"the similarity threshold must be in (0, 1], not {threshold}")
        groups: dict[bytes, list[int]] = {}
        page_signatures = signatures(features, self.idf_low, self.idf_high, self.min_terms, progress)
        for i, signature in enumerate(page_signatures):
            if signature is not None:
                groups.setdefault(signature, []).append(i)
        a: list[np.ndarray] = []
        b: list[np.ndarray] = []
        for members in groups.values():
            if len(members) > 1:
                ids = np.asarray(members, dtype=np.int64)  # ascending: pages were visited in order
                x, y = np.triu_indices(len(ids), k=1)
                a.append(ids[x])
                b.append(ids[y])
        if not a:
            empty = np.empty(0, np.int64)
            return PairResult(empty, empty.copy(), np.empty(0))
        pa, pb = np.concatenate(a), np.concatenate(b)
        order = np.lexsort((pb, pa))
        return PairResult(pa[order], pb[order], np.ones(len(pa)), candidates=0)
