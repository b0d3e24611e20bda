"""The faster extraction (issue 11) gives what the code before it gave: its pieces against
the old definitions kept in tests/text/extraction_reference.py, on random text. Since one
parse with Lexbor replaced lxml (issue 33) the blocks are read from resiliparse's minimal
HTML, checked against a plain reading of it (extraction_reference.minimal_html_marked)
followed by the old definition of blocks."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.text import extraction_reference as ref
from workbench.text.chunks import minimal_html_chunks
from workbench.text.headline import compact
from workbench.text.html import extract
from workbench.text.langdetect import _stopwords, detect_language, function_word_language
from workbench.text.languages import LANGUAGES
from workbench.text.tokenize import ascii_words, words_of

# Text with what word counting and whitespace collapsing meet on real pages: Unicode spaces,
# Latin-1 and other non-ASCII letters, scripts written without spaces, and case pairs whose
# lower-casing changes length ("İ").
_TEXT = st.lists(st.sampled_from(
    list("ab Z9_ .,-'\t\n") + ["\xa0", "\u2003", "\u3000", "©", "é", "’", "—", "İ", "ß", "漢", "字",
                              "ภ", "ษ", "カ", "ナ", "&amp;", "&lt;", "&#160;"]), max_size=30).map("".join)
# resiliparse's minimal HTML as it writes it (the tags it keeps, the escapes it writes, a
# line a block, tabs between cells, a link with nothing in it left without its end tag) and
# as it might: links across lines, end tags of no link, runs of tags.
_MINIMAL = st.lists(st.sampled_from(
    ["word", "two words", " ", "  ", "\n", "\n\n", "\t\t", "\xa0", "漢字", "ภาษา", "é", "İ", "x",
     '<a href="/local">', '<a href="http://www.example.com/a?b=1&amp;c=2">', "<a>", "</a>", "<p>", "</p>",
     "<h1>", "</h1>", "<ul>", "<li>", "</li>", "<pre>", "<br>", "<br>\n", "&amp;", "&lt;", "&gt;",
     "&quot;", "&#39;", "&", "&am"]), max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(_MINIMAL)
def test_blocks_of_minimal_html_are_those_of_the_reference(minimal: str) -> None:
    texts, words, links = minimal_html_chunks(minimal)
    text, want_blocks, _ = ref.blocks("", ref.minimal_html_marked(minimal))
    assert texts == [text[start:end] for start, end, _, _, _ in want_blocks]
    assert words == [n for _, _, n, _, _ in want_blocks]
    assert links == [k for _, _, _, k, _ in want_blocks]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_words_are_the_regex_words_of_the_lower_cased_text(text: str) -> None:
    assert ascii_words(text) == re.findall(r"\w+", text.lower())


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_words_of_is_the_reference_tokenizer(text: str) -> None:
    assert words_of(text) == ref.words_of(text)


_VOCABULARY = sorted(set().union(*(_stopwords(code) for code in LANGUAGES)))[::7] + [
    "house", "river", "council", "haus", "maison", "casa"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_VOCABULARY), max_size=60))
def test_function_word_vote_is_that_of_the_reference(words: list[str]) -> None:
    assert function_word_language(words) == ref.function_word_language(words)


# Sentences of languages we have lists for, of their neighbours, and of none: mixed and cut
# short, pieces the detector is unsure of and function words decide.
_SENTENCES = [
    "The council said on Monday that the plan will be paid for by a tax on drinks.",
    "Der Rat sagte am Montag, dass der Plan durch eine Steuer bezahlt wird.",
    "Le conseil a dit lundi que le plan sera payé par une taxe sur les boissons.",
    "El consejo dijo el lunes que el plan se pagará con un impuesto.",
    "Il consiglio ha detto lunedì che il piano sarà pagato con una tassa.",
    "De raad zei maandag dat het plan wordt betaald met een belasting.",
    "O conselho disse na segunda-feira que o plano será pago com um imposto.",
    "Rådet sa mandag at planen skal betales med en skatt på brus.",
    "El consell va dir dilluns que el pla es pagarà amb un impost.",
    "Scores: 102-98, 87-85, 110-104 (OT).", "議会は月曜日に計画を発表した。",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_SENTENCES), min_size=1, max_size=12), st.integers(20, 3000))
def test_language_is_that_of_the_reference(sentences: list[str], cut: int) -> None:
    text = " ".join(sentences)[:cut]
    assert detect_language(text) == ref.detect_language(text)


def test_a_headline_in_microdata_is_found_whatever_the_attribute_looks_like() -> None:
    # Attribute names are case-blind: the page's own bytes need not spell "itemprop" in
    # lower case. The <title> names the site, so only the microdata gives the headline.
    story = "Council votes for the new harbour plan"
    for attribute in ("itemprop", "ItemProp", "ITEMPROP"):
        page = (f'<html><head><title>The Daily Example</title></head><body><p>Home News Sport</p>'
                f'<div {attribute}="headline">{story}</div><p>x</p></body></html>')
        assert extract(page).title == story, attribute


@settings(max_examples=300, deadline=None)
@given(st.one_of(_TEXT, st.text(max_size=30), st.text(st.characters(max_codepoint=127), max_size=30)))
def test_compact_is_that_of_the_reference(text: str) -> None:
    assert compact(text) == ref.compact(text)
