"""decode_bytes: BOM, HTTP charset, <meta>, detector - checked on made-up and real pages."""

from __future__ import annotations

import codecs

import pytest

from tests.conftest import shared_path
from workbench.archive import scan
from workbench.core.records import RawPage
from workbench.text.decode import decode_bytes, normalise_label


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("ISO-8859-1", "cp1252"),
        ("latin1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("GB2312", "gb18030"),
        ("gbk", "gb18030"),
        ("EUC-KR", "cp949"),
        ("Shift_JIS", "cp932"),
        ("x-sjis", "cp932"),
        ("EUC-JP", "euc_jp"),
        ("windows-1251", "cp1251"),
        ('"utf8"', "utf-8"),
        ("no-such-charset", None),
        ("", None),
        (None, None),
    ],
)
def test_labels_map_to_what_browsers_use(label, codec):
    assert normalise_label(label) == codec


def test_bom_wins_over_everything():
    data = codecs.BOM_UTF16_LE + "<p>Grüße</p>".encode("utf-16-le")
    got = decode_bytes(data, http_charset="iso-8859-1")
    assert got.text == "<p>Grüße</p>" and got.source == "bom"


def test_http_charset_then_meta():
    data = '<meta charset="windows-1251"><p>Привет</p>'.encode("cp1251")
    assert decode_bytes(data, "koi8-r").source == "http"
    got = decode_bytes(data)
    assert got.source == "meta" and "Привет" in got.text


def test_meta_after_long_script_is_still_found():
    data = b"<head><script>" + b"x" * 5000 + b"</script>" + (
        '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
        "<p>Caf\xe9 cr\xe8me</p>".encode("latin-1")
    )
    got = decode_bytes(data)
    assert "Café crème" in got.text and got.source == "meta"


def test_xml_declaration_counts_as_a_declaration():
    data = '<?xml version="1.0" encoding="ISO-8859-1"?><html><p>señor</p></html>'.encode("latin-1")
    got = decode_bytes(data)
    assert "señor" in got.text and got.source == "meta"


def test_undefined_windows_1252_bytes_do_not_break_a_declared_page():
    data = b'<meta charset="iso-8859-1"><p>a\x81b \xe9t\xe9</p>'
    got = decode_bytes(data)
    assert got.encoding == "cp1252" and "\x81" in got.text and "été" in got.text


def test_valid_utf8_beats_a_declared_single_byte_charset():
    data = '<meta charset="iso-8859-1"><p>Montréal, 30\u00a0km</p>'.encode()
    got = decode_bytes(data)
    assert "Montréal" in got.text and "Â" not in got.text


def test_declared_utf8_with_a_few_bad_bytes_stays_utf8():
    data = ('<meta charset="utf-8"><p>' + "日本語のテキスト" * 5 + "</p>").encode() + b"\xff"
    got = decode_bytes(data)
    assert "日本語" in got.text and got.encoding == "utf-8"


def test_declared_utf8_that_is_really_windows_1252():
    data = '<meta charset="utf-8"><p>The Espa\u00f1ol edition \u00a9 2006</p>'.encode("cp1252")
    got = decode_bytes(data)
    assert "Español" in got.text and "©" in got.text


def test_undeclared_english_with_a_few_accents_is_windows_1252():
    text = "<p>" + "Plain English news text. " * 40 + "En Espa\u00f1ol \u00bb</p>"
    data = text.encode("cp1252")
    got = decode_bytes(data)
    assert got.encoding == "cp1252" and "Español" in got.text


def test_undeclared_cyrillic_is_detected():
    text = "<p>" + "Стратегия пожарной безопасности и защита зданий от огня. " * 20 + "</p>"
    got = decode_bytes(text.encode("cp1251"))
    assert "пожарной" in got.text


def test_utf16_without_bom():
    data = "<html><p>hello world, this is text</p></html>".encode("utf-16-le")
    assert "hello world" in decode_bytes(data).text


def test_empty_and_binary_never_raise():
    assert decode_bytes(b"").text == ""
    assert isinstance(decode_bytes(bytes(range(256)) * 10).text, str)


# --------------------------------------------------------------------------- real pages

CHATNOIR = ("warc", "chatnoir-eu+chatnoir-resiliparse")


def _pages(path) -> dict[int, RawPage]:
    return {p.offset: p for p in scan(path) if isinstance(p, RawPage)}


def test_euc_jp_clueweb_pages():
    pages = _pages(shared_path(*CHATNOIR, "clueweb-quirk.warc.gz"))
    assert len(pages) == 29
    first = decode_bytes(pages[317].data, pages[317].charset_hint)
    assert first.encoding == "euc_jp"
    assert "ブラウニー ブリーフケース" in first.text
    assert "吉田かばん" in first.text
    for page in pages.values():
        text = decode_bytes(page.data, page.charset_hint).text
        assert "ヘッドポーター" in text and "\ufffd" not in text


def test_windows_1251_and_gbk_pages():
    pages = _pages(shared_path(*CHATNOIR, "warcfile.warc"))
    ru = decode_bytes(pages[39775].data, pages[39775].charset_hint)
    assert ru.encoding == "cp1251" and "Стратегия пожарной безопасности" in ru.text
    gbk = decode_bytes(pages[173990].data, pages[173990].charset_hint)  # <meta charset=gbk>
    assert gbk.encoding == "gb18030" and gbk.source == "meta" and "主页" in gbk.text
    gb2312 = decode_bytes(pages[163733].data, pages[163733].charset_hint)  # HTTP gb2312
    assert gb2312.source == "http" and "视频" in gb2312.text
    for page in pages.values():
        assert "\ufffd" not in decode_bytes(page.data, page.charset_hint).text


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Aide/a10.htm", ["Attaché"]),
        ("Allergies/a19.htm", ["Español"]),
        ("Allergies/a37.htm", ["Visión"]),
        ("Aide/original.htm", ["Montréal"]),
        ("Allergies/a20.htm", ["Español"]),  # no declaration at all
    ],
)
def test_iso_8859_1_gold_set_pages(name, words):
    data = shared_path("goldset-dev", name).read_bytes()
    text = decode_bytes(data).text
    for word in words:
        assert word in text
    assert "\ufffd" not in text
