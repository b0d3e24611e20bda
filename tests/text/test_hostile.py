"""Pages built to trip the text extraction up: no text may be lost without a reason."""

from __future__ import annotations

from workbench.core.records import RawPage
from workbench.detect.extract import extract_text
from workbench.text.html import extract

STORY = ("The council said on Monday that the new school meals plan will be paid for by a tax "
         "on sugary drinks, which parents have asked for since the report was published.")


def _words_of(page: str, main_content: bool = True) -> str:
    raw = RawPage("page.html", page.encode("utf-8"), content_type="text/html")
    return " ".join(extract_text(raw, main_content)[0].text.split())


def test_a_bare_embed_does_not_swallow_the_text_after_it():
    # <embed> is a void element: no end tag, nothing inside. libxml2 nests what follows in it.
    page = (f"<html><body><p>Watch the video.</p><embed src=clip.swf width=400>"
            f"<p>{STORY}</p><div>{STORY.upper()}</div></body></html>")
    for main_content in (False, True):
        text = _words_of(page, main_content)
        assert STORY in text and STORY.upper() in text
    assert STORY in extract(page).text


def test_void_elements_keep_what_follows_in_order():
    page = ("<html><body><div>one <embed src=a>two <b>three</b> four<embed src=b> five"
            "<wbr> six</div><p>seven <source src=x>eight<track src=y> nine</p></body></html>")
    assert extract(page).text == "one two three four five six\nseven eight nine\n"


def _nested(depth: int, inner: str, tag: str = "div") -> str:
    return f"<html><body>{f'<{tag}>' * depth}{inner}{f'</{tag}>' * depth}<p>The end.</p></body></html>"


def test_text_nested_a_hundred_thousand_levels_deep_is_kept():
    words = " ".join(f"word{k}" for k in range(300))
    raw = RawPage("deep.html", _nested(100_000, f"<p>{words}</p>").encode(), content_type="text/html")
    extracted, _ = extract_text(raw, main_content=True)
    assert extracted.text == f"{words}\nThe end.\n"


def test_nesting_past_the_parsers_default_limit_keeps_every_word():
    # libxml2 stops at 256 levels unless told otherwise: the whole page came out empty.
    for depth in (300, 2000, 5000):
        text = extract(_nested(depth, f"<p>{STORY}</p>")).text
        assert STORY in text and "The end." in text, depth


def test_deep_blocks_stay_apart_and_deep_scripts_stay_hidden():
    inner = "<p>first block here</p><script>var hidden = 1;</script><p>second block here</p>"
    ex = extract(_nested(5000, inner))
    blocks = [ex.text[b.start:b.end] for b in ex.blocks]
    assert "first block here" in blocks and "second block here" in blocks
    assert "hidden" not in ex.text
