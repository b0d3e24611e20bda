"""Stable 64-bit ids for signatures (Python's ``hash`` is salted per process).

A spot's id is built from the ids of its words, so a page's spots get their ids with a
few numpy operations over all of them instead of one hash call per spot: starting from
the namespace's id, each word's id is xor-ed in and the state mixed with the 64-bit
finaliser of MurmurHash3 (a bijection that spreads every input bit over the output).
"""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import blake2b

import numpy as np

_MASK = (1 << 64) - 1
_M1 = 0xFF51AFD7ED558CCD
_M2 = 0xC4CEB9FE1A85EC53


def signature_id(text: str) -> int:
    """A signed 64-bit id that is the same in every process and on every machine."""
    return int.from_bytes(blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


def _seed(namespace: str) -> int:
    return signature_id(namespace + "|") & _MASK


def _mix(h: int) -> int:
    h ^= h >> 33
    h = (h * _M1) & _MASK
    h ^= h >> 33
    h = (h * _M2) & _MASK
    return h ^ (h >> 33)


def chain_id(namespace: str, words: Sequence[str]) -> int:
    """The id of the spot whose antecedent and chain are ``words`` (one at a time)."""
    h = _seed(namespace)
    for word in words:
        h = _mix(h ^ (signature_id(word) & _MASK))
    return h - (1 << 64) if h >> 63 else h


def mix_array(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser on every value of a uint64 array; changes ``h`` in
    place (pass a temporary) and returns it."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(_M1)
    h ^= h >> np.uint64(33)
    h *= np.uint64(_M2)
    h ^= h >> np.uint64(33)
    return h


def chain_ids(namespace: str, word_hash: np.ndarray, words: np.ndarray) -> np.ndarray:
    """:func:`chain_id` of every row of ``words`` (word codes into ``word_hash``, the
    uint64 id of each word; a row ends at its first -1), as int64."""
    h = np.full(len(words), _seed(namespace), dtype=np.uint64)
    for column in words.T:
        there = column >= 0
        mixed = mix_array(h ^ word_hash[np.maximum(column, 0)])
        h = np.where(there, mixed, h)
    return h.view(np.int64)
