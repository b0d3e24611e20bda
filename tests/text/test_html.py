from __future__ import annotations

from workbench.text.html import extract, extract_plain
from workbench.text.tokenize import tokenize, words_of

PAGE = """<!DOCTYPE html><html><head><title> The  Title &amp; more </title>
<style>p { color: red }</style><script>var hidden = "script words";</script></head>
<body><!-- a comment with words -->
<noscript>noscript words</noscript><template><p>template words</p></template>
<ul><li><a href="/a">Home</a></li><li><a href="/b">World news</a></li></ul>
<p>First para&nbsp;with <b>bold</b>text and caf&eacute; &#8212; done.</p>
<div>Second block<br>same block after a break</div>
</body></html>"""


def test_invisible_content_is_dropped_and_title_kept():
    ex = extract(PAGE)
    assert ex.title == "The Title & more"
    for gone in ("script words", "color", "comment", "noscript words", "template words"):
        assert gone not in ex.text
    assert ex.text.startswith("The Title & more\n")


def test_entities_are_decoded_and_inline_markup_joins_words():
    ex = extract(PAGE)
    assert "First para with boldtext and café — done." in ex.text


def test_blocks_follow_layout_and_count_link_words():
    ex = extract(PAGE)
    texts = [ex.text[b.start : b.end] for b in ex.blocks]
    assert texts[:3] == ["The Title & more", "Home", "World news"]
    assert "Second block same block after a break" in texts
    home = ex.blocks[1]
    assert (home.words, home.link_words, home.link_ratio) == (1, 1, 1.0)
    para = next(b for b in ex.blocks if ex.text[b.start:b.end].startswith("First"))
    # Words for the block filter are whitespace-separated runs: the dash counts.
    assert para.link_words == 0 and para.words == 8


def test_token_spans_index_the_extracted_text():
    ex = extract(PAGE)
    toks = tokenize(ex.text)
    assert toks.words == words_of(ex.text)
    for w, s, e in zip(toks.words, toks.starts, toks.ends, strict=True):
        assert ex.text[s:e].lower() == w


def test_unicode_words_are_lower_cased():
    assert words_of("Ärger über DIE Straße, ΑΘΗΝΑ 2024") == ["ärger", "über", "die", "straße",
                                                              "αθηνα", "2024"]


def test_garbage_and_empty_input_give_empty_text():
    assert extract("").text == ""
    assert extract("\x00\x01\x02 <<<>>>").blocks is not None
    assert extract("<?xml version='1.0' encoding='utf-8'?><html><body><p>x</p></body></html>").text == "x\n"


def test_entity_expansion_is_not_performed():
    bomb = """<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">
    <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
    <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
    <html><body><p>&lol3;</p></body></html>"""
    ex = extract(bomb)
    assert ex.text.count("lol") < 50


def test_plain_text_paragraphs_are_blocks():
    ex = extract_plain("Headline here\n\nFirst paragraph text.\n\n\nSecond one.")
    assert [ex.text[b.start : b.end] for b in ex.blocks] == [
        "Headline here", "First paragraph text.", "Second one."]
    assert ex.title == "Headline here"


def test_title_falls_back_to_first_heading_then_first_words():
    assert extract("<html><body><p>intro</p><h2>The  Heading</h2><p>x</p></body></html>").title == (
        "The Heading")
    long = "word " * 40
    title = extract(f"<html><body><p>{long}</p></body></html>").title
    assert title.endswith("…") and len(title) <= 81 and title.startswith("word word")
    assert extract("<html><body></body></html>").title == ""


def test_link_host_names_the_site_a_saved_page_came_from():
    own = "".join(f'<a href="http://www.Daily.example.com/s/{i}">story {i}</a>' for i in range(4))
    ads = '<a href="https://ads.example.net/x">ad</a><a href="/relative">r</a>'
    assert extract(f"<html><body>{own}{ads}</body></html>").link_host == "daily.example.com"
    spread = "".join(f'<a href="http://h{i}.example.org/">x</a>' for i in range(6))
    assert extract(f"<html><body>{spread}</body></html>").link_host is None

