"""Reused passages: the runs of words two texts share, verbatim or with small edits.

Seed and extend, the method of text-reuse tools such as passim (and of BLAST before
them): every run of ``seed`` words found in both texts is a seed; seeds that follow one
another at the same offset between the texts make one exact run, grown word by word at
both ends; runs a few differing words apart on both sides (a changed, added or dropped
word, at most ``max_gap``) join into one passage; a passage with fewer than
``min_words`` words matched exactly is dropped, so a stock phrase two unrelated stories
both use is no passage. Punctuation is no word, so a changed comma or quote mark
changes nothing.

The texts are word lists (lower-cased, as :func:`workbench.text.tokenize.tokenize`
gives them): the side-by-side view passes the compared words of two pages (their kept
blocks), the export the same words read again. Nothing here knows of runs or clusters,
so any two pages can be aligned (a cluster's reference and a member, or a related pair).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

SEED = 5  # words in a seed: shorter seeds match stock phrases of unrelated stories
MAX_GAP = 4  # differing words between two runs of one passage, on each side
MIN_WORDS = 10  # words matched exactly for a passage to count
# A seed found more often than this in either text (a list's repeated line, a menu left
# in the kept text) would pair every copy with every other: it seeds nothing, though a
# run through it still grows over it.
MAX_REPEATS = 8


@dataclass(frozen=True, slots=True)
class Passage:
    """Words ``[a_start, a_end)`` of text a reused as words ``[b_start, b_end)`` of text b.

    ``matched``: how many of them are the same words in the same order (the rest are the
    small edits inside the passage)."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    matched: int


@dataclass(frozen=True, slots=True)
class Alignment:
    """The passages of two texts, in the order of text b, and how much of each they cover."""

    passages: tuple[Passage, ...]
    a_words: int
    b_words: int
    a_covered: int  # words of a inside some passage (each counted once)
    b_covered: int

    @property
    def share_of_a(self) -> float | None:
        """The share of text a's words that text b carries (None: a has no words)."""
        return self.a_covered / self.a_words if self.a_words else None

    @property
    def share_of_b(self) -> float | None:
        """The share of text b's words that come from text a (None: b has no words)."""
        return self.b_covered / self.b_words if self.b_words else None


def align(a: Sequence[str], b: Sequence[str], *, seed: int = SEED, max_gap: int = MAX_GAP,
          min_words: int = MIN_WORDS) -> Alignment:
    """The passages text ``b`` shares with text ``a`` (word lists)."""
    runs = _exact_runs(a, b, seed)
    passages = [p for p in _join(runs, max_gap) if p.matched >= min_words]
    passages.sort(key=lambda p: (p.b_start, p.a_start))
    return Alignment(tuple(passages), len(a), len(b),
                     _covered([(p.a_start, p.a_end) for p in passages]),
                     _covered([(p.b_start, p.b_end) for p in passages]))


def _grams(words: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return list(zip(*(words[k:] for k in range(n)), strict=False))


def _exact_runs(a: Sequence[str], b: Sequence[str], n: int) -> list[tuple[int, int, int]]:
    """Maximal runs of equal words, as (a_start, b_start, length), ordered by a_start.

    Seeds are chained along their diagonal (b position minus a position): a seed that
    starts one word after the last seed of a run on its diagonal continues that run."""
    grams_a, grams_b = _grams(a, n), _grams(b, n)
    if not grams_a or not grams_b:
        return []
    where: dict[tuple[str, ...], list[int]] = {}
    for i, gram in enumerate(grams_a):
        where.setdefault(gram, []).append(i)
    in_b = Counter(grams_b)
    # Per diagonal, the run being grown: [a_start, b_start, last seed's b position].
    growing: dict[int, list[int]] = {}
    seeded: list[list[int]] = []
    for j, gram in enumerate(grams_b):
        hits = where.get(gram)
        if hits is None or len(hits) > MAX_REPEATS or in_b[gram] > MAX_REPEATS:
            continue
        for i in hits:
            run = growing.get(j - i)
            if run is not None and run[2] == j - 1:
                run[2] = j
            else:
                run = [i, j, j]
                growing[j - i] = run
                seeded.append(run)
    found: dict[tuple[int, int], tuple[int, int, int]] = {}
    for i, j, last in seeded:
        length = last - j + n
        # Grow over words the seeds could not cover: fewer than n equal words before the
        # first seed or after the last, or a seed left out as too frequent.
        while i > 0 and j > 0 and a[i - 1] == b[j - 1]:
            i, j, length = i - 1, j - 1, length + 1
        while i + length < len(a) and j + length < len(b) and a[i + length] == b[j + length]:
            length += 1
        found[(i, j)] = (i, j, length)  # two seeded runs grown into one are kept once
    return sorted(found.values())


def _join(runs: list[tuple[int, int, int]], max_gap: int) -> list[Passage]:
    """Runs in a_start order joined into passages: a run that starts at most ``max_gap``
    words after a passage ends (or overlaps its end by as much), on both sides, and goes
    on past that end, extends the passage."""
    done: list[Passage] = []
    open_: list[list[int]] = []  # [a_start, a_end, b_start, b_end, matched]
    for i, j, length in runs:
        a_end, b_end = i + length, j + length
        # Runs come in a_start order: a passage that ends too far before this run is done.
        done += [_passage(p) for p in open_ if p[1] + max_gap < i]
        open_ = [p for p in open_ if p[1] + max_gap >= i]
        best, best_gap = None, max_gap + 1
        for p in open_:
            gap_a, gap_b = i - p[1], j - p[3]
            gap = max(abs(gap_a), abs(gap_b))
            if gap < best_gap and a_end > p[1] and b_end > p[3]:
                best, best_gap = p, gap
        if best is None:
            open_.append([i, a_end, j, b_end, length])
            continue
        # Words of the run already inside the passage are not counted twice.
        best[4] += length - max(0, best[3] - j, best[1] - i)
        best[1], best[3] = max(best[1], a_end), max(best[3], b_end)
        best[0], best[2] = min(best[0], i), min(best[2], j)
    done += [_passage(p) for p in open_]
    return done


def _passage(p: list[int]) -> Passage:
    return Passage(p[0], p[1], p[2], p[3], p[4])


def _covered(ranges: list[tuple[int, int]]) -> int:
    """Words inside the union of the ranges."""
    total, reach = 0, 0
    for lo, hi in sorted(ranges):
        lo = max(lo, reach)
        if hi > lo:
            total += hi - lo
            reach = hi
    return total
