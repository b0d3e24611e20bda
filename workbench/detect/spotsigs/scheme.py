"""Which signatures a page gets: spots with its language's antecedents, or punctuation spots.

The language is detected on the kept text (the blocks signatures are taken from), so the
decision rests on the same words the signatures do. English pages get ``params.specs`` and
the English stopwords, with ids as before languages were told apart; German, French,
Spanish, Italian, Dutch and Portuguese pages get their own antecedents; any other page,
and a page whose language cannot be told, gets punctuation spots.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from workbench.detect.spotsigs.params import AntecedentSpec, SpotSigsParams
from workbench.text.html import Block
from workbench.text.langdetect import SAMPLE_CHARS, detect_language
from workbench.text.languages import ENGLISH, language
from workbench.text.stopwords import ENGLISH_STOPWORDS

SPOTS = "spots"
PUNCTUATION = "punctuation"

SpecTable = dict[str, list[AntecedentSpec]]


@dataclass(frozen=True, slots=True)
class Scheme:
    """A page's language (None: not detected, or not asked for) and how its signatures are taken."""

    language: str | None
    kind: str  # SPOTS or PUNCTUATION
    namespace: str  # hashed with every signature text: see workbench.detect.spotsigs.spot.Spot.key
    table: SpecTable  # antecedent word -> specs (spots only)
    stopwords: frozenset[str]


def by_word(specs: tuple[AntecedentSpec, ...]) -> SpecTable:
    out: SpecTable = {}
    for spec in specs:
        out.setdefault(spec.word, []).append(spec)
    return out


@lru_cache(maxsize=64)
def _english(specs: tuple[AntecedentSpec, ...], code: str | None) -> Scheme:
    return Scheme(code, SPOTS, "", by_word(specs), ENGLISH_STOPWORDS)


@lru_cache(maxsize=64)
def _other(code: str | None, template: AntecedentSpec) -> Scheme:
    """The scheme of language ``code``: its own antecedents, each with the steps of ``template``."""
    lang = language(code)
    if lang is None:
        return Scheme(code, PUNCTUATION, f"punct:{code}" if code else "punct", {}, frozenset())
    specs = tuple(replace(template, word=w) for w in lang.antecedents)
    return Scheme(code, SPOTS, lang.code, by_word(specs), lang.stopwords)  # lang.code is code


def scheme_for(code: str | None, params: SpotSigsParams) -> Scheme:
    """The scheme of a page in language ``code`` (None: undetermined)."""
    if not params.languages:
        return _english(params.specs, None)
    if code == ENGLISH:
        return _english(params.specs, ENGLISH)
    return _other(code, params.language_template())


def page_scheme(text: str, blocks: list[Block], params: SpotSigsParams) -> Scheme:
    """The scheme of a page whose kept blocks are ``blocks`` of ``text``."""
    if not params.languages:
        return scheme_for(None, params)
    return scheme_for(detect_language(_sample(text, blocks)), params)


def _sample(text: str, blocks: list[Block]) -> str:
    """The first SAMPLE_CHARS characters of the kept text, one block a line."""
    parts: list[str] = []
    size = 0
    for b in blocks:
        parts.append(text[b.start : b.end])
        size += b.end - b.start + 1
        if size >= SAMPLE_CHARS:
            break
    return "\n".join(parts)
