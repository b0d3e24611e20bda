"""Unicode-aware, lower-cased word tokens with their character spans."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+")


@dataclass(slots=True)
class Tokens:
    words: list[str]
    starts: list[int]
    ends: list[int]

    def __len__(self) -> int:
        return len(self.words)


def tokenize(text: str, start: int = 0, end: int | None = None) -> Tokens:
    """Tokens of ``text[start:end]``; spans index into the whole ``text``."""
    words: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for m in _TOKEN.finditer(text, start, len(text) if end is None else end):
        words.append(m.group().lower())
        starts.append(m.start())
        ends.append(m.end())
    return Tokens(words, starts, ends)


def words_of(text: str) -> list[str]:
    """The words of :func:`tokenize` without spans (same tokens, same lower-casing).

    ASCII text is lower-cased once, before tokenizing: that cannot move a word boundary
    there, and saves a call per word (most of the tokenizer's time on English pages).
    Elsewhere lower-casing can change what is a word character ('İ' becomes 'i' and a
    combining dot), so words are lower-cased one by one, as tokenize does.
    """
    if text.isascii():
        return _TOKEN.findall(text.lower())
    return [w.lower() for w in _TOKEN.findall(text)]
