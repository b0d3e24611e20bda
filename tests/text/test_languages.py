"""Per-language antecedents and stopwords, and telling a page's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from resiliparse.parse.lang import detect_fast

from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_text
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.spotsigs.signatures import kept_blocks
from workbench.text.langdetect import detect_language, function_word_language
from workbench.text.languages import ENGLISH, LANGUAGES, language
from workbench.text.stopwords import DEFAULT_ANTECEDENTS, ENGLISH_STOPWORDS
from workbench.text.tokenize import words_of

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "languages"


def kept_text(path: Path, params: SpotSigsParams | None = None) -> str:
    params = params or SpotSigsParams()
    extracted, _ = extract_text(RawPage(path.name, path.read_bytes()))
    return "\n".join(extracted.text[b.start : b.end] for b in kept_blocks(extracted, params))


def test_english_lists_are_exactly_the_ones_english_runs_always_used():
    en = language(ENGLISH)
    assert en.antecedents == DEFAULT_ANTECEDENTS
    assert en.stopwords is ENGLISH_STOPWORDS


def test_the_seven_languages_and_nothing_else():
    assert set(LANGUAGES) == {"en", "de", "fr", "es", "it", "nl", "pt"}
    assert language("fi") is None
    assert language(None) is None


@pytest.mark.parametrize("code", LANGUAGES)
def test_antecedents_are_single_tokens_and_stopwords(code):
    lang = language(code)
    assert len(set(lang.antecedents)) == len(lang.antecedents)
    for word in lang.antecedents:
        assert words_of(word) == [word], word  # what the tokenizer makes of running text
        # An antecedent met inside another spot's chain is skipped, as in English.
        assert word in lang.stopwords, word


@pytest.mark.parametrize("code, words", [
    ("de", "der die das ein einem ist war sind hat hatte kann konnte wird wurde würde worden sei"),
    ("fr", "le la les l un une des du au aux est était sera serait a avait aura peut pourrait va"),
    ("es", "el la los las lo un unas al del es fue será está estaba ha había hay tiene puede podría va"),
    ("it", "il lo la i gli l un uno una dell della nell sull è era sarà ha aveva può potrebbe stato"),
    ("nl", "de het een is was zijn heeft had kan kon zal zou geweest"),
    ("pt", "o a os as um uma ao à do da no na pelo pela é foi será está tem tinha há pode vai"),
])
def test_articles_contractions_and_auxiliaries(code, words):
    antecedents = set(language(code).antecedents)
    assert set(words.split()) <= antecedents


@pytest.mark.parametrize("code, content", [
    ("fr", "état valeur sujet"), ("es", "trabajo tiempo verdad"), ("it", "lavoro gente persone"),
    ("pt", "povo trabalho tempo"),
])
def test_content_words_of_the_package_lists_stay_signature_words(code, content):
    assert not set(content.split()) & language(code).stopwords


def test_package_entries_become_tokens():
    # "l'" and "d'" are listed with their apostrophe; the tokenizer gives "l" and "d".
    fr = language("fr").stopwords
    assert {"l", "d", "qu", "n"} <= fr
    assert not any("'" in w or "-" in w or " " in w for code in LANGUAGES for w in language(code).stopwords)


@pytest.mark.parametrize("folder, code", [("de", "de"), ("fr", "fr"), ("es", "es"), ("en", "en"),
                                          ("fi", "fi")])
def test_fixture_pages_are_detected_in_their_language(folder, code):
    for page in sorted((FIXTURES / folder).glob("*.html")):
        assert detect_language(kept_text(page)) == code, page.name


def test_japanese_is_detected_and_its_paragraphs_pass_the_block_filter():
    text = kept_text(FIXTURES / "ja" / "story.html", SpotSigsParams())
    assert detect_language(text) == "ja"


def test_short_text_is_decided_by_function_words():
    # A photo caption: the n-gram detector alone calls it Icelandic (a Gold Set caption like
    # it came out Swedish).
    text = ("Anna Lindqvist, girlfriend of Prince Henrik of Denmark, leaves her home in Kensington, "
            "London, January 9, 2007. Photographers have waited outside her flat every day since "
            "her birthday.")
    assert detect_fast(text)[0] != "en"
    assert detect_language(text) == "en"


def test_too_little_text_is_undetermined():
    assert detect_language("") is None
    assert detect_language("   \n ") is None
    assert detect_language("Startseite Impressum") is None


def test_function_words_need_a_clear_lead():
    portuguese = ("O governo anunciou que a nova ponte sobre o rio será aberta ao trânsito no fim do "
                  "mês, depois de dois anos de obras que custaram mais do que o previsto.")
    assert function_word_language(words_of(portuguese)) == "pt"
    # Catalan shares its function words with Spanish and French alike: no language wins.
    catalan = ("El govern ha aprovat aquest dimarts un pla per millorar el transport públic a les "
               "comarques de l'interior, i el servei començarà a funcionar el mes de setembre.")
    assert function_word_language(words_of(catalan)) is None
    assert function_word_language(["der", "hund"]) is None  # too few words to tell
