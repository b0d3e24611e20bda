"""Extraction as it was before it was made faster (issue 11), kept as the reference the
faster code is tested against (tests/text/test_extraction_reference.py). Unchanged but for
names and imports: these definitions are what the extracted text, blocks and word counts
mean.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from resiliparse.parse.lang import detect_fast

from workbench.text.langdetect import (
    CANDIDATES,
    MARGIN,
    MAX_RANK,
    MIN_CHARS,
    MIN_LEAD,
    MIN_SHARE,
    MIN_VOTE_WORDS,
    SAMPLE_CHARS,
    _stopwords,
)
from workbench.text.languages import LANGUAGES

LINK_OPEN, LINK_CLOSE, BREAK = "\ue000", "\ue001", "\ue002"
_MARKERS = re.compile("[\ue000\ue001]")
_MARKER_SPLIT = re.compile("([\ue000\ue001])")
_UNSPACED = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"\w+")


def count_words(text: str) -> int:
    words = len(text.split())
    if text.isascii():
        return words
    return max(words, len(_UNSPACED.findall(text)) // 2)


def link_words(chunk: str, in_link: bool) -> tuple[int, bool]:
    count = 0
    depth = 1 if in_link else 0
    for piece in _MARKER_SPLIT.split(chunk):
        if piece == LINK_OPEN:
            depth += 1
        elif piece == LINK_CLOSE:
            depth = max(0, depth - 1)
        elif depth:
            count += count_words(piece)
    return count, depth > 0


def blocks(title: str, flat: str) -> tuple[str, list[tuple[int, int, int, int, str]], str]:
    """The text shown, each block as (start, end, words, link_words, tag), the title shown."""
    parts: list[str] = []
    found: list[tuple[int, int, int, int, str]] = []
    length = 0
    if title:
        parts.append(title)
        found.append((0, len(title), len(_WORD.findall(title)), 0, "title"))
        length = len(title) + 1
    in_link = False
    chunks = [c for c in " ".join(flat.split()).split(BREAK) if len(c) > 1 or (c and c != " ")]
    for chunk in chunks:
        links = 0
        if in_link or LINK_OPEN in chunk or LINK_CLOSE in chunk:
            links, in_link = link_words(chunk, in_link)
            chunk = _MARKERS.sub("", chunk)
            if "  " in chunk:
                chunk = " ".join(chunk.split())
        text = chunk.strip()
        if not text:
            continue
        words = count_words(text)
        found.append((length, length + len(text), words, min(links, words), "block"))
        parts.append(text)
        length += len(text) + 1
    if not title and found:
        first = parts[0]
        title = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"
    return ("\n".join(parts) + "\n" if parts else ""), found, title


_MINIMAL_TOKEN = re.compile(r"<a(?: [^>]*)?>|</a>|<br>\n?|<[^>]*>|&amp;|&lt;|&gt;|&quot;|&#39;|[^<&]+|[<&]")
_LINK_TAG = re.compile(r"<a[ >]|</a>")
_UNESCAPED = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'"}


def minimal_html_marked(minimal: str) -> str:
    """resiliparse's minimal HTML as marked text: a link opens when its end tag comes
    before the next link's start, <br> (with its line end) is a space, any other tag, a
    line end or a tab a break."""
    out: list[str] = []
    in_link = False
    for match in _MINIMAL_TOKEN.finditer(minimal):
        token = match.group()
        if token.startswith(("<a ", "<a>")):
            after = _LINK_TAG.search(minimal, match.end())
            if not in_link and after is not None and after.group() == "</a>":
                out.append(LINK_OPEN)
                in_link = True
        elif token == "</a>":
            if in_link:
                out.append(LINK_CLOSE)
                in_link = False
        elif token.startswith("<br>"):
            out.append(" ")
        elif token.startswith("<") and token.endswith(">"):
            out.append(BREAK)
        elif token in _UNESCAPED:
            out.append(_UNESCAPED[token])
        else:
            out.append(token.replace("\n", BREAK).replace("\t", BREAK))
    return "".join(out)


def words_of(text: str) -> list[str]:
    if text.isascii():
        return _TOKEN.findall(text.lower())
    return [w.lower() for w in _TOKEN.findall(text)]


def function_word_language(words: list[str]) -> str | None:
    if len(words) < MIN_VOTE_WORDS:
        return None
    counts = Counter(words)
    shares = []
    for code in LANGUAGES:
        listed = _stopwords(code).intersection(counts)
        shares.append((sum(counts[w] for w in listed) / len(words), code))
    shares.sort(reverse=True)
    (best, code), (second, _) = shares[0], shares[1]
    if best >= MIN_SHARE and best >= MIN_LEAD * second:
        return code
    return None


def detect_language(text: str) -> str | None:
    sample = unicodedata.normalize("NFC", text[:SAMPLE_CHARS])
    if not sample.strip():
        return None
    candidates: list[tuple[str, int]] = detect_fast(sample, n_results=CANDIDATES)
    voted = function_word_language(words_of(sample))
    ranks = dict(candidates)
    if voted is not None and voted in ranks and ranks[voted] - candidates[0][1] <= MARGIN:
        return voted
    if candidates and len(sample) >= MIN_CHARS and candidates[0][1] <= MAX_RANK:
        return candidates[0][0]
    return voted


def compact(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())
