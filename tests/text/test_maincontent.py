"""Main content: the article's blocks are marked, the frame's are not, spans stay ours."""

from __future__ import annotations

from workbench.detect.params import SpotSigsParams
from workbench.detect.signatures import kept_blocks, page_spots
from workbench.text.html import extract
from workbench.text.maincontent import main_blocks

TEASER = ("Our newsletter brings you the best of the week in one email every Friday morning, "
          "with the stories our editors have chosen for you and a few you may have missed.")
NAV = "".join(f'<li><a href="/section/{k}">Section {k}</a></li>' for k in range(12))


def page(paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f"<html><head><title>The Daily Example</title></head><body>"
            f"<header><nav><ul>{NAV}</ul></nav></header>"
            f"<aside class='promo'><p>{TEASER}</p></aside>"
            f"<main><article><h1>Council votes on the harbour plan</h1>{body}</article></main>"
            f"<footer><p>{TEASER}</p><p>Copyright The Daily Example, all rights reserved.</p></footer>"
            f"</body></html>")


STORY = [
    "The city council voted on Tuesday evening to approve the long debated plan for the old "
    "harbour, after a meeting that lasted more than six hours and drew a crowd of residents.",
    "Supporters said the plan would bring new housing and a public park to the waterfront, "
    "while opponents warned that the cost had been underestimated by the planning office.",
    "The mayor said the vote was a turning point for the district and promised that work "
    "would begin before the end of the year if the regional government gives its consent.",
]


def test_article_blocks_are_main_and_the_frame_is_not():
    ex = extract(page(STORY), main_content=True)
    assert ex.main_found
    main_text = [ex.text[b.start:b.end] for b in ex.blocks if b.main]
    for paragraph in STORY:
        assert paragraph in main_text
    assert TEASER not in main_text
    assert not any("Section" in t for t in main_text)


def test_signatures_come_from_the_article_and_spans_index_the_shown_text():
    ex = extract(page(STORY), main_content=True)
    params = SpotSigsParams()
    kept = kept_blocks(ex, params)
    assert kept and all(b.main for b in kept)
    spots = page_spots(ex, params)
    for spot in spots.spots:
        word = spots.tokens.words[spot.antecedent]
        start, end = spots.tokens.starts[spot.antecedent], spots.tokens.ends[spot.antecedent]
        assert ex.text[start:end].lower() == word
        assert any(b.start <= start < b.end for b in kept)
    # Without main content the teaser, which reads like prose, is a source of signatures too.
    whole = kept_blocks(ex, SpotSigsParams(main_content=False))
    assert any(ex.text[b.start:b.end] == TEASER for b in whole)


def test_no_main_content_means_the_whole_page():
    ex = extract("<html><body><p>one two three</p></body></html>", main_content=True)
    assert not ex.main_found or all(b.main for b in ex.blocks if b.tag != "title")
    assert main_blocks("", ["anything"]) is None
    # A main text that our blocks barely cover is not trusted.
    assert main_blocks("alpha beta gamma delta epsilon zeta eta theta", ["alpha beta"]) is None


def test_short_blocks_must_be_whole_lines_of_the_main_text():
    main = "The council voted on the harbour plan and shared the news.\nRead more"
    flags = main_blocks(main, ["The council voted on the harbour plan and shared the news.", "shared",
                               "Read more"])
    assert flags == [True, False, True]
