"""The k-gram features of ANDD (Hajishirzi, Yih and Kolcz, SIGIR 2010, Table 1).

A page is a sparse vector over its k-grams; each k-gram's weight is a linear function of
a few features of that k-gram in that page (:mod:`workbench.detect.andd.model`). The
features are Table 1's, as far as a page's kept text and title tell them:

========  ===================================================================
bias      1 for every k-gram
tf        log(1 + frequency of the k-gram in the page)
df        share of the collection's pages that have the k-gram (df / N)
idf       log((N + 1) / df) / log(N + 1): DF as its usual logarithm, in (0, 1]
loc       position of the k-gram's first occurrence / the page's tokens, in [0, 1)
len       log(1 + the page's tokens) / 10
cap       share of its occurrences whose first word starts with a capital
in_title  1 when the k-gram occurs in the page's <title> too
df_avg    (k > 1) average df / N of the k-gram's words
df_med    (k > 1) median df / N of the k-gram's words
========  ===================================================================

Left out: QF (query log frequency; there is no query log) and InURL (PageText carries no
URL). Every feature is scaled to about [0, 1] so no one of them dominates the starting
weights and the optimiser sees a well-conditioned problem; ``tf`` and ``idf`` are
logarithms because a linear weight on a raw count lets one repeated line swamp a page.
``df`` and ``idf`` are shares of the collection, so weights learned on one collection
carry over to another of a different size.

Document frequencies need the whole collection, so :func:`page_grams` (run per page in
a worker) keeps only per-page counts, and :func:`gram_matrix` adds the collection's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.detect.detector import PageText
from workbench.detect.spotsigs.hashing import chain_ids, signature_id
from workbench.text.tokenize import tokenize, words_of

_NAMESPACE = "andd"
BASE_FEATURES = ("bias", "tf", "df", "idf", "loc", "len", "cap", "in_title")
WORD_DF_FEATURES = ("df_avg", "df_med")
# ln(1 + 22,000 tokens) = 10: the longest pages come to about 1.
_LEN_SCALE = 10.0


def feature_names(k: int) -> tuple[str, ...]:
    """The features of a k-gram; the words' own frequencies only mean more when k > 1."""
    if k < 1:
        raise ValueError(f"k must be at least 1 (words per k-gram), not {k}")
    return BASE_FEATURES + (WORD_DF_FEATURES if k > 1 else ())


@dataclass(slots=True)
class PageGrams:
    """One page's distinct k-grams with what the page alone says of them (compact arrays).

    ``ids`` ascend. ``words`` (k > 1 only) holds the ids of each k-gram's words, one row a
    k-gram, for the words' document frequencies.
    """

    ids: np.ndarray  # int64 (g,)
    tf: np.ndarray  # int32 (g,)
    first: np.ndarray  # int32 (g,): token position of the first occurrence
    capitals: np.ndarray  # int32 (g,): occurrences whose first word is capitalised
    in_title: np.ndarray  # bool (g,)
    tokens: int  # the page's word tokens
    words: np.ndarray | None = None  # int64 (g, k), for k > 1

    def __len__(self) -> int:
        return len(self.ids)


def _word_hashes(words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(code of each word, uint64 id of each distinct word)."""
    codes: dict[str, int] = {}
    seq = np.fromiter((codes.setdefault(w, len(codes)) for w in words), dtype=np.int64,
                      count=len(words))
    ids = np.fromiter((signature_id(w) for w in codes), dtype=np.int64, count=len(codes))
    return seq, ids.view(np.uint64)


def _gram_ids(seq: np.ndarray, word_ids: np.ndarray, k: int) -> np.ndarray:
    """The id of every window of k words (int64, one per start position)."""
    if len(seq) < k:
        return np.empty(0, dtype=np.int64)
    windows = np.lib.stride_tricks.sliding_window_view(seq, k)
    return chain_ids(_NAMESPACE, word_ids, windows)


def page_grams(page: PageText, k: int = 1) -> PageGrams:
    """The page's k-grams of its kept text (lower-cased word tokens), with their counts."""
    toks = tokenize(page.text)
    seq, word_ids = _word_hashes(toks.words)
    grams = _gram_ids(seq, word_ids, k)
    if len(grams) == 0:
        empty = np.empty(0, dtype=np.int32)
        return PageGrams(np.empty(0, np.int64), empty, empty, empty, np.empty(0, bool),
                         len(toks), np.empty((0, k), np.int64) if k > 1 else None)
    text = page.text
    capital = np.fromiter((text[s].isupper() for s in toks.starts[: len(grams)]),
                          dtype=bool, count=len(grams))
    ids, first, inverse, tf = np.unique(grams, return_index=True, return_inverse=True,
                                        return_counts=True)
    capitals = np.bincount(inverse, weights=capital, minlength=len(ids))
    title_seq, title_word_ids = _word_hashes(words_of(page.title))
    in_title = np.isin(ids, _gram_ids(title_seq, title_word_ids, k))
    words = None
    if k > 1:
        starts = first[:, None] + np.arange(k)
        words = word_ids[seq[starts]].view(np.int64)
    return PageGrams(ids, tf.astype(np.int32), first.astype(np.int32),
                     capitals.astype(np.int32), in_title, len(toks), words)


@dataclass(slots=True)
class GramMatrix:
    """A collection's k-gram vectors before weighting (CSR, one row a page).

    ``col`` numbers the distinct k-grams 0..m-1 by descending document frequency (ties by
    id), ascending within each row: the order the exact join wants (most common first).
    ``values`` holds one row of features (``names``) per entry.
    """

    ptr: np.ndarray  # int64 (n + 1,)
    col: np.ndarray  # int64 (nnz,)
    values: np.ndarray  # float64 (nnz, features)
    df: np.ndarray  # int64 (m,): pages with each k-gram
    names: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.ptr) - 1

    def rows(self) -> np.ndarray:
        """The page of every entry."""
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ptr))

    def select_rows(self, keep: np.ndarray) -> GramMatrix:
        """The rows ``keep`` (in that order) as a matrix of their own; the columns and
        the collection's frequencies stay as they are."""
        sizes = np.diff(self.ptr)[keep]
        ptr = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(sizes, out=ptr[1:])
        offsets = np.arange(int(ptr[-1]), dtype=np.int64) - np.repeat(ptr[:-1], sizes)
        take = np.repeat(self.ptr[:-1][keep], sizes) + offsets
        return GramMatrix(ptr, self.col[take], self.values[take], self.df, self.names)


def _share_features(grams: Sequence[PageGrams], k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(average, median) df / N of each entry's words, in entry order."""
    words = np.concatenate([g.words for g in grams if g.words is not None and len(g)])
    owner = np.repeat(np.arange(len(grams)), [len(g) for g in grams])
    per_page = np.unique(np.stack([np.repeat(owner, k), words.ravel()]), axis=1)
    distinct, counts = np.unique(per_page[1], return_counts=True)
    share = counts[np.searchsorted(distinct, words)] / n  # (nnz, k)
    return share.mean(axis=1), np.median(share, axis=1)


def gram_matrix(grams: Sequence[PageGrams], k: int = 1) -> GramMatrix:
    """Every page's k-grams with their features, the collection's frequencies included."""
    names = feature_names(k)
    n = len(grams)
    sizes = np.fromiter((len(g) for g in grams), dtype=np.int64, count=n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    nnz = int(ptr[-1])
    if nnz == 0:
        return GramMatrix(ptr, np.empty(0, np.int64), np.empty((0, len(names))),
                          np.empty(0, np.int64), names)
    ids = np.concatenate([g.ids for g in grams])
    distinct, inverse, df = np.unique(ids, return_inverse=True, return_counts=True)
    # Rank by descending df: a k-gram's column is its rank.
    rank_of = np.empty(len(distinct), dtype=np.int64)
    rank_of[np.lexsort((distinct, -df))] = np.arange(len(distinct))
    col = rank_of[inverse]
    rows = np.repeat(np.arange(n, dtype=np.int64), sizes)
    order = np.lexsort((col, rows))
    entry_df = df[inverse]
    tokens = np.repeat(np.fromiter((g.tokens for g in grams), dtype=np.float64, count=n), sizes)
    tf = np.concatenate([g.tf for g in grams]).astype(np.float64)
    columns = {
        "bias": np.ones(nnz),
        "tf": np.log1p(tf),
        "df": entry_df / n,
        "idf": np.log((n + 1) / entry_df) / math.log(n + 1),
        "loc": np.concatenate([g.first for g in grams]) / tokens,
        "len": np.log1p(tokens) / _LEN_SCALE,
        "cap": np.concatenate([g.capitals for g in grams]) / tf,
        "in_title": np.concatenate([g.in_title for g in grams]).astype(np.float64),
    }
    if k > 1:
        columns["df_avg"], columns["df_med"] = _share_features(grams, k, n)
    values = np.stack([columns[name] for name in names], axis=1)
    ranked_df = np.empty(len(distinct), dtype=np.int64)
    ranked_df[rank_of] = df
    return GramMatrix(ptr, col[order], values[order], ranked_df, names)
