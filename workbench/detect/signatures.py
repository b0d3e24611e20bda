"""Spot signature extraction (SpotSigs, SIGIR'08 §3.1).

At every occurrence of an antecedent word ``a`` with spec ``a(d, c)`` we build a
chain of ``c`` non-stopwords: step ``d`` words on, and if the word there is a
stopword move on to the next non-stopword; repeat from there. A chain that runs
past the end of its text is cut, and kept if it found at least one word.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from workbench.detect.hashing import signature_id
from workbench.detect.params import AntecedentSpec, SpotSigsParams
from workbench.text.html import Block, Extracted
from workbench.text.stopwords import ENGLISH_STOPWORDS
from workbench.text.tokenize import Tokens, tokenize, words_of


@dataclass(frozen=True, slots=True)
class Spot:
    """One signature occurrence: token indexes of the antecedent and its chain."""

    text: str  # readable form, e.g. "the:south:carolina"
    antecedent: int
    chain: tuple[int, ...]


def _by_word(specs: Iterable[AntecedentSpec]) -> dict[str, list[AntecedentSpec]]:
    out: dict[str, list[AntecedentSpec]] = {}
    for spec in specs:
        out.setdefault(spec.word, []).append(spec)
    return out


def spots_in(
    words: Sequence[str],
    specs: Iterable[AntecedentSpec] | dict[str, list[AntecedentSpec]],
    stopwords: frozenset[str] = ENGLISH_STOPWORDS,
    start: int = 0,
    end: int | None = None,
) -> list[Spot]:
    """Spot signatures of ``words[start:end]``; chains never leave that range."""
    end = len(words) if end is None else end
    table = specs if isinstance(specs, dict) else _by_word(specs)
    out: list[Spot] = []
    for i in range(start, end):
        for spec in table.get(words[i], ()):
            chain: list[int] = []
            pos = i
            for _ in range(spec.chain):
                pos += spec.distance
                while pos < end and words[pos] in stopwords:
                    pos += 1
                if pos >= end:
                    break
                chain.append(pos)
            if chain:
                text = ":".join([words[i], *(words[p] for p in chain)])
                out.append(Spot(text, i, tuple(chain)))
    return out


def kept_blocks(extracted: Extracted, params: SpotSigsParams) -> list[Block]:
    """The blocks signatures are taken from: the main content when it was found (else the
    whole page), without those that read like navigation (short, or mostly links)."""
    blocks = extracted.blocks
    if params.main_content and extracted.main_found:
        blocks = [b for b in blocks if b.main]
    if not params.block_filter:
        return list(blocks)
    return [b for b in blocks if b.words >= params.min_block_words and b.link_ratio <= params.max_link_ratio]


@dataclass(slots=True)
class PageSpots:
    """Tokens of the whole text and the spots found in it (for display).

    ``spot_block[i]`` indexes ``block_ids``: the id of the kept block where spot i's
    antecedent stands (the same id the site boilerplate filter uses).
    """

    tokens: Tokens
    spots: list[Spot]
    spot_block: list[int] = field(default_factory=list)
    block_ids: list[int] = field(default_factory=list)


def page_spots(extracted: Extracted, params: SpotSigsParams) -> PageSpots:
    """Every spot of a page with token spans into ``extracted.text`` (for display)."""
    words: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    ranges: list[tuple[int, int]] = []
    blocks = kept_blocks(extracted, params)
    for b in blocks:
        t = tokenize(extracted.text, b.start, b.end)
        ranges.append((len(words), len(words) + len(t)))
        words += t.words
        starts += t.starts
        ends += t.ends
    spots = _spots_over(words, ranges, params)
    firsts = [lo for lo, _ in ranges]
    where = [bisect_right(firsts, sp.antecedent) - 1 for sp in spots]
    ids = [block_id(extracted.text, b) for b in blocks]
    return PageSpots(Tokens(words, starts, ends), spots, where, ids)


def block_id(text: str, block: Block) -> int:
    """A block's id for the site boilerplate filter: the hash of its lower-cased text."""
    return signature_id(text[block.start : block.end].lower())


def page_signatures(extracted: Extracted, params: SpotSigsParams) -> list[Spot]:
    """The same spots as :func:`page_spots`, without keeping spans (the fast path)."""
    return block_signatures(extracted, params)[0]


def block_signatures(
    extracted: Extracted, params: SpotSigsParams
) -> tuple[list[Spot], list[int], list[Block]]:
    """Spots, the index (into the kept blocks) of each spot's antecedent, and the kept blocks."""
    words: list[str] = []
    ranges: list[tuple[int, int]] = []
    text = extracted.text
    blocks = kept_blocks(extracted, params)
    for b in blocks:
        block_words = words_of(text[b.start : b.end])
        ranges.append((len(words), len(words) + len(block_words)))
        words += block_words
    spots = _spots_over(words, ranges, params)
    starts = [lo for lo, _ in ranges]
    where = [bisect_right(starts, s.antecedent) - 1 for s in spots]
    return spots, where, blocks


def _spots_over(words: list[str], ranges: list[tuple[int, int]], params: SpotSigsParams) -> list[Spot]:
    if not params.chains_within_blocks:
        ranges = [(0, len(words))]
    table = _by_word(params.specs)
    spots: list[Spot] = []
    for lo, hi in ranges:
        spots += spots_in(words, table, start=lo, end=hi)
    return spots
