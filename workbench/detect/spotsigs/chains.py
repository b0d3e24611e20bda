"""Spot chains of a whole page at once, with numpy instead of a Python loop per word.

The rule is that of :func:`workbench.detect.spotsigs.signatures.spots_in` (SIGIR'08 §3.1): at
every antecedent, take a spec's steps one by one (``a(d, c)``: ``c`` steps of ``d``; the
Multi-Chain ``a[m, n]``: ``m`` then ``n``): step on, move on past stopwords, take that
word; a chain that runs past the end of its range is cut, and kept if it found at least
one word. Here every step is one ``searchsorted`` over the positions of the page's
non-stopwords, for all antecedents together.

Words become small integers through a :class:`Lexicon` that lives as long as the worker
process: a word's hash, whether it is a stopword and its antecedent specs are looked up
once per distinct word, not once per occurrence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.detect.spotsigs.hashing import chain_ids, signature_id
from workbench.detect.spotsigs.scheme import Scheme

# A worker's vocabulary is forgotten past this many words (numbers, names and typos make
# it grow without end on a million pages); relearning costs one hash per word.
_MAX_WORDS = 500_000


class Lexicon:
    """Distinct words of one scheme (language) as integers, with what chains need of each."""

    def __init__(self, scheme: Scheme) -> None:
        self.scheme = scheme
        specs = [(w, s) for w, group in scheme.table.items() for s in group]
        # Every spec of the scheme, in table order; a word's specs are a run of them.
        # steps[k, j]: how far spec k's word j is from the word before it (0 past its end).
        self.chain = np.array([len(s.steps) for _, s in specs], dtype=np.int64)
        self.steps = np.zeros((len(specs), int(self.chain.max(initial=0))), dtype=np.int64)
        for k, (_, s) in enumerate(specs):
            self.steps[k, : len(s.steps)] = s.steps
        self._spec_run: dict[str, tuple[int, int]] = {}
        for k, (w, _) in enumerate(specs):
            first, count = self._spec_run.get(w, (k, 0))
            self._spec_run[w] = (first, count + 1)
        self._reset()

    def _reset(self) -> None:
        self._index = _Vocabulary(self._learn)
        size = 1024
        self.hash = np.zeros(size, dtype=np.uint64)
        self.stop = np.zeros(size, dtype=bool)
        self.spec_first = np.zeros(size, dtype=np.int64)
        self.spec_count = np.zeros(size, dtype=np.int64)

    def codes(self, words: list[str]) -> np.ndarray:
        """The integer of every word (learning new words on the way)."""
        if len(self._index) > _MAX_WORDS:
            self._reset()
        # map over a dict's __getitem__ runs in C; a new word goes through __missing__.
        # np.fromiter fills the array from it without a list between (a third faster).
        return np.fromiter(map(self._index.__getitem__, words), dtype=np.int64, count=len(words))

    def _learn(self, word: str) -> int:
        k = len(self._index)
        if k == len(self.hash):
            for name in ("hash", "stop", "spec_first", "spec_count"):
                old = getattr(self, name)
                grown = np.zeros(2 * len(old), dtype=old.dtype)
                grown[: len(old)] = old
                setattr(self, name, grown)
        self.hash[k] = np.uint64(signature_id(word) & 0xFFFFFFFFFFFFFFFF)
        self.stop[k] = word in self.scheme.stopwords
        first, count = self._spec_run.get(word, (0, 0))
        self.spec_first[k] = first
        self.spec_count[k] = count
        return k


class _Vocabulary(dict[str, int]):
    """word -> integer; an unknown word is learnt when first looked up."""

    def __init__(self, learn: Callable[[str], int]) -> None:
        super().__init__()
        self._learn = learn

    def __missing__(self, word: str) -> int:
        k = self[word] = self._learn(word)
        return k


@dataclass(slots=True)
class Chains:
    """A page's spots as arrays: spot k starts at token ``antecedent[k]`` and takes the
    tokens ``chain[k, :length[k]]`` (the rest of the row is -1); ``ids[k]`` is its id."""

    antecedent: np.ndarray  # int64
    chain: np.ndarray  # int64, (spots, longest chain)
    length: np.ndarray  # int64
    ids: np.ndarray  # int64


def find_chains(codes: np.ndarray, ranges: list[tuple[int, int]], lexicon: Lexicon) -> Chains:
    """Spots of the words ``codes`` (from ``lexicon``); chains never leave their range
    (``ranges`` cover the words in order, as the kept blocks do)."""
    n = len(codes)
    empty = np.empty(0, np.int64)
    count = lexicon.spec_count[codes] if n else empty
    at = np.flatnonzero(count)
    if not len(at):
        return Chains(empty, np.empty((0, 0), np.int64), empty, empty)
    # One spot per (antecedent occurrence, spec of that word), in word then spec order.
    per = count[at]
    ant = np.repeat(at, per)
    offsets = np.arange(len(ant), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    spec = np.repeat(lexicon.spec_first[codes[at]], per) + offsets
    step_of, steps = lexicon.steps[spec], lexicon.chain[spec]
    ends = np.array([hi for _, hi in ranges], dtype=np.int64)
    starts = np.array([lo for lo, _ in ranges], dtype=np.int64)
    end = ends[np.searchsorted(starts, ant, side="right") - 1]

    content = np.flatnonzero(~lexicon.stop[codes])  # positions of non-stopwords
    width = int(steps.max())
    chain = np.full((len(ant), width), -1, dtype=np.int64)
    alive = np.ones(len(ant), dtype=bool)
    pos = ant.copy()
    for step in range(width):
        alive &= steps > step
        target = pos + step_of[:, step]
        j = np.searchsorted(content, target)
        found = j < len(content)
        nxt = content[np.minimum(j, len(content) - 1)] if len(content) else target
        alive &= found & (nxt < end)
        chain[alive, step] = nxt[alive]
        pos = np.where(alive, nxt, pos)
    length = (chain >= 0).sum(axis=1)
    keep = length > 0
    ant, chain, length = ant[keep], chain[keep], length[keep]
    words = np.concatenate([codes[ant][:, None], np.where(chain >= 0, codes[np.maximum(chain, 0)], -1)],
                           axis=1)
    ids = chain_ids(lexicon.scheme.namespace, lexicon.hash, words)
    return Chains(ant, chain, length, ids)
