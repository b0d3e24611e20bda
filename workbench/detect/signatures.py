"""Spot signature extraction (SpotSigs, SIGIR'08 §3.1).

At every occurrence of an antecedent word ``a`` with spec ``a(d, c)`` we build a
chain of ``c`` non-stopwords: step ``d`` words on, and if the word there is a
stopword move on to the next non-stopword; repeat from there. A chain that runs
past the end of its text is cut, and kept if it found at least one word.

Antecedents and stopwords are those of the page's language (workbench/detect/scheme.py);
a page in a language without lists gets punctuation spots instead
(workbench/detect/punctuation.py).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from workbench.detect.hashing import signature_id
from workbench.detect.params import AntecedentSpec, SpotSigsParams
from workbench.detect.punctuation import punctuation_spots
from workbench.detect.scheme import PUNCTUATION, SPOTS, Scheme, by_word, page_scheme
from workbench.detect.spot import Spot, spot_id
from workbench.text.html import Block, Extracted
from workbench.text.stopwords import ENGLISH_STOPWORDS
from workbench.text.tokenize import Tokens, tokenize, words_of

__all__ = ["Spot", "spot_id", "spots_in", "kept_blocks", "PageSpots", "page_spots", "block_id",
           "page_signatures", "BlockSignatures", "block_signatures", "SPOTS", "PUNCTUATION"]


def spots_in(
    words: Sequence[str],
    specs: Iterable[AntecedentSpec] | dict[str, list[AntecedentSpec]],
    stopwords: frozenset[str] = ENGLISH_STOPWORDS,
    start: int = 0,
    end: int | None = None,
    namespace: str = "",
) -> list[Spot]:
    """Spot signatures of ``words[start:end]``; chains never leave that range.

    Every antecedent of the built-in lists is a stopword of its language, so one met
    inside another spot's chain is skipped there and starts a spot of its own.
    """
    end = len(words) if end is None else end
    table = specs if isinstance(specs, dict) else by_word(tuple(specs))
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
                out.append(Spot(text, i, tuple(chain), namespace))
    return out


# Main content shorter than this (after the block filter) is taken for a failed
# extraction (a gallery caption, a teaser): the page is read whole instead.
MIN_MAIN_WORDS = 60


def kept_blocks(extracted: Extracted, params: SpotSigsParams) -> list[Block]:
    """The blocks signatures are taken from: the main content when it was found (else the
    whole page), without those that read like navigation (short, or mostly links)."""
    def prose(blocks: list[Block]) -> list[Block]:
        if not params.block_filter:
            return blocks
        return [b for b in blocks
                if b.words >= params.min_block_words and b.link_ratio <= params.max_link_ratio]

    whole = prose(list(extracted.blocks))
    if not (params.main_content and extracted.main_found):
        return whole
    main = [b for b in whole if b.main]
    return main if sum(b.words for b in main) >= MIN_MAIN_WORDS else whole


@dataclass(slots=True)
class PageSpots:
    """Tokens of the whole text and the spots found in it (for display).

    ``spot_block[i]`` indexes ``block_ids``: the id of the kept block where spot i's
    antecedent stands (the same id the site boilerplate filter uses). ``language`` is the
    page's detected language (None: undetermined, or languages were not told apart) and
    ``kind`` says whether its signatures are spots (SPOTS) or punctuation spots.
    """

    tokens: Tokens
    spots: list[Spot]
    spot_block: list[int] = field(default_factory=list)
    block_ids: list[int] = field(default_factory=list)
    language: str | None = None
    kind: str = SPOTS
    # The kept blocks as ranges of the text: what was compared (the article, when found).
    kept: list[tuple[int, int]] = field(default_factory=list)


def page_spots(extracted: Extracted, params: SpotSigsParams) -> PageSpots:
    """Every spot of a page with token spans into ``extracted.text`` (for display)."""
    found, tokens = _signatures(extracted, params, spans=True)
    ids = [block_id(extracted.text, b) for b in found.blocks]
    return PageSpots(tokens, found.spots, found.where, ids, found.language, found.kind,
                     [(b.start, b.end) for b in found.blocks])


def block_id(text: str, block: Block) -> int:
    """A block's id for the site boilerplate filter: the hash of its lower-cased text."""
    return signature_id(text[block.start : block.end].lower())


def page_signatures(extracted: Extracted, params: SpotSigsParams) -> list[Spot]:
    """The same spots as :func:`page_spots`, without keeping spans (the fast path)."""
    return block_signatures(extracted, params).spots


class BlockSignatures(NamedTuple):
    spots: list[Spot]
    where: list[int]  # index (into ``blocks``) of the block of each spot's antecedent
    blocks: list[Block]  # the kept blocks
    language: str | None
    kind: str  # SPOTS or PUNCTUATION


def block_signatures(extracted: Extracted, params: SpotSigsParams) -> BlockSignatures:
    """Spots, the kept block of each, the kept blocks, and the page's language and signature kind."""
    return _signatures(extracted, params, spans=False)[0]


def _signatures(extracted: Extracted, params: SpotSigsParams, spans: bool) -> tuple[BlockSignatures, Tokens]:
    """What both paths share, so display and detection always find the same spots. Spot
    chains need only the words; spans are kept for display or for punctuation spots."""
    text = extracted.text
    blocks = kept_blocks(extracted, params)
    scheme = page_scheme(text, blocks, params)
    tokens, ranges = _tokens(text, blocks, spans=spans or scheme.kind == PUNCTUATION)
    spots = _spots_over(tokens, ranges, text, blocks, params, scheme)
    starts = [lo for lo, _ in ranges]
    where = [bisect_right(starts, s.antecedent) - 1 for s in spots]
    return BlockSignatures(spots, where, blocks, scheme.language, scheme.kind), tokens


def _tokens(text: str, blocks: list[Block], spans: bool) -> tuple[Tokens, list[tuple[int, int]]]:
    """The words of the kept blocks (with spans when asked) and each block's token range."""
    words: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    ranges: list[tuple[int, int]] = []
    for b in blocks:
        if spans:
            t = tokenize(text, b.start, b.end)
            block_words = t.words
            starts += t.starts
            ends += t.ends
        else:
            block_words = words_of(text[b.start : b.end])
        ranges.append((len(words), len(words) + len(block_words)))
        words += block_words
    return Tokens(words, starts, ends), ranges


def _spots_over(
    tokens: Tokens,
    ranges: list[tuple[int, int]],
    text: str,
    blocks: list[Block],
    params: SpotSigsParams,
    scheme: Scheme,
) -> list[Spot]:
    spots: list[Spot] = []
    if scheme.kind == PUNCTUATION:
        # Always block by block: text between kept blocks (left-out blocks) is no part of
        # the page's kept text, so no comma there may count.
        for (lo, hi), b in zip(ranges, blocks, strict=True):
            spots += punctuation_spots(text, tokens, lo, hi, b.start, b.end, scheme.namespace)
        return spots
    words = tokens.words
    if not params.chains_within_blocks:
        ranges = [(0, len(words))]
    for lo, hi in ranges:
        spots += spots_in(words, scheme.table, scheme.stopwords, lo, hi, scheme.namespace)
    return spots
