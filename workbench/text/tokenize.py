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

    ASCII text takes :func:`ascii_words`. Elsewhere lower-casing can change what is a word
    character ('İ' becomes 'i' and a combining dot), so words are lower-cased one by one,
    as tokenize does.
    """
    if text.isascii():
        return ascii_words(text)
    return [w.lower() for w in _TOKEN.findall(text)]


# ASCII bytes to what ascii_words splits: letters lower-cased, digits and "_" kept (the
# ASCII characters of \w), everything else a space. Bytes above ASCII never occur.
_ASCII_WORD_BYTES = bytes(
    c + 32 if 65 <= c <= 90 else (c if (c < 128 and chr(c).isalnum()) or c == 95 else 32) for c in range(256))


def ascii_words(text: str) -> list[str]:
    """The lower-cased \\w+ runs of ASCII ``text``: ``re.findall(r"\\w+", text.lower())``.

    For ASCII, lower-casing moves no word boundary and \\w is [A-Za-z0-9_], so the words are
    what is left when every other character becomes a space: one table lookup per byte
    and a split, three times faster than the regex (most of a page's tokenizing time).
    """
    return text.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()


# A character that is a word character and not ASCII.
_NON_ASCII_WORD = re.compile(r"[^\W\x00-\x7f]")


def word_bytes(text: str) -> bytes | None:
    """The words of ``text`` as :func:`words_of` finds them, as ASCII bytes: each word
    lower-cased, every other character a space (one byte a character, so offsets are
    kept). None when ``text`` has a word character that is not ASCII.

    Outside ASCII words_of lower-cases each word on its own, but a text whose only
    characters beyond ASCII are no word characters ("£", "©", curly quotes) has only ASCII
    words, lower-cased as in ASCII; those characters become "?" first, which is none."""
    if text.isascii():
        data = text.encode("ascii")
    elif _NON_ASCII_WORD.search(text) is None:
        data = text.encode("ascii", "replace")
    else:
        return None
    return data.translate(_ASCII_WORD_BYTES)
