"""Multi-Chain antecedent specs (SpotSigs tech report §3.1, ``a(m,n)``), spelt ``is[3,4]``."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.detect.spotsigs.chains import Lexicon, find_chains
from workbench.detect.spotsigs.params import AntecedentSpec, SpotSigsParams, params_from_record
from workbench.detect.spotsigs.scheme import SPOTS, Scheme, by_word, scheme_for
from workbench.detect.spotsigs.signatures import spot_id, spots_in
from workbench.store import Project


@pytest.mark.parametrize("text, word, steps, printed", [
    ("is[3,4]", "is", (3, 4), "is[3,4]"),
    (" Is [ 3 , 4 , 2 ] ", "is", (3, 4, 2), "is[3,4,2]"),
    ("the[5]", "the", (5,), "the[5]"),
    ("the[2,2,2]", "the", (2, 2, 2), "the[2,2,2]"),
])
def test_multi_chain_specs_parse_and_print_back(text, word, steps, printed):
    spec = AntecedentSpec.parse(text)
    assert (spec.word, spec.multi, spec.steps) == (word, steps, steps)
    assert str(spec) == printed
    assert AntecedentSpec.parse(str(spec)) == spec
    assert (spec.distance, spec.chain) == (steps[0], len(steps))  # derived, for readers of the two


@pytest.mark.parametrize("bad", ["is[]", "is[0,2]", "is[3,]", "is[a]", "is[3,4", "is[3;4]", "is(3,4,5)",
                                 "[3,4]"])
def test_bad_multi_chain_specs_are_refused_with_the_two_spellings(bad):
    with pytest.raises(ValueError, match=r"the\(2,3\).*is\[3,4\]|step"):
        AntecedentSpec.parse(bad)


def test_a_step_below_one_is_refused_when_built_directly():
    with pytest.raises(ValueError, match="at least 1"):
        AntecedentSpec("is", multi=(3, 0))


def test_the_old_spelling_keeps_its_meaning():
    spec = AntecedentSpec.parse("the(2,3)")
    assert spec == AntecedentSpec("the", 2, 3)
    assert (spec.multi, spec.steps, str(spec)) == ((), (2, 2, 2), "the(2,3)")
    assert AntecedentSpec.parse("the(2,3)") != AntecedentSpec.parse("the[2,3]")


def test_each_step_counts_from_the_word_the_step_before_took():
    words = "x is w1 w2 w3 w4 w5 w6 w7 w8 w9".split()
    # The paper's is(3,4): the word three after "is", then the word seven after it.
    assert [s.text for s in spots_in(words, [AntecedentSpec.parse("is[3,4]")], frozenset())] == ["is:w3:w7"]
    # A plain chain is(3,2) takes w3 then w6: the two spellings differ.
    assert [s.text for s in spots_in(words, [AntecedentSpec("is", 3, 2)], frozenset())] == ["is:w3:w6"]


def test_a_step_that_lands_on_a_stopword_moves_on_and_the_next_step_counts_from_there():
    words = "is w1 w2 of w4 w5 w6 w7 the w9".split()
    stop = frozenset({"of", "the", "is"})
    got = spots_in(words, [AntecedentSpec.parse("is[3,4]")], stop)
    # 3 on is "of" (a stopword): w4 (index 4); 4 on from there is "the": w9.
    assert [(s.text, s.chain) for s in got] == [("is:w4:w9", (4, 9))]


def test_a_chain_cut_at_the_end_keeps_the_words_it_found():
    words = "is w1 w2 w3 w4".split()
    assert [s.text for s in spots_in(words, [AntecedentSpec.parse("is[3,4]")], frozenset())] == ["is:w3"]
    assert spots_in(words, [AntecedentSpec.parse("is[5,1]")], frozenset()) == []


_VOCAB = ["the", "a", "is", "of", "cat", "dog", "sat", "mat", "ran", "x1"]
_SPECS = st.one_of(
    st.builds(AntecedentSpec, st.sampled_from(_VOCAB[:5]), st.integers(1, 3), st.integers(1, 4)),
    st.builds(lambda w, steps: AntecedentSpec(w, multi=tuple(steps)), st.sampled_from(_VOCAB[:5]),
              st.lists(st.integers(1, 6), min_size=1, max_size=4)),
)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_chains_found_with_arrays_follow_every_step_list_as_the_word_by_word_rule(data):
    """find_chains (numpy, all antecedents at once) gives the spots of spots_in, in its
    order and with its ids, for any mix of plain and Multi-Chain specs."""
    words = data.draw(st.lists(st.sampled_from(_VOCAB), max_size=40))
    spec_list = data.draw(st.lists(_SPECS, max_size=5))
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


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_VOCAB), max_size=40), st.sampled_from(_VOCAB[:5]), st.integers(1, 3),
       st.integers(1, 4), st.sets(st.sampled_from(_VOCAB)))
def test_equal_steps_take_the_words_and_ids_of_the_plain_chain(words, word, distance, chain, stop):
    plain = spots_in(words, [AntecedentSpec(word, distance, chain)], frozenset(stop))
    multi = spots_in(words, [AntecedentSpec(word, multi=(distance,) * chain)], frozenset(stop))
    assert [(s.text, s.antecedent, s.chain, spot_id(s)) for s in multi] == \
           [(s.text, s.antecedent, s.chain, spot_id(s)) for s in plain]


def test_other_languages_take_the_steps_most_specs_have():
    specs = (AntecedentSpec.parse("the[3,4]"), AntecedentSpec.parse("is[3,4]"), AntecedentSpec("a", 1, 2))
    german = scheme_for("de", SpotSigsParams(specs=specs))
    assert {s.steps for group in german.table.values() for s in group} == {(3, 4)}
    # Plain specs still give other languages plain specs of their distance and chain.
    french = scheme_for("fr", SpotSigsParams(specs=(AntecedentSpec("the", 2, 3),)))
    assert {(s.distance, s.chain, s.multi) for group in french.table.values() for s in group} == {(2, 3, ())}


def test_recorded_parameters_give_the_multi_chain_specs_back():
    params = SpotSigsParams(specs=(AntecedentSpec.parse("is[3,4]"), AntecedentSpec("the", 2, 3)))
    recorded = json.loads(json.dumps(params.to_dict()))
    assert recorded["specs"] == ["is[3,4]", "the(2,3)"]
    assert params_from_record(recorded).specs == params.specs


def test_a_cli_run_with_a_multi_chain_spec_records_it_in_the_project(tmp_path: Path):
    path = tmp_path / "study.wbproj"
    specs = ["--spec", "is[3,4]", "--spec", "the[1,2]"]
    assert main(["dedup", str(DEMO_ARCHIVE), *specs, "--project", str(path), "-q"]) == 0
    with Project.open(path, backups=0, readonly=True) as project:
        run = project.current_run()
        assert run is not None
        assert params_from_record(run.params).specs == (AntecedentSpec("is", multi=(3, 4)),
                                                      AntecedentSpec("the", multi=(1, 2)))
