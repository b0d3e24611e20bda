"""The faster extraction (issue 11) gives what the code before it gave: its pieces against
the old definitions kept in tests/text/extraction_reference.py, on random markup."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.text import extraction_reference as ref
from workbench.text.headline import compact
from workbench.text.html import _blocks, _marked_text, extract
from workbench.text.langdetect import _stopwords, detect_language, function_word_language
from workbench.text.languages import LANGUAGES
from workbench.text.maincontent import main_blocks
from workbench.text.parse import parse_html
from workbench.text.tokenize import ascii_words, words_of

# Text with what word counting and whitespace collapsing meet on real pages: Unicode spaces,
# Latin-1 and other non-ASCII letters, scripts written without spaces, and case pairs whose
# lower-casing changes length ("İ").
_TEXT = st.lists(st.sampled_from(
    list("ab Z9_ .,-'\t\n") + ["\xa0", "\u2003", "\u3000", "©", "é", "’", "—", "İ", "ß", "漢", "字",
                              "ภ", "ษ", "カ", "ナ", "&amp;", "&lt;", "&#160;"]), max_size=30).map("".join)
_TAGS = ["div", "p", "li", "ul", "td", "tr", "table", "h1", "h2", "h3", "title", "span", "b",
         "a", "br", "img", "script", "style", "noscript", "embed", "select", "option", "template"]
_HREFS = st.sampled_from(["", "/local", "http://www.Example.com/a", "HTTPS://news.example.org",
                          "hTTp://x.y:80/z", "ftp://files", "http:/broken", "https://example.com"])


@st.composite
def _element(draw: st.DrawFn, depth: int = 0) -> str:
    tag = draw(st.sampled_from(_TAGS))
    attrs = f' href="{draw(_HREFS)}"' if tag == "a" and draw(st.booleans()) else ""
    children = draw(st.lists(_TEXT | (_element(depth + 1) if depth < 4 else _TEXT), max_size=4))
    closed = draw(st.booleans())  # unclosed tags leave the nesting to the parser
    return f"<{tag}{attrs}>{''.join(children)}" + (f"</{tag}>" if closed else "")


# Pages, some with markup after </html> (libxml2 makes a second root element of it).
_PAGES = st.tuples(st.lists(_TEXT | _element(), min_size=1, max_size=5),
                   st.sampled_from(["", "<script>var late = 1;</script>", "<p>after the end</p>"])).map(
    lambda page: "<html><head><title>T</title></head><body>" + "".join(page[0]) + "</body></html>" + page[1])

# Visible text with markers as the tree gives it, and also as it never could: links inside
# links, closing markers with no opening one, links left open, markers in runs.
_FLAT = st.lists(st.sampled_from(
    ["word", "two words", " ", "  ", "\t", "\xa0", ref.LINK_OPEN, ref.LINK_CLOSE, ref.BREAK, "漢字",
     "ภาษา", "é", "İ", "x"]), max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(_PAGES)
def test_marked_text_and_blocks_are_those_of_the_reference(page: str) -> None:
    parsed, again = parse_html(page), parse_html(page)
    if parsed is None or again is None:
        return
    _, title, flat, hosts = _marked_text(parsed.root, parsed.microdata)
    assert flat == ref.marked_text(again.root)
    assert list(hosts.items()) == list(ref.link_hosts(again.root).items())  # order: ties
    text, blocks, shown, texts = _blocks(title, flat)
    want_text, want_blocks, want_shown = ref.blocks(title, flat)
    assert (text, shown) == (want_text, want_shown)
    assert [(b.start, b.end, b.words, b.link_words, b.tag) for b in blocks] == want_blocks
    assert texts == [text[b.start : b.end] for b in blocks]


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["", "A Title", "漢字の見出し", "İstanbul ß"]), _FLAT)
def test_blocks_of_any_marked_text_are_those_of_the_reference(title: str, flat: str) -> None:
    text, blocks, shown, _ = _blocks(title, flat)
    want_text, want_blocks, want_shown = ref.blocks(title, flat)
    assert (text, shown) == (want_text, want_shown)
    assert [(b.start, b.end, b.words, b.link_words, b.tag) for b in blocks] == want_blocks


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


# Lines of main text as resiliparse writes them, and as it might: untidy whitespace, a line
# separator inside a line, invisible characters.
_MAIN_LINES = ["the council", "voted today on", "the harbour plan", "Share",
               "and shared the news with everyone", " the  council\t", "the\xa0harbour plan",
               "voted\u2028today on", "Share\x1c", "\u200bShare", ""]
_BLOCK_TEXTS = ["the council voted today on", "Share", "the harbour plan and", "shared the news",
                "nothing of this"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_MAIN_LINES), min_size=1, max_size=6),
       st.lists(st.sampled_from(_BLOCK_TEXTS), max_size=8))
def test_main_blocks_of_normalised_texts_are_those_of_the_reference(lines: list[str],
                                                                     texts: list[str]) -> None:
    main_text = "\n".join(lines)
    assert main_blocks(main_text, texts, normalised=True) == ref.main_blocks(main_text, texts)


def test_a_headline_in_microdata_is_found_whatever_the_attribute_looks_like() -> None:
    # libxml2 lower-cases attribute names and drops control characters inside them, so the
    # page's own bytes need not spell "itemprop".
    story = "Council votes for the new harbour plan"
    for attribute in ("itemprop", "ItemProp", "ITEMPROP", "item\x01prop"):
        page = f'<html><body><div {attribute}="headline">{story}</div><p>x</p></body></html>'
        assert extract(page).title == story, attribute


@settings(max_examples=300, deadline=None)
@given(st.one_of(_TEXT, st.text(max_size=30), st.text(st.characters(max_codepoint=127), max_size=30)))
def test_compact_is_that_of_the_reference(text: str) -> None:
    assert compact(text) == ref.compact(text)
