"""The corpus boilerplate rule written page by page and block by block, as it was first
built: the definition the array version (workbench/detect/spotsigs/corpus_boilerplate.py) is
tested against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


def reference_corpus_boilerplate(
    block_hashes: Sequence[np.ndarray],
    block_weights: Sequence[np.ndarray],
    min_pages: int,
    max_core_share: float = 0.5,
    sample: int = 200,
    min_own_share: float = 0.0,
) -> np.ndarray:
    if not block_hashes or not sum(len(h) for h in block_hashes):
        return np.empty(0, np.int64)
    weight_of = [_weights(h, w) for h, w in zip(block_hashes, block_weights, strict=True)]
    pages_of: dict[int, list[int]] = {}
    for p, weights in enumerate(weight_of):
        for h in weights:
            pages_of.setdefault(h, []).append(p)
    cores: dict[int, tuple[list[int], set[int]]] = {}
    for h, pages in pages_of.items():
        if len(pages) < max(min_pages, 2):
            continue
        if len(pages) > sample:
            pages = [pages[int(k)] for k in np.linspace(0, len(pages) - 1, sample)]
        seen: dict[int, int] = {}
        for p in pages:
            for b in weight_of[p]:
                seen[b] = seen.get(b, 0) + 1
        core = {b for b, n in seen.items() if 2 * n >= len(pages)}
        if _median_share(pages, core, weight_of, set()) <= max_core_share:
            cores[h] = (pages, core)
    first = set(cores)
    own = [sum(w for b, w in weights.items() if len(pages_of[b]) == 1) / max(sum(weights.values()), 1e-9)
           for weights in weight_of]
    out = [h for h, (pages, core) in cores.items()
           if _median_share(pages, core, weight_of, first) <= max_core_share
           and float(np.median([own[p] for p in pages])) >= min_own_share]
    return np.asarray(sorted(out), dtype=np.int64)


def _weights(hashes: np.ndarray, weights: np.ndarray) -> dict[int, float]:
    out: dict[int, float] = {}
    for h, w in zip(np.asarray(hashes).tolist(), np.asarray(weights, np.float64).tolist(), strict=True):
        out[h] = out.get(h, 0.0) + w
    return out


def _median_share(pages: list[int], core: set[int], weight_of: list[dict[int, float]],
                  ignore: set[int]) -> float:
    shares = []
    for p in pages:
        in_core = rest = 0.0
        for b, w in weight_of[p].items():
            if b in core:
                in_core += w
            elif b not in ignore:
                rest += w
        if in_core + rest > 0:
            shares.append(in_core / (in_core + rest))
    return float(np.median(shares)) if shares else 1.0


@dataclass
class DrawnCorpus:
    """A random corpus and settings for the corpus boilerplate (:func:`draw_corpus`)."""

    hashes: list[np.ndarray]
    weights: list[np.ndarray]
    min_pages: int
    core: float
    own: float
    sample: int


def draw_corpus(data: Any, min_n: int = 0, samples: Sequence[int] = (3, 5, 200)) -> DrawnCorpus:
    """Random corpora of a few block kinds (banners, story paragraphs, own text: 13 block
    hashes over up to 30 pages, repeated on a page too), and every setting of the rule,
    drawn with hypothesis's ``st.data()``."""
    from hypothesis import strategies as st

    n = data.draw(st.integers(min_n, 30))
    hashes = [np.array(data.draw(st.lists(st.integers(0, 12), max_size=7)), dtype=np.int64) for _ in range(n)]
    weights = [np.array(data.draw(st.lists(st.integers(0, 9), min_size=len(h), max_size=len(h))),
                        dtype=np.int64) for h in hashes]
    min_pages = data.draw(st.integers(1, 6))
    core = data.draw(st.sampled_from([0.2, 0.35, 0.5, 0.8]))
    own = data.draw(st.sampled_from([0.0, 0.25, 0.5]))
    return DrawnCorpus(hashes, weights, min_pages, core, own, data.draw(st.sampled_from(list(samples))))
