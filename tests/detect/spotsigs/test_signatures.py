from __future__ import annotations

import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.detect.spotsigs.chains import Lexicon, find_chains
from workbench.detect.spotsigs.hashing import signature_id
from workbench.detect.spotsigs.params import AntecedentSpec, SpotSigsParams
from workbench.detect.spotsigs.scheme import SPOTS, Scheme, by_word
from workbench.detect.spotsigs.signatures import (
    batch_signatures,
    block_signatures,
    page_signatures,
    page_spots,
    spot_id,
    spots_in,
)
from workbench.text.html import extract
from workbench.text.tokenize import tokenize, word_bytes, words_of

OBAMA = (
    "At a rally to kick off a weeklong campaign for the South Carolina primary, Obama tried "
    "to set the record straight from an attack circulating widely on the Internet that is "
    "designed to play into prejudices against Muslims and fears of terrorism."
)


def specs(words, d, c):
    return [AntecedentSpec(w, d, c) for w in words]


def test_paper_section_3_2_example():
    got = {s.text for s in spots_in(words_of(OBAMA), specs(["a", "an", "the", "is"], 1, 2))}
    assert got == {
        "a:rally:kick", "a:weeklong:campaign", "the:south:carolina", "the:record:straight",
        "an:attack:circulating", "the:internet:designed", "is:designed:play",
    }


def test_distance_counts_stopwords_and_skips_forward_from_them():
    words = "the w1 of w2 w3 and the w4".split()
    # the(2,3): 2 words on is "of" (stopword) -> w2; 2 on from w2 is "and" -> skip "the"
    # -> w4; then the end cuts the chain. The second "the": 2 on runs past the end.
    got = [s.text for s in spots_in(words, [AntecedentSpec("the", 2, 3)])]
    assert got == ["the:w2:w4"]
    assert [s.text for s in spots_in(words, [AntecedentSpec("the", 1, 3)])] == [
        "the:w1:w2:w3", "the:w4"]


def test_chain_cut_at_end_needs_one_word():
    assert [s.text for s in spots_in("news the".split(), [AntecedentSpec("the", 1, 2)])] == []
    assert [s.text for s in spots_in("the end".split(), [AntecedentSpec("the", 1, 3)])] == ["the:end"]


def test_several_specs_at_once_and_multiset_counts():
    words = "the cat is home the cat is home".split()
    both = [AntecedentSpec("the", 1, 1), AntecedentSpec("is", 1, 1), AntecedentSpec("is", 1, 2)]
    got = [s.text for s in spots_in(words, both)]
    # The last is(1,2) chain is cut at the end after one word, so it equals is(1,1)'s.
    assert sorted(got) == ["is:home", "is:home", "is:home", "is:home:cat", "the:cat", "the:cat"]


def test_spans_of_display_path_match_fast_path():
    page = "<html><body><p>" + OBAMA + "</p><p>" + OBAMA.upper() + "</p></body></html>"
    ex = extract(page)
    params = SpotSigsParams(block_filter=False)
    display = page_spots(ex, params)
    assert [s.text for s in display.spots] == [s.text for s in page_signatures(ex, params)]
    first = display.spots[0]
    span = ex.text[display.tokens.starts[first.antecedent] : display.tokens.ends[first.chain[-1]]]
    assert span == "a rally to kick"


LANGUAGE_PAGES = sorted((Path(__file__).resolve().parents[2] / "data" / "languages").rglob("*.html"))
SETTINGS = {"default": SpotSigsParams(), "all-blocks": SpotSigsParams(block_filter=False),
            "across-blocks": SpotSigsParams(chains_within_blocks=False)}


@pytest.mark.parametrize("path", LANGUAGE_PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("params", SETTINGS.values(), ids=SETTINGS.keys())
def test_display_path_matches_fast_path_in_every_language(path, params):
    ex = extract(path.read_text(encoding="utf-8"))
    display = page_spots(ex, params)
    fast = block_signatures(ex, params)
    assert display.spots == fast.spots  # text, token indexes and language namespace
    assert display.spot_block == fast.where.tolist()
    assert display.ids == fast.ids.tolist() == [spot_id(s) for s in fast.spots]
    assert (display.language, display.kind) == (fast.language, fast.kind)


def test_chains_stay_inside_blocks():
    ex = extract("<html><body><p>one two three four five six seven eight nine ten eleven the"
                 "</p><p>next block words here and more words to fill this block up now</p></body></html>")
    inside = SpotSigsParams(block_filter=False, specs=(AntecedentSpec("the", 1, 2),))
    across = SpotSigsParams(block_filter=False, chains_within_blocks=False,
                            specs=(AntecedentSpec("the", 1, 2),))
    assert [s.text for s in page_signatures(ex, inside)] == []
    # "next" is a stopword, so the chain skips it.
    assert [s.text for s in page_signatures(ex, across)] == ["the:block:words"]


def test_block_filter_drops_navigation_and_short_blocks():
    nav = "".join(f"<li><a href='/{i}'>the section number {i} is here</a></li>" for i in range(5))
    prose = "<p>" + " ".join(["the story is about the town and the river"] * 3) + "</p>"
    ex = extract(f"<html><body><ul>{nav}</ul>{prose}</body></html>")
    params = SpotSigsParams()
    sigs = page_signatures(ex, params)
    assert sigs and all("section" not in s.text for s in sigs)
    assert any("section" in s.text for s in page_signatures(ex, SpotSigsParams(block_filter=False)))


def test_signature_ids_are_stable_across_processes():
    here = signature_id("the:south:carolina")
    code = "from workbench.detect.spotsigs.hashing import signature_id as f; print(f('the:south:carolina'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == here
    assert -(2**63) <= here < 2**63
    assert signature_id("the:south:carolina") != signature_id("the:north:carolina")


@pytest.mark.parametrize("text, spec", [("the(2,3)", ("the", 2, 3)), ("is:1:2", ("is", 1, 2)),
                                        (" Can ( 3 , 1 ) ", ("can", 3, 1))])
def test_spec_parsing(text, spec):
    s = AntecedentSpec.parse(text)
    assert (s.word, s.distance, s.chain) == spec


@pytest.mark.parametrize("bad", ["the", "the(0,2)", "two words(1,2)", "the(1,0)", ""])
def test_bad_specs_are_refused(bad):
    with pytest.raises(ValueError):
        AntecedentSpec.parse(bad)


_VOCAB = ["the", "a", "is", "of", "cat", "dog", "sat", "mat", "ran", "x1"]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_chains_found_with_arrays_equal_the_word_by_word_rule(data):
    """find_chains (all antecedents at once) gives the spots of spots_in, in its order,
    with the ids of spot_id; whatever the specs, stopwords and ranges."""
    words = data.draw(st.lists(st.sampled_from(_VOCAB), max_size=40))
    spec_list = data.draw(st.lists(st.builds(AntecedentSpec, st.sampled_from(_VOCAB[:5]),
                                             st.integers(1, 3), st.integers(1, 4)), max_size=5))
    stop = frozenset(data.draw(st.sets(st.sampled_from(_VOCAB))))
    cuts = sorted(data.draw(st.sets(st.integers(0, len(words)), max_size=4)) | {0, len(words)})
    ranges = list(pairwise(cuts))
    namespace = data.draw(st.sampled_from(["", "de"]))
    scheme = Scheme("xx", SPOTS, namespace, by_word(tuple(spec_list)), stop)
    lexicon = Lexicon(scheme)
    got = find_chains(lexicon.codes(words), ranges, lexicon)
    want = [sp for lo, hi in ranges for sp in spots_in(words, scheme.table, stop, lo, hi, namespace)]
    found = [(a, tuple(row[:n])) for a, row, n in
             zip(got.antecedent.tolist(), got.chain.tolist(), got.length.tolist(), strict=True)]
    assert found == [(sp.antecedent, sp.chain) for sp in want]
    assert got.ids.tolist() == [spot_id(sp) for sp in want]


@pytest.mark.parametrize("params", SETTINGS.values(), ids=SETTINGS.keys())
def test_a_batch_of_pages_in_many_languages_gets_each_page_its_own_signatures(params):
    pages = [extract(path.read_text(encoding="utf-8")) for path in LANGUAGE_PAGES]
    together = batch_signatures(pages, params)
    assert len({s.language for s in together}) > 3  # the batch mixes languages and kinds
    for page, batch in zip(pages, together, strict=True):
        alone = block_signatures(page, params)
        assert batch.ids.tolist() == alone.ids.tolist()
        assert batch.where.tolist() == alone.where.tolist()
        assert batch.spots == alone.spots
        assert (batch.language, batch.kind) == (alone.language, alone.kind)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ_9 .,-\nİßÉé\u0307漢")), max_size=60))
def test_words_without_spans_are_the_words_of_the_tokenizer(text):
    assert words_of(text) == tokenize(text).words


_CASED = ["the", "The", "a", "IS", "of", "cat", "Dog", "sat", "mat", "ran", "x1", "under_score", "9"]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_compiled_word_lookup_gives_each_word_the_integer_of_the_dictionary(data):
    """Lexicon.ascii_codes (one compiled pass over a page's kept blocks as bytes) gives every
    word what Lexicon.codes gives it, on a vocabulary both fill in any order (a worker's
    pages alternate between them), and counts each block's words."""
    scheme = Scheme("xx", SPOTS, "", by_word((AntecedentSpec("the", 2, 3),)), frozenset({"a", "of"}))
    lexicon = Lexicon(scheme)
    for _ in range(data.draw(st.integers(1, 4))):
        block = st.lists(st.sampled_from(_CASED), max_size=8).map(" , ".join)
        blocks = data.draw(st.lists(block, max_size=5))
        extra = data.draw(st.lists(st.text("xyz", min_size=1, max_size=6), max_size=6))  # new words
        blocks = [*blocks, " ".join(extra)]
        words = [words_of(b) for b in blocks]
        if data.draw(st.booleans()):
            lexicon.codes([w for ws in words for w in ws])
        raw = word_bytes("\n".join(blocks))
        assert raw is not None
        codes, counts = lexicon.ascii_codes(raw, np.array([len(b) for b in blocks], dtype=np.int64))
        assert counts.tolist() == [len(ws) for ws in words]
        assert codes.tolist() == lexicon.codes([w for ws in words for w in ws]).tolist()


def test_the_compiled_word_lookup_keeps_every_word_apart_as_its_table_grows():
    lexicon = Lexicon(Scheme("xx", SPOTS, "", {}, frozenset()))
    words = [f"w{k}" for k in range(20_000)]  # the table starts with 4,096 slots
    for start in range(0, len(words), 3_000):
        chunk = words[start : start + 3_000]
        codes, counts = lexicon.ascii_codes(" ".join(chunk).encode(), np.array([len(" ".join(chunk))]))
        assert counts.tolist() == [len(chunk)]
        assert lexicon.hash[codes].tolist() == [signature_id(w) & (2**64 - 1) for w in chunk]
    again, _ = lexicon.ascii_codes(" ".join(words).encode(), np.array([len(" ".join(words))]))
    assert again.tolist() == lexicon.codes(words).tolist() == list(range(len(words)))


def test_a_worker_forgets_its_words_between_batches_never_inside_one(monkeypatch):
    """Past _MAX_WORDS known words a worker's vocabulary starts afresh; the pages of a batch
    looked up before that would have kept integers that then name other words (other spot
    ids: it happened once per 500,000 new words of a worker, on large crawls)."""
    import workbench.detect.spotsigs.chains as chains
    import workbench.detect.spotsigs.signatures as signatures

    params = SpotSigsParams(languages=False)
    pages = [extract(f"<html><body><p>{words * 3}</p></body></html>") for words in (
        "the quick brown fox jumps over the lazy dog and the cat sleeps in the sun all day long ",
        "the harbour ferry leaves at noon when the tide turns and the gulls follow the boat home ")]
    alone = [block_signatures(page, params).ids.tolist() for page in pages]
    monkeypatch.setattr(chains, "_MAX_WORDS", 5)
    monkeypatch.setattr(signatures._LOCAL, "lexicons", {}, raising=False)
    for _ in range(2):  # the second batch starts past the limit
        assert [found.ids.tolist() for found in batch_signatures(pages, params)] == alone
