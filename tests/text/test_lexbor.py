"""One parse with Lexbor: what the page's blocks, links and depth are read as."""

from __future__ import annotations

import numpy as np
from resiliparse.parse.html import HTMLTree

from workbench.text.html import extract
from workbench.text.lexbor import _VOID_NAMES, MAX_MAIN_DEPTH, _nesting_bound, _too_deep, read_page

STORY = ("The council said on Monday that the new school meals plan will be paid for by a tax "
         "on sugary drinks, which parents have asked for since the report was published.")


def _bound(markup: str) -> int:
    return _nesting_bound(np.frombuffer(markup.encode(), dtype=np.uint8), _VOID_NAMES)


def _nested(depth: int, closing: str = "</div>") -> str:
    return f"<html><body>{'<div>' * depth}<p>{STORY}</p>{closing * depth}</body></html>"


def test_the_nesting_bound_counts_open_elements_but_not_void_or_self_closed_ones():
    assert _bound("<html><body><div><p>x<br><img src=a><hr/><b>y</b></p></div></body></html>") == 5
    assert _bound("<BR><Img src=x><WBR><basefont><meta charset=utf-8><input/>") == 0
    assert _bound("<brx><b>") == 2  # not void: only a void element's whole name is
    assert _bound("<!-- <div> --> a < b and 3<4") == 1  # a '<' before a letter counts (a bound)
    # A closing tag closes its element and those left open in it, as a parser does.
    assert _bound("<div><p>one<p>two<li>three</div><div><p>four</div>") == 4
    assert _bound("<div><span>x</div></div></div><b>y</b>") == 2


def test_a_page_deeper_than_the_limit_is_too_deep_for_main_content():
    for depth, deep in ((MAX_MAIN_DEPTH - 10, False), (MAX_MAIN_DEPTH + 10, True)):
        page = _nested(depth)
        assert _too_deep(page.encode(), HTMLTree.parse(page)) is deep
    # Closing tags of nothing close nothing: they cannot hide the depth.
    hidden = f"<html><body>{'<div></span>' * (MAX_MAIN_DEPTH + 10)}<p>{STORY}</p></body></html>"
    assert _bound(hidden) > MAX_MAIN_DEPTH
    assert _too_deep(hidden.encode(), HTMLTree.parse(hidden))


def test_sloppy_markup_that_looks_deep_is_asked_of_the_tree():
    # 400 unclosed <p>: the markup's bound is 400, the tree (which closes each <p>) is flat.
    page = "<html><body>" + "<p>line of text" * 400 + "</body></html>"
    assert _bound(page) > MAX_MAIN_DEPTH
    assert not _too_deep(page.encode(), HTMLTree.parse(page))
    found = read_page(page, main_content=True)
    assert found is not None and len(found.blocks[0]) == 400


def test_an_empty_link_does_not_make_the_text_after_it_a_link():
    # resiliparse writes no end tag for <a href=x></a>: the story is no link text.
    page = f"<html><body><a href='/'></a><p>{STORY}</p><p><a href='/a'>Home</a></p></body></html>"
    blocks = extract(page).blocks
    assert [(b.words, b.link_words) for b in blocks] == [(len(STORY.split()), 0), (1, 1)]


def test_a_link_around_blocks_makes_their_words_link_words():
    page = ("<html><head><title>Site</title></head><body><a href='/story'><h3>Teaser headline here</h3>"
            f"<p>Teaser text of it</p></a><p>{STORY}</p></body></html>")
    blocks = extract(page).blocks[1:]  # the title first
    assert [(b.words, b.link_words) for b in blocks][:2] == [(3, 3), (4, 4)]
    assert blocks[2].link_words == 0


def test_escaped_text_is_read_back_and_a_pages_own_marker_characters_are_no_markers():
    page = "<html><body><p>Fish &amp; chips &lt;b&gt; \"quoted\" \ue000x\ue001 y\ue002z</p></body></html>"
    assert extract(page).text == 'Fish & chips <b> "quoted" x y z\n'


def test_table_cells_and_list_items_are_blocks_and_br_is_a_space():
    page = ("<html><body><table><tr><td>one cell</td><td>two cell</td></tr></table>"
            "<ul><li>first item</li><li>second item</li></ul><p>line one<br>line two</p></body></html>")
    assert extract(page).text == "one cell\ntwo cell\nfirst item\nsecond item\nline one line two\n"


def test_the_link_host_is_read_from_the_pages_links():
    links = "".join(f"<a href='https://www.example.com/{k}'>story {k}</a> " for k in range(4))
    page = f"<html><body><p>{links}</p><p><a href='http://ads.test/x'>ad</a></p></body></html>"
    assert extract(page).link_host == "example.com"
