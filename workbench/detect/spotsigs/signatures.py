"""Spot signature extraction (SpotSigs, SIGIR'08 §3.1).

At every occurrence of an antecedent word ``a`` with spec ``a(d, c)`` we build a
chain of ``c`` non-stopwords: step ``d`` words on, and if the word there is a
stopword move on to the next non-stopword; repeat from there. A chain that runs
past the end of its text is cut, and kept if it found at least one word.

Antecedents and stopwords are those of the page's language (workbench/detect/spotsigs/scheme.py);
a page in a language without lists gets punctuation spots instead
(workbench/detect/spotsigs/punctuation.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from workbench.detect.spotsigs.chains import Chains, Lexicon, find_chains
from workbench.detect.spotsigs.hashing import signature_id
from workbench.detect.spotsigs.params import AntecedentSpec, SpotSigsParams
from workbench.detect.spotsigs.punctuation import punctuation_spots
from workbench.detect.spotsigs.scheme import PUNCTUATION, SPOTS, Scheme, by_word, page_scheme
from workbench.detect.spotsigs.spot import Spot, spot_id
from workbench.text.html import Block, Extracted
from workbench.text.stopwords import ENGLISH_STOPWORDS
from workbench.text.tokenize import Tokens, tokenize, word_bytes, words_of

__all__ = ["Spot", "spot_id", "spots_in", "kept_blocks", "PageSpots", "page_spots", "block_id",
           "page_signatures", "BlockSignatures", "block_signatures", "batch_signatures", "SPOTS",
           "PUNCTUATION"]



def spots_in(
    words: Sequence[str],
    specs: Iterable[AntecedentSpec] | dict[str, list[AntecedentSpec]],
    stopwords: frozenset[str] = ENGLISH_STOPWORDS,
    start: int = 0,
    end: int | None = None,
    namespace: str = "",
) -> list[Spot]:
    """Spot signatures of ``words[start:end]``; chains never leave that range.

    Each word of a chain is a spec's step on from the word before it (the antecedent
    first), moved on past stopwords: ``the(2,3)`` steps 2, 2, 2 and the Multi-Chain
    ``is[3,4]`` steps 3 then 4 (:class:`AntecedentSpec`). Every antecedent of the
    built-in lists is a stopword of its language, so one met inside another spot's chain
    is skipped there and starts a spot of its own.
    """
    end = len(words) if end is None else end
    table = specs if isinstance(specs, dict) else by_word(tuple(specs))
    out: list[Spot] = []
    for i in range(start, end):
        for spec in table.get(words[i], ()):
            chain: list[int] = []
            pos = i
            for step in spec.steps:
                pos += step
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
    ids: list[int] = field(default_factory=list)  # each spot's id, as detection counts it


def page_spots(extracted: Extracted, params: SpotSigsParams) -> PageSpots:
    """Every spot of a page with token spans into ``extracted.text`` (for display)."""
    found, tokens = _signatures(extracted, params, spans=True)
    ids = [block_id(extracted.text, b) for b in found.blocks]
    return PageSpots(tokens, found.spots, found.where.tolist(), ids, found.language, found.kind,
                     [(b.start, b.end) for b in found.blocks], found.ids.tolist())


def block_id(text: str, block: Block) -> int:
    """A block's id for the site boilerplate filter: the hash of its lower-cased text."""
    return signature_id(text[block.start : block.end].lower())


def page_signatures(extracted: Extracted, params: SpotSigsParams) -> list[Spot]:
    """The same spots as :func:`page_spots`, without keeping spans (the fast path)."""
    return block_signatures(extracted, params).spots


@dataclass(slots=True)
class BlockSignatures:
    """A page's signatures as arrays (one entry per spot), its kept blocks, language and kind.

    ``spots`` builds the readable :class:`Spot` records on demand (display and tests):
    detection needs only ``ids`` and ``where``.
    """

    ids: np.ndarray  # int64: each spot's id (workbench.detect.spotsigs.hashing.chain_id)
    where: np.ndarray  # int32: index (into ``blocks``) of the block of each spot's antecedent
    blocks: list[Block]  # the kept blocks
    language: str | None
    kind: str  # SPOTS or PUNCTUATION
    words: list[str] = field(default_factory=list)
    chains: Chains | None = None
    namespace: str = ""
    listed: list[Spot] | None = None  # punctuation spots, found as records
    # The words as ASCII bytes, spaces between, when ``words`` was not made (the words were
    # looked up by a compiled pass: workbench.detect.spotsigs.chains.Lexicon.ascii_codes).
    word_text: bytes = b""

    @property
    def spots(self) -> list[Spot]:
        if self.listed is not None:
            return self.listed
        if self.chains is None:
            return []
        words, ns = self.words or self.word_text.decode("ascii").split(), self.namespace
        out = []
        for a, row, n in zip(self.chains.antecedent.tolist(), self.chains.chain.tolist(),
                             self.chains.length.tolist(), strict=True):
            chain = tuple(row[:n])
            out.append(Spot(":".join([words[a], *(words[p] for p in chain)]), a, chain, ns))
        return out


def block_signatures(extracted: Extracted, params: SpotSigsParams) -> BlockSignatures:
    """Spots, the kept block of each, the kept blocks, and the page's language and signature kind."""
    return _signatures(extracted, params, spans=False)[0]


def batch_signatures(pages: Sequence[Extracted], params: SpotSigsParams) -> list[BlockSignatures]:
    """:func:`block_signatures` of every page, the chains of all pages of one language
    found together: numpy's cost per call, paid once per batch instead of once per page,
    was most of the time on small pages."""
    return [found for found, _ in _batch(pages, params, spans=False)]


def _batch(pages: Sequence[Extracted], params: SpotSigsParams,
           spans: bool) -> list[tuple[BlockSignatures, Tokens]]:
    """What detection (a batch) and display (one page, with spans) share, so both always
    find the same spots."""
    ready = [_prepare(page, params, spans) for page in pages]
    out: list[BlockSignatures | None] = [None] * len(ready)
    by_scheme: dict[int, list[int]] = {}
    for i, page in enumerate(ready):
        if page.scheme.kind == PUNCTUATION:
            out[i] = _punctuation(page, pages[i].text)
        else:
            by_scheme.setdefault(id(page.scheme), []).append(i)
    lexicons = [lexicon_of(ready[members[0]].scheme) for members in by_scheme.values()]
    for lexicon in lexicons:  # before any page's words are looked up (see forget_if_full)
        lexicon.forget_if_full()
    for members, lexicon in zip(by_scheme.values(), lexicons, strict=True):
        codes, ranges, offsets = [], [], []
        offset = 0
        for i in members:
            page = ready[i]
            if page.lengths is not None:  # every word ASCII: looked up in one compiled pass
                page_codes, counts = lexicon.ascii_codes(page.word_text, page.lengths)
                ends = [0, *np.cumsum(counts).tolist()]
                page.ranges = list(zip(ends[:-1], ends[1:], strict=True))
                page.n_words = len(page_codes)
                codes.append(page_codes)
            else:
                codes.append(lexicon.codes(page.tokens.words))
            ranges += [(lo + offset, hi + offset) for lo, hi in _chain_ranges(page, params)]
            offsets.append(offset)
            offset += page.n_words
        found = find_chains(np.concatenate(codes), ranges, lexicon)
        bounds = np.searchsorted(found.antecedent, [*offsets, offset])
        for k, i in enumerate(members):
            lo, hi, off = bounds[k], bounds[k + 1], offsets[k]
            chain = found.chain[lo:hi]
            own = Chains(found.antecedent[lo:hi] - off, np.where(chain >= 0, chain - off, -1),
                         found.length[lo:hi], found.ids[lo:hi])
            out[i] = _finish(ready[i], own)
    # Every slot is filled: punctuation pages first, then every other page with its scheme.
    filled = cast(list[BlockSignatures], out)
    return [(found, page.tokens) for found, page in zip(filled, ready, strict=True)]


@dataclass(slots=True)
class _Prepared:
    """A page ready for its spots: kept blocks, scheme, words and each block's word range."""

    blocks: list[Block]
    scheme: Scheme
    tokens: Tokens
    ranges: list[tuple[int, int]]
    n_words: int
    # When every word is ASCII, the kept blocks' words as bytes (workbench.text.tokenize.
    # word_bytes) and each block's length in them: the words are then found as their
    # lexicon's integers by one compiled pass (``tokens`` has none, and ``ranges`` and
    # ``n_words`` are set then).
    word_text: bytes = b""
    lengths: np.ndarray | None = None


def _prepare(extracted: Extracted, params: SpotSigsParams, spans: bool) -> _Prepared:
    text = extracted.text
    blocks = kept_blocks(extracted, params)
    scheme = page_scheme(text, blocks, params)
    spans = spans or scheme.kind == PUNCTUATION
    if not spans:
        lines = [text[b.start : b.end] for b in blocks]
        data = word_bytes("\n".join(lines))
        if data:  # every word ASCII (and some text): its words are found in _batch
            lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
            return _Prepared(blocks, scheme, Tokens([], [], []), [], 0, data, lengths)
    tokens, ranges = _tokens(text, blocks, spans=spans)
    return _Prepared(blocks, scheme, tokens, ranges, len(tokens.words))


def _chain_ranges(page: _Prepared, params: SpotSigsParams) -> list[tuple[int, int]]:
    return page.ranges if params.chains_within_blocks else [(0, page.n_words)]


def _block_of(page: _Prepared, token: np.ndarray) -> np.ndarray:
    starts = np.array([lo for lo, _ in page.ranges], dtype=np.int64)
    return (np.searchsorted(starts, token, side="right") - 1).astype(np.int32)


def _punctuation(page: _Prepared, text: str) -> BlockSignatures:
    # Always block by block: text between kept blocks (left-out blocks) is no part of
    # the page's kept text, so no comma there may count.
    listed: list[Spot] = []
    for (lo, hi), b in zip(page.ranges, page.blocks, strict=True):
        listed += punctuation_spots(text, page.tokens, lo, hi, b.start, b.end, page.scheme.namespace)
    ids = np.fromiter((spot_id(sp) for sp in listed), dtype=np.int64, count=len(listed))
    at = np.fromiter((sp.antecedent for sp in listed), dtype=np.int64, count=len(listed))
    return BlockSignatures(ids, _block_of(page, at), page.blocks, page.scheme.language, page.scheme.kind,
                           page.tokens.words, None, page.scheme.namespace, listed)


def _finish(page: _Prepared, chains: Chains) -> BlockSignatures:
    return BlockSignatures(chains.ids, _block_of(page, chains.antecedent), page.blocks, page.scheme.language,
                           page.scheme.kind, page.tokens.words, chains, page.scheme.namespace,
                           word_text=page.word_text)


def _signatures(extracted: Extracted, params: SpotSigsParams, spans: bool) -> tuple[BlockSignatures, Tokens]:
    """One page's signatures and tokens (spans kept for display, or for punctuation spots)."""
    return _batch([extracted], params, spans)[0]


_LOCAL = threading.local()


def lexicon_of(scheme: Scheme) -> Lexicon:
    """The calling thread's vocabulary for ``scheme`` (the GUI reads pages on its own
    thread while a small run may extract on another: each has its own)."""
    lexicons: dict[int, Lexicon] | None = getattr(_LOCAL, "lexicons", None)
    if lexicons is None or len(lexicons) > 64:
        lexicons = _LOCAL.lexicons = {}
    # Schemes are cached objects; the lexicon keeps its scheme alive, so an id is never
    # reused for another scheme while it is a key here.
    lexicon = lexicons.get(id(scheme))
    if lexicon is None:
        lexicon = lexicons[id(scheme)] = Lexicon(scheme)
    return lexicon


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
