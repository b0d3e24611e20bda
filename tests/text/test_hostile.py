"""Pages built to trip the text extraction up: no text may be lost without a reason."""

from __future__ import annotations

import pytest

from tests.conftest import shared_path
from workbench.archive import scan
from workbench.archive.sniff import SNIFF_BYTES, sniff
from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_text
from workbench.text.decode import decode_bytes
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


def test_the_gold_set_page_with_a_bare_embed_keeps_what_follows_it():
    # Pelosi/p63: a Flash banner's <embed> swallowed the 166 words of the sidebar after it.
    data = shared_path("goldset-dev", "Pelosi", "p63.htm").read_bytes()
    text = extract_text(RawPage("Pelosi/p63.htm", data), main_content=False)[0].text
    assert "Top Jobs" in text and "Legal Research Attorney Level I" in text


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


# --------------------------------------------------------------------------- decoding

JAPANESE = "東京都は月曜日、新しい学校給食計画を発表しました。保護者からの要望に応えたものです。"
RUSSIAN = "Городской совет заявил в понедельник, что новый план школьного питания будет оплачен."


def _page_in(text: str, meta: str = "") -> str:
    return (f"<html><head>{meta}<title>{text[:8]}</title></head><body>"
            f"<p>{text * 6}</p><p>{text * 4}</p></body></html>")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("language", [JAPANESE, RUSSIAN, STORY], ids=["japanese", "russian", "english"])
def test_utf16_without_a_bom_is_a_page_and_decodes(tmp_path, codec, language):
    page = _page_in(language)
    (tmp_path / "page.html").write_bytes(page.encode(codec))
    found = list(scan(tmp_path))
    assert [type(f) for f in found] == [RawPage], found
    got = decode_bytes(found[0].data)
    assert (got.text, got.encoding) == (page, codec)
    # A declared charset cannot make NUL-interleaved bytes into a single-byte page either.
    assert decode_bytes(page.encode(codec), http_charset="iso-8859-1").text == page


def test_sixteen_bit_numbers_are_not_taken_for_utf16():
    data = b"".join(n.to_bytes(2, "little") for n in range(4000))
    assert sniff(data[:SNIFF_BYTES], ".html").kind == "binary"


@pytest.mark.parametrize(("codec", "label"), [("shift_jis", "windows-1252"), ("shift_jis", "iso-8859-1"),
                                              ("euc_jp", "windows-1252"), ("gb18030", "iso-8859-1")])
def test_a_wrong_single_byte_meta_charset_does_not_garble_cjk(codec, label):
    page = _page_in(JAPANESE if codec != "gb18030" else "新的学校午餐计划将由含糖饮料税支付。",
                    f'<meta charset="{label}">')
    got = decode_bytes(page.encode(codec))
    assert got.text == page and got.source == "detected"


@pytest.mark.parametrize(("text", "codec"), [
    ("A situação da educação e a decisão do conselho são notícias.", "cp1252"),
    ("Größere Änderungen für Schüler, Lehrer und Eltern in Österreich.", "cp1252"),
    (RUSSIAN, "cp1251"),
])
def test_right_single_byte_declarations_are_kept(text, codec):
    page = _page_in(text, f'<meta charset="{"windows-1251" if codec == "cp1251" else "iso-8859-1"}">')
    got = decode_bytes(page.encode(codec))
    assert (got.text, got.encoding, got.source) == (page, codec, "meta")


def test_a_few_cjk_bytes_in_a_stylesheet_do_not_overrule_the_declaration():
    # Gold Set pages: English text declared windows-1252, a font name in GB2312 in the CSS.
    css = '<style>p { font-family: "宋体"; }</style>'
    page = _page_in(STORY * 10, f'<meta charset="windows-1252">{css}')
    got = decode_bytes(page.encode("gb18030"))
    assert got.encoding == "cp1252" and got.source == "meta"
