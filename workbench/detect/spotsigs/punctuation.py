"""Punctuation-spot signatures, for pages in a language we have no antecedents for.

SigNCD (Chen et al. 2016, §4.1 step 2) takes signatures at punctuation marks instead of
stopwords, so that they need no word lists and work in any language: "punctuation-spot
signatures extract the words around a subset of punctuations". The spot is the comma
(§5.3.1: commas alone did best on the Gold Set; commas are common in an article's prose
and rare in a page's frame), in every script's form (, ، 、 ， ...).

Which words around the comma: the one word before it, the paper's default "Sig-1L"
(§5.4.1). Measured on the dev Gold Set with every page given punctuation spots (star
clustering, τ = 0.2): cluster F1 .945 with the word before, .939 with the words before and
after (Sig-2), .927 with two on each side (Sig-4); spot signatures give .947 there. A
"word" is a run of word characters, so in scripts written without spaces (Chinese,
Japanese) it is the whole run of text since the previous mark: longer, rarer signatures.

A comma between two digits separates digit groups or decimals (1,000 or 3,5): it is no
punctuation and is not a spot.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from workbench.detect.spotsigs.spot import Spot
from workbench.text.tokenize import Tokens

# ASCII comma, Arabic comma, ideographic comma, fullwidth comma, small comma, halfwidth
# ideographic comma, Ethiopic comma, Armenian comma.
_COMMA = re.compile(r"(?<!\d)[,،、，﹐､፣՝]|[,،、，﹐､፣՝](?!\d)")

BEFORE = 1  # words before the comma
AFTER = 0  # words after it


def punctuation_spots(
    text: str, tokens: Tokens, lo: int, hi: int, start: int, end: int, namespace: str = "punct"
) -> list[Spot]:
    """Spots at the commas of ``text[start:end]``, whose tokens are ``tokens[lo:hi]``.

    A spot is the ``BEFORE`` words before a comma and the ``AFTER`` words after it, all
    inside the range; a comma with no word before it in the range is no spot.
    """
    out: list[Spot] = []
    starts, ends, words = tokens.starts, tokens.ends, tokens.words
    for m in _COMMA.finditer(text, start, end):
        last = bisect_right(ends, m.start(), lo, hi) - 1  # last word ending before the comma
        if last < lo:
            continue
        first = max(lo, last - BEFORE + 1)
        nxt = bisect_left(starts, m.end(), lo, hi)
        after = list(range(nxt, min(hi, nxt + AFTER)))
        chain = (*range(first + 1, last + 1), *after)
        readable = " ".join(words[first : last + 1]) + "," + " ".join(words[i] for i in after)
        out.append(Spot(readable, first, chain, namespace))
    return out
