"""SigNCD's punctuation-spot signature: the word before every comma.

Zhang, Yao, Ji and Fang (2016), §4.1 step 2, compress a short signature of each page
instead of the page itself: "punctuation-spot signatures extract the words around a
subset of punctuations". Their choices, followed here:

- the spot is the comma (§5.3.1: commas alone gave the best F1 on the Gold Set, ahead
  of commas with full stops; commas are common in prose and rare in a page's frame);
- the word before it, one per comma, the default "Sig-1L" (§5.4.1);
- the words joined by single spaces, in page order, case kept: the example of §4.1 turns
  "... documents: preprocessing, signature extraction, compression and comparison, ..."
  into "documents preprocessing extraction comparison";
- a page with fewer than three spots is compared whole (§4.1: "less than three in our
  setting").

What the paper leaves open, decided here: a word is a run of word characters, so in
scripts written without spaces (Chinese, Japanese) it is the run since the previous mark;
the word must stand on the comma's own line (a page's text is one block a line), with no
other word or comma between it and the comma (spaces, quotes, brackets may be); and every comma form of
the scripts we read counts (, ، 、 ， ...), since the paper's Chinese corpus has its own.
Commas between digits (1,000) count too, as the paper says nothing of them: on the dev
Gold Set leaving them out moved the best F1 by less than 0.001.

This is not :mod:`workbench.detect.spotsigs.punctuation`, which makes SpotSigs-style spots for
pages in languages without stopword lists; this module builds the string SigNCD compresses.
"""

from __future__ import annotations

import re

# ASCII comma, Arabic comma, ideographic comma, fullwidth comma, small comma, halfwidth
# ideographic comma, Ethiopic comma, Armenian comma.
COMMAS = ",،、，﹐､፣՝"
# Fewer spots than this and the whole text is compressed instead (§4.1).
MIN_SPOTS = 3

# The word and the comma it stands before; only spaces and other non-word marks (no line
# break, no other comma) may come between them. The look-behind starts a match only at
# a word's first character: without it a long unspaced run with no comma (Chinese) is
# retried from each of its characters, quadratic in the run's length.
_WORD_BEFORE_COMMA = re.compile(rf"(?<!\w)(\w+)[^\w\n{COMMAS}]*[{COMMAS}]")


def comma_signature(text: str) -> str:
    """The words before the commas of ``text``, space-separated; ``text`` itself when it
    has fewer than :data:`MIN_SPOTS` of them."""
    words = _WORD_BEFORE_COMMA.findall(text)
    if len(words) < MIN_SPOTS:
        return text
    return " ".join(words)
