"""Which layout blocks of a page are its main content (the article), found by resiliparse.

Modern templates wrap a story in hundreds of words of navigation, teasers, newsletter
pitches and legal notices; two different stories in one frame then share most of their
words. resiliparse's main-content extraction (maintained, C++ with Lexbor; 1.1-1.4 ms
a page here) finds the article. It returns plain text without offsets into our text, so
we keep our own blocks (their spans are what the coder sees highlighted) and mark a
block as main content when its text is found in resiliparse's: the text compared stays
exactly the text shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from resiliparse.extract.html2text import extract_plain_text

# A block this short is only trusted when it is a whole line of the main content:
# "Share" or "Read more" occur inside article sentences by chance.
_SHORT_BLOCK_WORDS = 4
# When our main blocks hold less than this share of resiliparse's main-content words the
# two disagree on the page's structure (frames, odd markup): the page is taken whole.
_MIN_COVERAGE = 0.3

# Photo galleries, slideshows and carousels sit inside many articles with captions that
# read like prose; one gallery embedded in two different stories of a site made them near
# duplicates (chaos-2017). They are not the story: left out of the main content.
_NOT_THE_STORY = [f'[{attr}*="{word}" i]' for attr in ("class", "id")
                  for word in ("gallery", "slideshow", "carousel")]


class _ExtractOptions(TypedDict):
    """The options of resiliparse's extract_plain_text this module sets."""

    preserve_formatting: bool
    list_bullets: bool
    alt_texts: bool
    links: bool
    form_fields: bool
    noscript: bool
    comments: bool
    skip_elements: list[str]


_OPTIONS: _ExtractOptions = {
    "preserve_formatting": True,
    "list_bullets": False,
    "alt_texts": False,
    "links": False,
    "form_fields": False,
    "noscript": False,
    "comments": False,
    "skip_elements": _NOT_THE_STORY,
}


def main_content_text(markup: str) -> str:
    """The article text resiliparse finds in the page ('' when it finds none)."""
    try:
        return extract_plain_text(markup, main_content=True, **_OPTIONS) or ""
    except Exception:  # noqa: BLE001 - a page the extractor cannot read is taken whole
        return ""


def main_blocks(main_text: str, block_texts: Sequence[str], normalised: bool = False) -> list[bool] | None:
    """For each block, whether its text is part of ``main_text``; None when the match is
    too poor to trust (nothing found, or too little of the main content covered).

    ``normalised``: the block texts have their whitespace collapsed already (single spaces,
    none at either end), as extracted blocks do; they are then compared as they are.
    """
    if not main_text.strip():
        return None
    collapsed = _collapsed_lines(main_text)
    lines = set(collapsed)
    lines.discard("")
    # Every line boundary is whitespace, so the words of the text are those of its lines.
    joined = " ".join(filter(None, collapsed))
    total = joined.count(" ") + 1 if joined else 0  # words: joined has one space between two
    flags: list[bool] = []
    covered = 0
    # A block's words are its spaces and one; an empty block is no line (lines holds no
    # empty one) and has too few words to be looked for in the running text.
    for text in block_texts:
        norm = text if normalised else " ".join(text.split())
        if norm in lines:
            flags.append(True)
            covered += norm.count(" ") + 1
        elif (spaces := norm.count(" ")) >= _SHORT_BLOCK_WORDS - 1 and norm in joined:
            flags.append(True)
            covered += spaces + 1
        else:
            flags.append(False)
    if not total or covered < _MIN_COVERAGE * total:
        return None
    return flags


def _collapsed_lines(text: str) -> list[str]:
    """``[" ".join(line.split()) for line in text.splitlines()]``, without cutting a line that
    is collapsed already (most of resiliparse's are) into words: one that is printable (no
    whitespace character but the space is), with no two spaces together and none at either
    end. One comprehension, not a function call a line."""
    return [line if line.isprintable() and "  " not in line and line[:1] != " " and line[-1:] != " "
            else " ".join(line.split()) for line in text.splitlines()]
