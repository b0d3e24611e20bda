"""Reused passages of two texts: shares against a hand count, small edits, no chance passages.

The fixture (tests/data/passages) was counted by hand:

* reference.txt, 58 words: sentence R1 (23 words: "The city council ... next summer"),
  R2 (14 words: "Engineers found cracks ... in March"), R3 (21 words: "Drivers will
  have to ... at rush hour").
* member.txt, 60 words: "Local news in brief" (4 words of its own), R1 with its
  punctuation changed (a comma, quotes, "!": 23 words, all the same), R3 with one word
  changed ("twenty" → "thirty": 21 words, 20 the same), and a closing sentence of its own
  (12 words: "Readers can send ... email or post").

So the member carries R1 and R3: 23 + 21 = 44 words of the reference's 58 (76 %), and
those 44 words are 44 of its own 60 (73 %).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.gui.sidebyside.passagemarks import percent, share_sentence
from workbench.text.passages import Passage, align
from workbench.text.tokenize import tokenize

DATA = Path(__file__).resolve().parent.parent / "data" / "passages"


def words(name: str) -> list[str]:
    return tokenize((DATA / f"{name}.txt").read_text(encoding="utf-8")).words


def test_shares_of_two_pages_against_a_hand_count() -> None:
    reference, member = words("reference"), words("member")
    assert (len(reference), len(member)) == (58, 60)
    found = align(reference, member)
    assert found.passages == (
        Passage(0, 23, 4, 27, 23),  # R1: the reference's words 0-22 are the member's 4-26
        Passage(37, 58, 27, 48, 20),  # R3, after R2's 14 words: "thirty" is no match
    )
    assert (found.a_covered, found.b_covered) == (44, 44)
    assert found.share_of_a == pytest.approx(44 / 58)
    assert found.share_of_b == pytest.approx(44 / 60)
    assert share_sentence(found) == ("73 % of this page is the reference's text; "
                                     "it carries 76 % of the reference.")
    related = share_sentence(found, "the related page")
    assert related.startswith("73 % of this page is the related page's text")


def test_small_edits_stay_inside_one_passage() -> None:
    base = ("the minister said on friday that the new rules on fishing quotas would come into force "
            "in january after talks with the boat owners broke down late on thursday night").split()
    changed = list(base)
    changed[9] = "old"  # a changed word
    del changed[16]  # a dropped word ("into")
    changed.insert(21, "finally")  # an added word
    found = align(base, changed)
    assert len(found.passages) == 1
    only = found.passages[0]
    assert (only.a_start, only.a_end, only.b_start, only.b_end) == (0, len(base), 0, len(changed))
    assert found.share_of_a == found.share_of_b == 1.0
    assert only.matched == len(base) - 2  # all but the changed and the dropped word


def test_a_rewrite_is_no_reuse() -> None:
    """Every third word changed: the same story, retold, shares no run of five words."""
    base = [f"w{i}" for i in range(60)]
    rewritten = [w if i % 3 else f"x{i}" for i, w in enumerate(base)]
    assert align(base, rewritten).passages == ()


def test_no_passage_for_unrelated_texts() -> None:
    reference, unrelated = words("reference"), words("unrelated")
    found = align(reference, unrelated)
    assert found.passages == ()
    assert found.share_of_a == found.share_of_b == 0.0
    assert share_sentence(found).startswith("No passage of this page is the reference's text")
    # They do share a stock phrase of six words ("until the end of next summer"): too short
    # to be a passage, but found when the minimum is lowered.
    assert [(p.a_start, p.a_end) for p in align(reference, unrelated, min_words=5).passages] == [(17, 23)]


def test_moved_paragraphs_are_found_in_their_new_order() -> None:
    reference = words("reference")
    member = reference[37:] + reference[:23]  # R3 first, then R1
    found = align(reference, member)
    spans = [(p.a_start, p.a_end, p.b_start, p.b_end) for p in found.passages]
    assert spans == [(37, 58, 0, 21), (0, 23, 21, 44)]
    assert found.share_of_b == 1.0


def test_a_page_carrying_the_reference_twice_counts_its_words_once() -> None:
    reference = words("reference")
    found = align(reference, reference + reference)
    assert found.share_of_a == 1.0 and found.share_of_b == 1.0
    assert found.a_covered == len(reference)


def test_empty_texts_have_no_share() -> None:
    found = align([], words("member"))
    assert found.share_of_a is None and found.share_of_b == 0.0
    assert share_sentence(found) == ""


def test_percent_never_rounds_to_all_or_nothing() -> None:
    assert percent(0.996) == "99 %" and percent(1.0) == "100 %"
    assert percent(0.001) == "under 1 %" and percent(0.0) == "0 %"
    assert percent(0.82) == "82 %"
