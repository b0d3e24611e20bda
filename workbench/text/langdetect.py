"""The language of a page's kept text: resiliparse's n-gram detector, checked by function words.

The detector alone is unsure on short text and between neighbours: pieces of 400
characters of English Gold Set prose came out Norwegian, Danish or French, with English a
few rank points behind. The share of a text's words that are stopwords of each language we
have lists for (running prose: a third or more for its own language, far less for any
other) settles those cases, so:

1. when function words name a language and the detector ranks it within ``MARGIN`` of its
   best answer, that language;
2. else the detector's answer, if the text is long enough and the answer's rank good
   enough;
3. else what function words say, which may be None (undetermined).

Measured on random pieces of kept text (207 English Gold Set pages, our German, French,
Spanish, Finnish and Japanese fixtures, paragraphs of Catalan, Galician, Danish, Swedish,
Norwegian, Afrikaans; 1,446 pieces per length): wrong answers at 100 / 200 / 300 / 400 /
600 characters were 90 / 45 / 16 / 5 / 0 with the detector alone, 12 / 7 / 5 / 1 / 0 with
these rules (146 / 22 / 2 / 0 / 0 left undetermined). On whole pages (dev Gold Set,
chaos-2017, site-pages: 1,591) every page with kept text gets the language a reader would
name, but one: an English table of basketball scores, which has almost no function words
(Romansh, so it gets punctuation signatures).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from functools import cache
from itertools import compress
from typing import cast

from resiliparse.parse.lang import detect_fast

from workbench.text.languages import LANGUAGES, language
from workbench.text.tokenize import words_of

# The detector reads this many characters at most: enough for a stable answer, and the
# cost stays at tens of microseconds a page.
SAMPLE_CHARS = 3000
# The detector's own answer counts for texts at least this long with a rank up to MAX_RANK
# (out-of-place distance: lower is closer; its documentation calls ranks above 1,200
# usually false, and short texts rank higher).
MIN_CHARS = 200
MAX_RANK = 550
# A language named by function words must rank within this of the detector's best.
MARGIN = 30
CANDIDATES = 5
# Function words name a language when there are this many words, this share of them are
# its stopwords, and the share leads the runner-up's by this factor (Portuguese and
# Spanish share many stopwords; Catalan and Galician then stay undetermined).
MIN_VOTE_WORDS = 12
MIN_SHARE = 0.2
MIN_LEAD = 1.5


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the language of ``text``, or None when it cannot be told."""
    sample = unicodedata.normalize("NFC", text[:SAMPLE_CHARS])
    if not sample.strip():
        return None
    # Asked for more than one result, detect_fast returns a list (a tuple only for one).
    candidates = cast(list[tuple[str, int]], detect_fast(sample, n_results=CANDIDATES))
    ranks = dict(candidates)
    trusted = bool(candidates) and len(sample) >= MIN_CHARS and candidates[0][1] <= MAX_RANK
    if trusted and not _rivals(candidates, ranks):
        # No other language the vote could name is within MARGIN of the detector's answer,
        # so the vote cannot change it (rule 1 or rule 2 gives it): counting function words
        # is most of the time this takes, and is spared on most pages.
        return candidates[0][0]
    voted = function_word_language(words_of(sample))
    if voted is not None and voted in ranks and ranks[voted] - candidates[0][1] <= MARGIN:
        return voted
    if trusted:
        return candidates[0][0]
    return voted


def _rivals(candidates: list[tuple[str, int]], ranks: dict[str, int]) -> bool:
    """Whether a language we have lists for, other than the detector's best answer, ranks
    within MARGIN of it (so that function words may name it instead)."""
    best, best_rank = candidates[0]
    return any(code != best and code in ranks and ranks[code] - best_rank <= MARGIN for code in LANGUAGES)


def function_word_language(words: list[str]) -> str | None:
    """The language (of those we have lists for) whose stopwords clearly dominate ``words``."""
    if len(words) < MIN_VOTE_WORDS:
        return None
    listed_in = _listed_in()
    # Only stopwords of some language count: picked out with one set lookup a word, in C.
    counts = Counter(compress(words, map(listed_in.__contains__, words)))
    found = dict.fromkeys(LANGUAGES, 0)
    for word, n in counts.items():
        for code in listed_in[word]:
            found[code] += n
    shares = [(found[code] / len(words), code) for code in LANGUAGES]
    shares.sort(reverse=True)
    (best, code), (second, _) = shares[0], shares[1]
    if best >= MIN_SHARE and best >= MIN_LEAD * second:
        return code
    return None


@cache
def _listed_in() -> dict[str, tuple[str, ...]]:
    """Every stopword of the languages we have lists for, and the languages that list it."""
    out: dict[str, tuple[str, ...]] = {}
    for code in LANGUAGES:
        for word in _stopwords(code):
            out[word] = (*out.get(word, ()), code)
    return out


def _stopwords(code: str) -> frozenset[str]:
    lang = language(code)
    assert lang is not None  # every code in LANGUAGES has lists
    return lang.stopwords
