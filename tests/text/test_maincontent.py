"""Main content: the article's blocks are marked, the frame's are not, spans stay ours."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.spotsigs.signatures import kept_blocks, page_spots
from workbench.text.html import extract
from workbench.text.lexbor import _in_order, read_page

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


def test_main_blocks_are_matched_in_order_by_their_whole_text():
    # The main content's blocks are the page's own (one extraction of one tree): each is the
    # first block with its text after the one before. "Share" in the navigation above the
    # article is not the article's "Share"; a main block the page lacks is passed over.
    page = np.array([hash(t) for t in ("Share", "Home", "Story one", "Share", "Story two")], dtype=np.int64)
    main = np.array([hash(t) for t in ("Story one", "Not on the page", "Share", "Story two")], dtype=np.int64)
    assert _in_order(page, main).tolist() == [False, False, True, True, True]


def test_the_articles_paragraphs_are_its_last_main_blocks():
    found = read_page(page(STORY), main_content=True)
    assert found is not None and found.main is not None
    texts = found.blocks[0]
    assert [texts[k] for k in np.flatnonzero(found.main)][-3:] == STORY


GALLERY = "".join(f'<li data-gallery-legend="{k}"><p>A humanoid robot number {k} gestures during a demo '
                  f"at a stall of the machine tools expo held in the city this week.</p></li>"
                  for k in range(12))


def with_gallery(paragraphs: list[str]) -> str:
    """A story with a photo gallery of captions embedded in the article, as some sites do."""
    first = f"<p>{paragraphs[0]}</p>"
    gallery = f'<div class="container grid-mod-Gallery"><ul>{GALLERY}</ul></div>'
    return page(paragraphs).replace(first, first + gallery)


OTHER = [
    "A small bakery in the old town has won the national prize for its rye bread, the jury said "
    "at a ceremony on Saturday, the third time in a row that the family business has taken it.",
    "The owners said the recipe came from a grandmother who baked for the village for forty "
    "years, and that they would spend the prize money on repairs to their old stone oven.",
    "Customers queued around the block on Sunday morning, and the bakery sold out of bread "
    "before ten o'clock, the owners said, promising to bake twice as much the next weekend.",
]


def test_an_embedded_photo_gallery_is_not_main_content():
    ex = extract(with_gallery(STORY), main_content=True)
    assert ex.main_found
    main_text = " ".join(ex.text[b.start:b.end] for b in ex.blocks if b.main)
    assert "humanoid robot" not in main_text
    assert all(p in main_text for p in STORY)


def test_two_stories_sharing_one_gallery_are_not_near_duplicates(tmp_path):
    from workbench.usecases.pipeline import run_dedup

    (tmp_path / "harbour.html").write_text(with_gallery(STORY), encoding="utf-8")
    (tmp_path / "bakery.html").write_text(with_gallery(OTHER), encoding="utf-8")
    result = run_dedup(tmp_path, SpotSigsParams(), workers=1)
    assert len(result.floor_pairs) == 0


@pytest.mark.parametrize("attribute", ['class="PhotoGALLERY"', 'id="Gallery-1"', 'class="top SlideShow"',
                                       'id="SLIDESHOW"', 'class="news-Carousel"', 'id="CAROUSEL"'])
def test_a_gallery_is_left_out_whatever_case_or_attribute_names_it(attribute):
    """Each of the six selectors holds, whichever attribute and case name the gallery, with
    no lower-case spelling of the word anywhere on the page."""
    captions = GALLERY.replace("data-gallery-legend", "data-legend")
    first = f"<p>{STORY[0]}</p>"
    markup = page(STORY).replace(first, f"{first}<div {attribute}><ul>{captions}</ul></div>")
    assert "gallery" not in markup and "slideshow" not in markup and "carousel" not in markup
    found = read_page(markup, main_content=True)
    assert found is not None and found.main is not None
    main = " ".join(found.blocks[0][k] for k in np.flatnonzero(found.main))
    assert STORY[1] in main
    assert "humanoid robot" not in main
