"""What the side-by-side view shows of the passages two pages share (no Qt here).

The passages are found on the compared words of both pages (their kept blocks, the
words the signatures came from: ``PageText.tokens``) by :func:`workbench.text.passages.align`,
and turned here into bands of each page's text and the sentence the view shows:
"82 % of this page is the reference's text; it carries 64 % of the reference".
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from workbench.gui.sidebyside.pagetext import PageText
from workbench.text.passages import MIN_WORDS, Alignment, align


@dataclass(frozen=True, slots=True)
class Band:
    """Characters ``[start, end)`` of a page's text inside passage number ``passage``
    (the same number on both pages; a passage across blocks is one band per block)."""

    start: int
    end: int
    passage: int


@dataclass(frozen=True, slots=True)
class PassageMarks:
    alignment: Alignment
    reference: list[Band]
    member: list[Band]
    sentence: str  # above the member: its share of the reference's text, and the reverse
    reference_note: str  # above the reference: its passages and words the member carries


def percent(share: float) -> str:
    """A share as the coder reads it: "82 %"; never "100 %" for less than all, nor
    "0 %" for some."""
    value = round(share * 100)
    if value == 100 and share < 1:
        value = 99
    if value == 0 and share > 0:
        return "under 1 %"
    return f"{value} %"


def share_sentence(alignment: Alignment, other: str = "the reference") -> str:
    """The view's sentence for a member (text b) aligned with ``other`` (text a)."""
    if alignment.share_of_a is None or alignment.share_of_b is None:
        return ""
    if not alignment.passages:
        return (f"No passage of this page is {other}'s text "
                f"(no run of {MIN_WORDS} or more words in common).")
    return (f"{percent(alignment.share_of_b)} of this page is {other}'s text; "
            f"it carries {percent(alignment.share_of_a)} of {other}.")


def reference_note(alignment: Alignment) -> str:
    """What the reference pane says of the passages (its words the member carries)."""
    n = len(alignment.passages)
    if not n or not alignment.a_words:
        return ""
    return (f"{n} passage{'s' if n > 1 else ''} on both pages (bands beside the text): "
            f"{alignment.a_covered:,} of its {alignment.a_words:,} compared words.")


def bands(page: PageText, ranges: list[tuple[int, int, int]]) -> list[Band]:
    """Word ranges ``(first, end, passage)`` of the page's compared words as characters,
    cut at the ends of its kept blocks (the whole-page view greys what lies between)."""
    starts, ends = page.tokens.starts, page.tokens.ends
    kept = sorted(page.kept) or [(0, len(page.text))]
    out: list[Band] = []
    for first, end, passage in ranges:
        lo, hi = starts[first], ends[end - 1]
        for block_lo, block_hi in kept:
            if block_lo < hi and lo < block_hi:
                out.append(Band(max(lo, block_lo), min(hi, block_hi), passage))
    return out


def passage_marks(reference: PageText, member: PageText, other: str = "the reference") -> PassageMarks:
    """The passages of a member and its reference (or any two pages: ``other`` names the
    first in the sentence, e.g. "the related page"), ready to draw."""
    alignment = align(reference.tokens.words, member.tokens.words)
    ps = alignment.passages
    return PassageMarks(
        alignment,
        bands(reference, [(p.a_start, p.a_end, k) for k, p in enumerate(ps)]),
        bands(member, [(p.b_start, p.b_end, k) for k, p in enumerate(ps)]),
        share_sentence(alignment, other),
        reference_note(alignment),
    )


class MarksCache:
    """The last few alignments, by the two pages shown: toggling the whole page or the
    source, or stepping back to a member, aligns nothing again."""

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._items: OrderedDict[tuple[int, int], tuple[PageText, PageText, PassageMarks]] = OrderedDict()

    def get(self, reference: PageText, member: PageText) -> PassageMarks:
        key = (id(reference), id(member))
        hit = self._items.get(key)
        # The pages are kept with the marks, so an id is never another page's while here.
        if hit is not None and hit[0] is reference and hit[1] is member:
            self._items.move_to_end(key)
            return hit[2]
        marks = passage_marks(reference, member)
        self._items[key] = (reference, member, marks)
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        return marks

    def clear(self) -> None:
        self._items.clear()
