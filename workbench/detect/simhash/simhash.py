"""Simhash: near duplicates as 64-bit fingerprints a few bits apart (Manku, Jain & Das Sarma, WWW 2007).

Charikar's simhash (STOC 2002) maps a page's weighted features to 64 bits such that
similar pages get fingerprints with a small Hamming distance: every feature's 64-bit
hash votes on every bit, +weight where its bit is 1 and -weight where it is 0, and the
fingerprint keeps a 1 where the votes came out positive. Manku et al. fingerprint web
pages this way and call two pages near duplicates when their fingerprints differ in at
most k = 3 of the 64 bits; :mod:`workbench.detect.simhash.index` finds those pairs.

Features are the page's words (lower-cased ``\\w+``, as everywhere in the workbench) or,
on request, runs of ``shingle`` consecutive words. Weights are term frequencies, the
weighting Charikar's construction assumes and the one that needs no corpus statistics:
a page's fingerprint then depends on the page alone, so it can be made in any worker, in
any order, and a new page never changes an old page's fingerprint (the property the
paper's stream of crawled pages relies on).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from workbench.core.progress import ProgressFn, no_progress
from workbench.detect.detector import Detector, PageText
from workbench.detect.join.matcher import PairResult
from workbench.detect.simhash.index import BITS, pairs_within
from workbench.detect.spotsigs.hashing import mix_array
from workbench.text.tokenize import words_of

# Fixed odd constants (2^64 / golden ratio, and MurmurHash3's second multiplier): the
# hashes depend on nothing that changes between processes, runs or machines.
_POSITION = np.uint64(0x9E3779B97F4A7C15)
_LENGTH = np.uint64(0xC4CEB9FE1A85EC53)
_SHINGLE_SEED = np.uint64(0x5BD1E9955BD1E995)


def word_hashes(words: Sequence[str]) -> np.ndarray:
    """A stable 64-bit hash (uint64) of every word, all computed together.

    A word's UTF-8 bytes are read as little-endian 8-byte chunks (the last padded with
    zeros); each chunk, xor-ed with a key for its position, goes through the MurmurHash3
    finaliser, the chunks are xor-ed together, and the result is finalised once more
    with the byte length mixed in (so padding cannot make two words alike).
    """
    count = len(words)
    if count == 0:
        return np.empty(0, dtype=np.uint64)
    joined = "".join(words)
    if joined.isascii():
        data = joined.encode("ascii")
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=count)
    else:
        encoded = [word.encode("utf-8") for word in words]
        data = b"".join(encoded)
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=count)
    chunks = (lengths + 7) // 8
    first_chunk = np.cumsum(chunks) - chunks
    first_byte = np.cumsum(lengths) - lengths
    # Scatter every word's bytes to the start of its own run of 8-byte chunks.
    padded = np.zeros(int(chunks.sum()) * 8, dtype=np.uint8)
    offset = np.arange(len(data), dtype=np.int64) - np.repeat(first_byte, lengths)
    padded[np.repeat(first_chunk * 8, lengths) + offset] = np.frombuffer(data, dtype=np.uint8)
    values = padded.view("<u8").astype(np.uint64)
    position = (np.arange(len(values), dtype=np.int64) - np.repeat(first_chunk, chunks) + 1).astype(np.uint64)
    mixed = mix_array(values ^ (position * _POSITION))
    combined = np.bitwise_xor.reduceat(mixed, first_chunk)
    return mix_array(combined ^ (lengths.astype(np.uint64) * _LENGTH))


def features_of(words: Sequence[str], shingle: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The distinct features of a page's words (uint64 hashes) and how often each occurs
    (float64): the words themselves, or every run of ``shingle`` consecutive words (a
    page shorter than that is one feature)."""
    if shingle < 1:
        raise ValueError(f"a shingle is 1 or more words, not {shingle}")
    vocabulary: dict[str, int] = {}
    codes = np.fromiter((vocabulary.setdefault(word, len(vocabulary)) for word in words),
                        dtype=np.int64, count=len(words))
    hashes = word_hashes(list(vocabulary))
    if shingle == 1:
        return hashes, np.bincount(codes, minlength=len(hashes)).astype(np.float64)
    starts = max(1, len(codes) - shingle + 1)
    combined = np.full(starts, _SHINGLE_SEED, dtype=np.uint64)
    for offset in range(min(shingle, len(codes))):
        combined = mix_array(combined ^ hashes[codes[offset : offset + starts]])
    distinct, counts = np.unique(combined, return_counts=True)
    return distinct, counts.astype(np.float64)


def simhash(hashes: np.ndarray, weights: np.ndarray) -> int:
    """Charikar's fingerprint of features with these 64-bit hashes and weights: bit b is
    1 where the features with bit b set outweigh those without (a tie gives 0)."""
    bits = np.unpackbits(hashes.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    # float64 sums of integer term frequencies are exact (far below 2^53).
    with_bit = weights @ bits.astype(np.float64)
    ones = 2.0 * with_bit > weights.sum()
    return int(np.packbits(ones, bitorder="little").view("<u8")[0])


def fingerprint(text: str, shingle: int = 1) -> int | None:
    """The 64-bit simhash (0 .. 2^64 - 1) of ``text``'s words weighted by term frequency,
    or None when the text has no words (nothing to be a near duplicate of)."""
    words = words_of(text)
    if not words:
        return None
    return simhash(*features_of(words, shingle))


def distance_of(threshold: float) -> int:
    """The largest Hamming distance whose similarity 1 - d/64 is at least ``threshold``."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"a similarity threshold is between 0 and 1, not {threshold}")
    return int(np.floor((1.0 - threshold) * BITS + 1e-9))


class SimhashDetector(Detector):
    """Pages whose simhash fingerprints differ in at most k bits, found exactly."""

    name = "simhash"
    label = "simhash (Charikar, STOC 2002; Manku, Jain & Das Sarma, WWW 2007)"
    similarity = ("1 - Hamming distance / 64 between the pages' 64-bit simhash fingerprints "
                  "(words weighted by term frequency)")
    exact = True

    def __init__(self, k: int = 3, shingle: int = 1) -> None:
        if not 0 <= k <= BITS:
            raise ValueError(f"k is a number of bits from 0 to {BITS}, not {k}")
        if shingle < 1:
            raise ValueError(f"a shingle is 1 or more words, not {shingle}")
        self.k = k
        self.shingle = shingle

    def parameters(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "bits": BITS,
            "features": "words" if self.shingle == 1 else f"{self.shingle}-word shingles",
            "weights": "term frequency",
        }

    def default_threshold(self) -> float:
        return 1.0 - self.k / BITS

    def thresholds(self) -> Sequence[float]:
        """The similarities of Hamming distances 12 down to 0, ascending."""
        return [1.0 - d / BITS for d in range(12, -1, -1)]

    def featurize(self, page: PageText) -> np.uint64 | None:
        """The fingerprint of the page's text; None when it has no words (such a page
        pairs with nothing)."""
        fp = fingerprint(page.text, self.shingle)
        return None if fp is None else np.uint64(fp)

    def find_pairs(self, features: Sequence[Any], threshold: float,
                   progress: ProgressFn = no_progress) -> PairResult:
        """Every pair within Hamming distance floor((1 - threshold) * 64)."""
        k = distance_of(threshold)
        present = np.fromiter((i for i, fp in enumerate(features) if fp is not None), dtype=np.int64)
        fps = np.fromiter((int(features[i]) for i in present), dtype=np.uint64, count=len(present))
        found = pairs_within(fps, k, progress)
        # ``present`` ascends, so a < b still holds and the (a, b) order is kept.
        return PairResult(present[found.a], present[found.b], found.similarity, found.candidates)
