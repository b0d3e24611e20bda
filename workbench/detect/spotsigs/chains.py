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
from numba import njit

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
        self._table = WordTable()

    def forget_if_full(self) -> None:
        """Forget every word once more than _MAX_WORDS are known. Called before a batch's
        words are looked up, never between two pages of it: the integers of the pages before
        would then name other words (their spots got other ids)."""
        if len(self._index) > _MAX_WORDS:
            self._reset()

    def codes(self, words: list[str]) -> np.ndarray:
        """The integer of every word (learning new words on the way)."""
        # map over a dict's __getitem__ runs in C; a new word goes through __missing__.
        # np.fromiter fills the array from it without a list between (a third faster).
        return np.fromiter(map(self._index.__getitem__, words), dtype=np.int64, count=len(words))

    def ascii_codes(self, data: bytes, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`codes` of the words of ``data`` (lower-case ASCII, every byte that is no word
        character a space, as :func:`workbench.text.tokenize.word_bytes` writes a page's kept
        blocks), and how many words each block has (block k is ``lengths[k]`` bytes, one
        space between two blocks).

        The words are looked up in one compiled pass (:class:`WordTable`), without a Python
        string a word; a word not yet in the table goes through :meth:`codes`' dictionary
        (learnt there if new), so both give a word the same integer."""
        table = self._table
        buffer = np.frombuffer(data, dtype=np.uint8)
        codes, starts, ends, counts = _look_up(buffer, lengths, table.slots, table.word_start, table.word_len,
                                               table.arena)
        missed = np.flatnonzero(codes < 0)
        if len(missed):
            first, last = starts[missed], ends[missed]
            text = data.decode("ascii")
            found = self._known(list(map(text.__getitem__, map(slice, first.tolist(), last.tolist()))))
            codes[missed] = found
            table.add(buffer, first, last, found)
        return codes, counts

    def _known(self, words: list[str]) -> np.ndarray:
        """The integers of ``words`` (as :meth:`codes`), the new ones learnt all at once: a
        page's new words cost one array assignment each of what is kept of them, not one
        a word (as many new words as known ones on a page of a fresh worker)."""
        index = self._index
        new = [word for word in dict.fromkeys(words) if word not in index]
        if new:
            first, end = len(index), len(index) + len(new)
            if end > len(self.hash):
                size = max(2 * len(self.hash), end)
                for name in ("hash", "stop", "spec_first", "spec_count"):
                    old = getattr(self, name)
                    grown = np.zeros(size, dtype=old.dtype)
                    grown[: len(old)] = old
                    setattr(self, name, grown)
            self.hash[first:end] = [signature_id(word) & 0xFFFFFFFFFFFFFFFF for word in new]
            stopwords = self.scheme.stopwords
            self.stop[first:end] = [word in stopwords for word in new]
            runs = np.array([self._spec_run.get(word, (0, 0)) for word in new], dtype=np.int64)
            self.spec_first[first:end] = runs[:, 0]
            self.spec_count[first:end] = runs[:, 1]
            index.update(zip(new, range(first, end), strict=True))
        return np.fromiter(map(index.__getitem__, words), dtype=np.int64, count=len(words))

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


class WordTable:
    """Words (ASCII bytes) to their lexicon integers, in arrays a compiled loop searches: an
    open-addressing table of slots (the integer + 1; 0 is empty) found by the word's FNV-1a
    hash, and each integer's bytes in one arena to check a slot's word against."""

    def __init__(self) -> None:
        self.slots = np.zeros(1 << 12, dtype=np.int32)
        self.word_start = np.full(1024, -1, dtype=np.int64)
        self.word_len = np.zeros(1024, dtype=np.int64)
        self.arena = np.zeros(1 << 14, dtype=np.uint8)
        self.used = 0  # bytes of the arena in use
        self.count = 0  # words in the table
        # Rehashing is the one loop a small crawl may never reach: run once on the empty
        # table, so that the warm-up before a first detection compiles it too.
        _insert_all(self.slots, self.word_start, self.word_len, self.arena)

    def add(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> None:
        """Put each word ``data[starts[k]:ends[k]]``, whose integer is ``codes[k]``, into the
        table (once: a word may be there already, or come twice)."""
        size = int(codes.max()) + 1
        if size > len(self.word_start):
            size = max(2 * len(self.word_start), size)
            self.word_start = _grown(self.word_start, size, -1)
            self.word_len = _grown(self.word_len, size, 0)
        needed = self.used + int((ends - starts).sum())
        if needed > len(self.arena):
            self.arena = _grown(self.arena, max(2 * len(self.arena), needed), 0)
        if 2 * (self.count + len(codes)) > len(self.slots):
            slots = len(self.slots)
            while 2 * (self.count + len(codes)) > slots:
                slots *= 2
            self.slots = np.zeros(slots, dtype=np.int32)
            _insert_all(self.slots, self.word_start, self.word_len, self.arena)
        self.used, added = _add(self.slots, self.word_start, self.word_len, self.arena, self.used,
                                data, starts, ends, codes)
        self.count += added


def _grown(array: np.ndarray, size: int, fill: int) -> np.ndarray:
    grown = np.full(size, fill, dtype=array.dtype)
    grown[: len(array)] = array
    return grown


_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True, nogil=True)
def _fnv(data: np.ndarray, start: int, end: int) -> np.uint64:
    h = _FNV_OFFSET
    for k in range(start, end):
        h = (h ^ np.uint64(data[k])) * _FNV_PRIME
    return h


@njit(cache=True, nogil=True)
def _insert(slots: np.ndarray, arena: np.ndarray, start: int, length: int, code: int) -> None:
    mask = len(slots) - 1
    at = np.int64(_fnv(arena, start, start + length) & np.uint64(mask))
    while slots[at] != 0:
        at = (at + 1) & mask
    slots[at] = code + 1


@njit(cache=True, nogil=True)
def _add(slots: np.ndarray, word_start: np.ndarray, word_len: np.ndarray, arena: np.ndarray, used: int,
         data: np.ndarray, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> tuple[int, int]:
    """Copy each new word into the arena and put it in the slots (room for all is made
    beforehand); the arena's bytes in use and the number of words added."""
    added = 0
    for k in range(len(codes)):
        code = codes[k]
        if word_start[code] >= 0:
            continue
        length = ends[k] - starts[k]
        arena[used : used + length] = data[starts[k] : ends[k]]
        word_start[code] = used
        word_len[code] = length
        _insert(slots, arena, used, length, code)
        used += length
        added += 1
    return used, added


@njit(cache=True, nogil=True)
def _insert_all(slots: np.ndarray, word_start: np.ndarray, word_len: np.ndarray, arena: np.ndarray) -> None:
    for code in range(len(word_start)):
        if word_start[code] >= 0:
            _insert(slots, arena, word_start[code], word_len[code], code)


@njit(cache=True, nogil=True)
def _look_up(data: np.ndarray, lengths: np.ndarray, slots: np.ndarray, word_start: np.ndarray,
             word_len: np.ndarray, arena: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every word of ``data`` (runs of bytes other than a space): its integer (-1: not in the
    table), its start and end, and how many words each block of ``lengths`` bytes has."""
    n = len(data)
    codes = np.empty(n // 2 + 1, dtype=np.int64)
    starts = np.empty(n // 2 + 1, dtype=np.int64)
    ends = np.empty(n // 2 + 1, dtype=np.int64)
    counts = np.zeros(len(lengths), dtype=np.int64)
    mask = len(slots) - 1
    words = 0
    at = 0
    for block in range(len(lengths)):
        stop = at + lengths[block]
        k = at
        while k < stop:
            if data[k] == 32:
                k += 1
                continue
            start = k
            h = _FNV_OFFSET
            while k < stop and data[k] != 32:
                h = (h ^ np.uint64(data[k])) * _FNV_PRIME
                k += 1
            length = k - start
            slot = np.int64(h & np.uint64(mask))
            code = -1
            while slots[slot] != 0:
                candidate = slots[slot] - 1
                if word_len[candidate] == length:
                    first = word_start[candidate]
                    same = True
                    for j in range(length):
                        if arena[first + j] != data[start + j]:
                            same = False
                            break
                    if same:
                        code = candidate
                        break
                slot = (slot + 1) & mask
            codes[words] = code
            starts[words] = start
            ends[words] = k
            words += 1
            counts[block] += 1
        at = stop + 1
    return codes[:words], starts[:words], ends[:words], counts


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
