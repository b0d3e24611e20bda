"""Signatures in the page's language; pages in different languages never match.

The fixtures in tests/data/languages are invented news pages: for German, French and
Spanish one story as two sites ran it (each in its own frame: navigation, teasers,
newsletter box, footer; headline and a sentence or two edited) and a second story in the
first site's frame; an English, a Finnish and a Japanese page in a third frame.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.core.records import RawPage
from workbench.detect.join.jaccard import multiset_jaccard
from workbench.detect.spotsigs.extract import extract_page, extract_text
from workbench.detect.spotsigs.hashing import chain_id
from workbench.detect.spotsigs.params import AntecedentSpec, SpotSigsParams
from workbench.detect.spotsigs.punctuation import punctuation_spots
from workbench.detect.spotsigs.scheme import PUNCTUATION, SPOTS, scheme_for
from workbench.detect.spotsigs.signatures import block_signatures, page_spots, spot_id, spots_in
from workbench.gui.sidebyside.pagetext import params_from_dict
from workbench.text.languages import language
from workbench.text.tokenize import tokenize, words_of
from workbench.usecases.pipeline import run_dedup

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "languages"
STORIES = {"de": ("rheinbruecke", "grundschule"), "fr": ("secheresse", "musee"),
           "es": ("peatonal", "incendio")}


def raw(path: Path) -> RawPage:
    return RawPage(path.relative_to(FIXTURES).as_posix(), path.read_bytes())


def page(lang: str, name: str, params: SpotSigsParams | None = None):
    return extract_page(raw(FIXTURES / lang / name), params or SpotSigsParams())


def multiset(extracted) -> dict[int, int]:
    ids, counts = extracted.vector()
    return dict(zip(ids.tolist(), counts.tolist(), strict=True))


@pytest.mark.parametrize("lang", sorted(STORIES))
def test_syndicated_story_matches_and_another_story_in_the_same_frame_does_not(lang):
    story, other = STORIES[lang]
    first = page(lang, f"site1-{story}.html")
    syndicated = page(lang, f"site2-{story}.html")
    different = page(lang, f"site1-{other}.html")
    assert multiset_jaccard(multiset(first), multiset(syndicated)) > 0.5
    assert multiset_jaccard(multiset(first), multiset(different)) < 0.1
    assert multiset_jaccard(multiset(syndicated), multiset(different)) < 0.1


@pytest.mark.parametrize("lang", sorted(STORIES))
def test_pages_get_signatures_of_their_own_language(lang):
    params = SpotSigsParams()
    antecedents = set(language(lang).antecedents)
    for path in sorted((FIXTURES / lang).glob("*.html")):
        extracted = extract_page(raw(path), params)
        assert extracted.info.language == lang
        assert extracted.info.signature_kind == SPOTS
        assert len(extracted.spot_ids) >= 3 * params.min_sigs, path.name  # not "too little text"
        spots = block_signatures(extract_text(raw(path))[0], params).spots
        assert all(sp.namespace == lang and sp.text.split(":")[0] in antecedents for sp in spots)
        # With English antecedents alone the same page had next to nothing to compare (the
        # Spanish preposition "a" is the English article).
        english_only = extract_page(raw(path), SpotSigsParams(languages=False)).spot_ids
        assert len(english_only) < len(extracted.spot_ids) / 5


def test_the_engine_clusters_each_story_and_nothing_across_languages(tmp_path: Path):
    shutil.copytree(FIXTURES, tmp_path / "pages")
    result = run_dedup(tmp_path / "pages", workers=1)
    groups = sorted(sorted(result.pages[m].key for m in c.members) for c in result.clusters)
    assert groups == [[f"{lang}/site1-{STORIES[lang][0]}.html", f"{lang}/site2-{STORIES[lang][0]}.html"]
                      for lang in ("de", "es", "fr")]
    by_key = {p.key: p for p in result.pages}
    assert not [p.key for p in result.pages if p.skip_reason and p.key.split("/")[0] in STORIES]
    assert by_key["fi/story.html"].language == "fi"
    assert by_key["fi/story.html"].signature_kind == PUNCTUATION
    assert by_key["en/story.html"].language == "en"


def test_english_and_german_pages_never_share_a_signature_id():
    english = page("en", "story.html")
    german = page("de", "site1-rheinbruecke.html")  # the same story in German
    assert not set(english.spot_ids.tolist()) & set(german.spot_ids.tolist())
    # Even the same words give different ids in different languages: here Portuguese
    # and English text that both read "a casa branca".
    words = words_of("Tourists queued for hours to see a casa branca where the poet lived.")
    params = SpotSigsParams()
    pt, en = scheme_for("pt", params), scheme_for("en", params)
    pt_spots = spots_in(words, pt.table, pt.stopwords, namespace=pt.namespace)
    en_spots = spots_in(words, en.table, en.stopwords, namespace=en.namespace)
    assert "a:casa:branca" in {s.text for s in pt_spots} & {s.text for s in en_spots}
    assert not {spot_id(s) for s in pt_spots} & {spot_id(s) for s in en_spots}


def test_english_ids_are_those_of_runs_before_languages():
    on = page("en", "story.html")
    off = page("en", "story.html", SpotSigsParams(languages=False))
    assert on.spot_ids.tolist() == off.spot_ids.tolist()
    spots = block_signatures(extract_text(raw(FIXTURES / "en" / "story.html"))[0], SpotSigsParams()).spots
    # English ids carry no language: those of the text alone, the same with languages off.
    assert [chain_id("", s.text.split(":")) for s in spots] == on.spot_ids.tolist()
    assert all(s.namespace == "" and s.key == s.text for s in spots)


def test_a_finnish_page_gets_punctuation_signatures_and_says_so():
    finnish = page("fi", "story.html")
    assert (finnish.info.language, finnish.info.signature_kind) == ("fi", PUNCTUATION)
    assert len(finnish.spot_ids) >= SpotSigsParams().min_sigs
    spots = block_signatures(extract_text(raw(FIXTURES / "fi" / "story.html"))[0], SpotSigsParams()).spots
    assert {s.namespace for s in spots} == {"punct:fi"}
    assert "itäkeskukseen," in {s.text for s in spots}  # the word before each comma (SigNCD)


def test_a_japanese_page_gets_punctuation_signatures_at_ideographic_commas():
    # With the default block filter: a Japanese paragraph counts as many words, not one.
    params = SpotSigsParams()
    japanese = page("ja", "story.html", params)
    assert (japanese.info.language, japanese.info.signature_kind) == ("ja", PUNCTUATION)
    spots = page_spots(extract_text(raw(FIXTURES / "ja" / "story.html"))[0], params)
    assert "都の担当者によると," in {s.text for s in spots.spots}
    assert len(japanese.spot_ids) >= params.min_sigs


def test_an_undetermined_page_gets_its_own_punctuation_namespace():
    scheme = scheme_for(None, SpotSigsParams())
    assert (scheme.language, scheme.kind, scheme.namespace) == (None, PUNCTUATION, "punct")


def test_punctuation_spots_are_the_word_before_each_comma():
    text = "Oslo, Bergen og Tromsø, 1,5 millioner, ifølge SSB."
    tokens = tokenize(text)
    spots = punctuation_spots(text, tokens, 0, len(tokens), 0, len(text))
    assert [s.text for s in spots] == ["oslo,", "tromsø,", "millioner,"]  # not the 1,5 decimal comma
    first = spots[0]
    assert text[tokens.starts[first.antecedent] : tokens.ends[first.antecedent]] == "Oslo"
    # A comma that opens the range has no word before it there.
    assert punctuation_spots(", og", tokenize(", og"), 0, 1, 0, 4) == []


def test_other_languages_take_the_distance_and_chain_of_the_english_specs():
    params = SpotSigsParams(specs=tuple(AntecedentSpec(w, 2, 3) for w in ("the", "a", "is")))
    assert params.language_shape() == (2, 3)
    german = scheme_for("de", params)
    assert {(s.distance, s.chain) for specs in german.table.values() for s in specs} == {(2, 3)}
    assert SpotSigsParams().language_shape() == (1, 2)


def test_turning_languages_off_gives_every_page_english_antecedents():
    params = SpotSigsParams(languages=False)
    german = page("de", "site1-rheinbruecke.html", params)
    assert (german.info.language, german.info.signature_kind) == (None, SPOTS)


def test_the_setting_round_trips_and_older_runs_read_back_without_languages():
    params = SpotSigsParams(languages=False)
    assert params_from_dict(params.to_dict()) == params
    assert params_from_dict(SpotSigsParams().to_dict()).languages is True
    older = SpotSigsParams().to_dict()
    del older["languages"]
    assert params_from_dict(older).languages is False


def test_every_gold_set_page_keeps_its_signature_ids(goldset_dev):
    """The English Gold Set gives the same ids with languages told apart as without."""
    on, off = SpotSigsParams(), SpotSigsParams(languages=False)
    changed = []
    for path in sorted(goldset_dev.rglob("*.htm*")):
        extracted, _ = extract_text(RawPage(path.name, path.read_bytes(), content_type="text/html"))
        a, b = block_signatures(extracted, on), block_signatures(extracted, off)
        if [spot_id(s) for s in a.spots] != [spot_id(s) for s in b.spots]:
            changed.append((path.name, a.language, a.kind))
    assert not changed
