"""Web-archive replays: inserts stripped, original URL and capture time recovered.

The fixture pages in tests/data/captures are made up (invented stories) but follow the
markup that the Wayback Machine, Archive-It (OpenWayback) and pywb write.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import shared_path
from workbench.text.provenance.captures import (
    Provenance,
    UrlHints,
    recover_provenance,
    replay_address,
    strip_replay_inserts,
    url_hints,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "captures"
REPLAYS = ("wayback.html", "archive_it.html", "pywb.html", "wayback_saved.html")
ORDINARY = ("ordinary.html", "saved_ordinary.html")
BANNER_PROSE = ("these crawls are part of an effort", "the internet archive discovers", "wayback machine",
                "archive-it partners", "replayed by pywb", "about this capture")
# What any replay insert leaves behind if it is not fully removed.
REPLAY_TRACES = ("__wm.", "wombat", "_static/", "banner-styles", "iconochive", "FILE ARCHIVED ON",
                 "playback timings", "WB Insert", "WAYBACK TOOLBAR", "Wayback Rewrite", 'id="wm-ipp',
                 "wbinfo", "_wb_plain_banner", "ait-client-rewrite", "disclaim-element")


def page(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def paragraphs(markup: str) -> list[str]:
    return re.findall(r"<p\b[^>]*>(.*?)</p>", markup, re.S)


# ---------------------------------------------------------------- stripping: replay pages


@pytest.mark.parametrize("name", REPLAYS)
def test_replay_inserts_are_gone_and_every_paragraph_stays(name):
    markup = page(name)
    stripped, found = strip_replay_inserts(markup)
    assert found
    lowered = stripped.lower()
    assert [p for p in BANNER_PROSE if p in lowered] == []
    assert [t for t in REPLAY_TRACES if t.lower() in lowered] == []
    kept = paragraphs(markup)
    assert len(kept) >= 3
    assert [p for p in kept if p not in stripped] == []
    assert "<h1>" in stripped and "</body>" in stripped.lower()


@pytest.mark.parametrize("name", REPLAYS)
def test_stripping_twice_finds_nothing_more(name):
    once, _ = strip_replay_inserts(page(name))
    assert strip_replay_inserts(once) == (once, False)


def test_wayback_head_injection_is_cut_from_its_first_script_to_its_marker():
    stripped, _ = strip_replay_inserts(page("wayback.html"))
    # The Ruffle config between the recognised scripts goes too; the page's own
    # (rewritten) resources stay.
    assert stripped.startswith('<!DOCTYPE html>\n<html lang="en"><head>\n\n<meta charset="utf-8">\n<title>')
    assert "RufflePlayer" not in stripped
    assert 'src="/web/20170315123456js_/http://www.example.com/static/js/site.js"' in stripped
    assert 'href="/web/20170315123456cs_/http://www.example.com/static/css/site.css"' in stripped
    assert stripped.rstrip().endswith("</html>")


def test_wayback_head_injection_of_2015():
    markup = ('<html><head><script src="//archive.org/includes/analytics.js?v=cf34f82"></script>\n'
              "<script type=\"text/javascript\">window.addEventListener('DOMContentLoaded',"
              "function(){archive_analytics.send_pageview({});});</script>\n"
              '<script type="text/javascript" src="/static/js/wbhack.js" charset="utf-8"></script>\n'
              '<script type="text/javascript">__wbhack.init(\'https://web.archive.org/web\');</script>\n'
              '<link rel="stylesheet" type="text/css" href="/static/css/banner-styles.css"/>\n'
              "<!-- End Wayback Rewrite JS Include -->\n"
              "<title>Story</title></head><body><p>Story text.</p></body></html>")
    assert strip_replay_inserts(markup) == (
        "<html><head>\n<title>Story</title></head><body><p>Story text.</p></body></html>", True)


def test_archive_it_keeps_the_pages_own_div_called_ipp():
    stripped, _ = strip_replay_inserts(page("archive_it.html"))
    assert '<div id="ipp" class="notice">Public information point: open weekdays 9-5</div>' in stripped
    assert "<LINK REL=Canonical" in stripped


def test_saved_wayback_page_loses_toolbar_div_and_scripts_but_keeps_its_own():
    markup = page("wayback_saved.html")
    stripped, found = strip_replay_inserts(markup)
    assert found
    assert "bundle-playback" not in stripped and "timestamp.js?v=1" not in stripped
    # The page's own script and a div of the page whose class happens to be "wm-ipp".
    assert '<script src="./Old bridge_files/timestamp.js.download"></script>' in stripped
    assert '<div class="wm-ipp">Shared on 14 sites</div>' in stripped
    start = stripped.index('<div id="content">')
    assert stripped[start:] == markup[markup.index('<div id="content">'):]
    assert "<!-- saved from url=" in stripped


def test_toolbar_div_is_cut_by_nesting_not_by_the_first_closing_tag():
    markup = ('<html><body>\n<div id="wm-ipp-base"><div id="wm-ipp">'
              "<!-- <div> --><script>var s = '</div></div>';</script>"
              "<div><div>The Internet Archive discovers</div></div></div>\n</div>"
              '<div id="story"><p>Story text.</p></div></body></html>')
    assert strip_replay_inserts(markup) == (
        '<html><body>\n<div id="story"><p>Story text.</p></div></body></html>', True)


def test_unclosed_toolbar_div_is_left_rather_than_cutting_the_page():
    # The stray </div> after </body> must not count as the toolbar's end.
    markup = ('<html><body><div id="wm-ipp"><div>The Internet Archive discovers</div>'
              "<p>Story text that the toolbar would swallow.</p></body></html></div>\n")
    assert strip_replay_inserts(markup) == (markup, False)


def test_toolbar_scripts_go_with_a_marker_less_toolbar_below_a_large_head():
    head = "<html><head><style>" + "p { margin: 0 }\n" * 3000 + "</style></head>"
    toolbar = ('<body><script src="https://web.archive.org/_static/js/timestamp.js?v=1"></script>\n'
               '<div id="wm-ipp-base"><div id="wm-ipp">The Internet Archive discovers</div></div>')
    story = "\n<p>Story text.</p></body></html>"
    assert len(head) > 40_000
    assert strip_replay_inserts(head + toolbar + story) == (head + "<body>\n" + story, True)


def test_toolbar_begin_marker_without_end_marker():
    markup = ("<html><body><!-- BEGIN WAYBACK TOOLBAR INSERT -->\n"
              '<div id="wm-ipp"><div>These crawls are part of an effort to archive pages</div></div>\n'
              "<p>Story text.</p></body></html>")
    assert strip_replay_inserts(markup) == ("<html><body>\n\n<p>Story text.</p></body></html>", True)


def test_wayback_of_2006_appended_script_and_its_capture_time():
    markup = ("<HTML><BODY><P>Story text about the harbour.</P>\n"
              '<SCRIPT language="Javascript">\n<!--\n\n'
              "// FILE ARCHIVED ON 20060614031204 AND RETRIEVED FROM THE\n"
              "// INTERNET ARCHIVE ON 20080101120000.\n"
              "// JAVASCRIPT APPENDED BY WAYBACK MACHINE, COPYRIGHT INTERNET ARCHIVE.\n"
              '   var sWayBackCGI = "http://web.archive.org/web/20060614031204/";\n'
              "//-->\n</SCRIPT>\n</BODY></HTML>\n")
    assert strip_replay_inserts(markup) == (
        "<HTML><BODY><P>Story text about the harbour.</P>\n\n</BODY></HTML>\n", True)
    got = recover_provenance("http://www.example.com/harbour.html", None, markup)
    assert got == Provenance("http://www.example.com/harbour.html", "2006-06-14T03:12:04Z", "archive", True,
                             "notes")


def test_pywb_banner_saved_from_the_dom_goes_with_the_head_insert():
    stripped, _ = strip_replay_inserts(page("pywb.html"))
    assert "_wb_" not in stripped
    assert stripped.index("<main>") < stripped.index("Cranes at the container terminal")


# ---------------------------------------------------------------- stripping: ordinary pages


@pytest.mark.parametrize("name", ORDINARY)
def test_page_without_inserts_comes_back_identical(name):
    markup = page(name)
    stripped, found = strip_replay_inserts(markup)
    assert found is False
    assert stripped == markup


@pytest.mark.parametrize(
    "markup",
    [
        "<html><head><title>x</title></head><body><p>See archive.org for old copies.</p></body></html>",
        '<html><body><div id="ipp" class="wm-ipp-like"><p>Information point</p></div></body></html>',
        '<html><body><div id="wm-ipp-inside-joke">A div named like the toolbar</div></body></html>',
        '<html><body><div class="wm-ipp">not an id</div><style>#wm-ipp {color: red}</style></body></html>',
        '<html><head><meta name="description" content="Notes on archive.org">'
        '<script src="/static/js/timestamp.js"></script>'
        '<script src="_static/js/theme.js"></script></head><body><p>Docs</p></body></html>',
        '<html><head><link rel="preconnect" href="https://web.archive.org"></head>'
        '<body><a href="https://web.archive.org/web/2016/http://example.com/">Archived copy</a>'
        "</body></html>",
        "<html><body><h1>WAYBACK</h1><p>Its copies end with FILE ARCHIVED ON and a date.</p></body></html>",
        "<html><body><h1>WAYBACK</h1></body></html><!-- our video player: playback timings -->",
        "<html><body><h1>WAYBACK</h1><script>// FILE ARCHIVED ON the server</script></body></html>",
        '<html><head><script src="https://web.archive.org/web/2017js_/http://example.com/wombat.js">'
        "</script></head><body><p>x</p></body></html>",
    ],
    ids=["mentions-archive-org", "div-ipp", "div-wm-ipp-other", "class-wm-ipp", "static-scripts",
         "wayback-citation", "words-in-text", "other-comment", "other-script", "rewritten-original-script"],
)
def test_ordinary_markup_is_untouched(markup):
    assert strip_replay_inserts(markup) == (markup, False)


def test_real_news_pages_are_untouched():
    folder = shared_path("chaos-2017", "html")
    changed = []
    for path in sorted(folder.iterdir()):
        markup = path.read_text(encoding="utf-8", errors="replace")
        stripped, found = strip_replay_inserts(markup)
        if found or stripped != markup:
            changed.append(path.name)
    assert changed == []


FRAGMENTS = ["<div>", "</div>", '<div id="wm-ipp">', '<div id="wm-ipp-base">', "<!--", "-->", "<script>",
             "</script>", "<p>", "text ", "archive.org", "WAYBACK", "Wayback", "FILE ARCHIVED ON ",
             "<!-- BEGIN WAYBACK TOOLBAR INSERT -->", "<!-- END WAYBACK TOOLBAR INSERT -->",
             "<!-- End Wayback Rewrite JS Include -->", "<!-- WB Insert -->", "<!-- End WB Insert -->",
             '<script src="https://web.archive.org/_static/js/wombat.js">', "__wm.init(1)", "<body>",
             "</body>", '<link rel="canonical" href="', "/web/2017/http://a.example/", '">', "http://[",
             "<!-- saved from url=(0005)", "playback timings", "<SCRIPT>", "\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_any_markup_strips_without_error_and_only_ever_shrinks(markup):
    stripped, found = strip_replay_inserts(markup)
    if found:
        assert len(stripped) < len(markup)
        rest = iter(markup)
        assert all(ch in rest for ch in stripped)  # only deletions, nothing added or moved
    else:
        assert stripped == markup
    recover_provenance(None, None, markup)
    recover_provenance("/web/2017/http://[", "x", markup)


# ---------------------------------------------------------------- replay addresses


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://web.archive.org/web/20170315123456/http://www.example.com/news/story.html",
         ("http://www.example.com/news/story.html", "2017-03-15T12:34:56Z")),
        ("/web/20170315123456im_/http://www.example.com/img/a.png",
         ("http://www.example.com/img/a.png", "2017-03-15T12:34:56Z")),
        ("//web.archive.org/web/20170315123456js_/https://cdn.example.com/a.js?v=2",
         ("https://cdn.example.com/a.js?v=2", "2017-03-15T12:34:56Z")),
        ("http://web.archive.org/web/20170315123456id_/http:/example.com/x",
         ("http://example.com/x", "2017-03-15T12:34:56Z")),
        ("https://web.archive.org/web/20170315123456/HTTPS:///example.com/x",
         ("https://example.com/x", "2017-03-15T12:34:56Z")),
        ("/web/2017/www.example.com/x", ("http://www.example.com/x", "2017")),
        ("/web/201703/www.example.com:8080/", ("http://www.example.com:8080/", "2017-03")),
        ("/web/20170315/example.com", ("http://example.com", "2017-03-15")),
        ("/web/2017031512/http://example.com/", ("http://example.com/", "2017-03-15T12Z")),
        ("/web/201703151234fw_/http://example.com/", ("http://example.com/", "2017-03-15T12:34Z")),
        ("https://web.archive.org/web/2017/http%3A%2F%2Fwww.example.com%2Fa%3Fb%3D1",
         ("http://www.example.com/a?b=1", "2017")),
        ("https://wayback.archive-it.org/1234/20170315123456/http://www.example.org/a?b=1#top",
         ("http://www.example.org/a?b=1#top", "2017-03-15T12:34:56Z")),
        # A collection whose id looks like a year.
        ("https://wayback.archive-it.org/2017/20170315123456/http://www.example.org/a",
         ("http://www.example.org/a", "2017-03-15T12:34:56Z")),
        ("http://localhost:8080/my-coll/20170315123456/http://www.example.com/",
         ("http://www.example.com/", "2017-03-15T12:34:56Z")),
        ("http://localhost:8080/my-coll/20170315123456mp_/https://www.example.net/world/x",
         ("https://www.example.net/world/x", "2017-03-15T12:34:56Z")),
        ("https://webarchive.example.org/pywb/news-2017/20170315oe_/http://example.com/",
         ("http://example.com/", "2017-03-15")),
        # Wayback redirects a bad date to the nearest capture: still a replay, time unknown.
        ("https://web.archive.org/web/20171399/http://example.com/", ("http://example.com/", None)),
    ],
)
def test_replay_addresses_decode(url, expected):
    assert replay_address(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "https://news.example.com/2017/03/15/story",
        "https://news.example.com/news/20170315/story.html",
        "https://example.com/web/20170315/story.html",
        "https://example.com/archive/1234/5678/http-guide",
        "https://example.com/redirect?to=/web/2017/http://example.org/",
        "https://example.com/page#/web/2017/http://example.org/",
        "https://web.archive.org/web/*/http://example.com/",
        "https://web.archive.org/web/2017*/http://example.com/",
        "https://web.archive.org/web/20170315123456/",
        "https://web.archive.org/web/20170315123456/story.html",
        "https://collection.example.org/coll/20171399/http://example.com/",  # no real date
        "https://collection.example.org/coll/20170315/ftp://example.com/",
        "/web/20170315/javascript:void(0)",
        "http://localhost:8080/coll/1234/http://example.com/",  # 1234 is no year
        "mailto:web@example.com",
        "",
    ],
)
def test_ordinary_addresses_are_not_replays(url):
    assert replay_address(url) is None


PREFIXES = ["https://web.archive.org/web", "http://web.archive.org/web", "/web",
            "https://wayback.archive-it.org/{n}", "http://localhost:8080/{coll}",
            "https://archive.example.org:8443/pywb/{coll}"]
MODIFIERS = ["", "id_", "im_", "js_", "cs_", "if_", "fw_", "mp_", "oe_"]
STAMP_FORMATS = {4: ("%Y", "%Y"), 6: ("%Y%m", "%Y-%m"), 8: ("%Y%m%d", "%Y-%m-%d"),
                 10: ("%Y%m%d%H", "%Y-%m-%dT%HZ"), 12: ("%Y%m%d%H%M", "%Y-%m-%dT%H:%MZ"),
                 14: ("%Y%m%d%H%M%S", "%Y-%m-%dT%H:%M:%SZ")}

labels = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
tlds = st.sampled_from(["com", "org", "net", "de", "co.uk"])
hosts = st.builds(lambda parts, tld: ".".join([*parts, tld]), st.lists(labels, min_size=1, max_size=3), tlds)
paths = st.lists(st.from_regex(r"[A-Za-z0-9._~-]{1,12}", fullmatch=True), max_size=4).map(
    lambda segs: "/" + "/".join(segs))
queries = st.one_of(st.just(""), st.from_regex(
    r"\?[a-z]{1,5}=[A-Za-z0-9%/:.-]{0,12}(&[a-z]{1,5}=[0-9]{1,3})?", fullmatch=True))
moments = st.datetimes(min_value=datetime(1996, 1, 1), max_value=datetime(2035, 12, 31, 23, 59, 59))


@settings(max_examples=300, deadline=None)
@given(scheme=st.sampled_from(["http", "https"]), host=hosts, path=paths, query=queries, when=moments,
       digits=st.sampled_from(sorted(STAMP_FORMATS)), modifier=st.sampled_from(MODIFIERS),
       prefix=st.sampled_from(PREFIXES), n=st.integers(1, 99999),
       coll=st.from_regex(r"[a-z][a-z0-9_-]{0,15}", fullmatch=True), slashes=st.sampled_from(["//", "/"]))
def test_replay_address_round_trip(scheme, host, path, query, when, digits, modifier, prefix, n, coll,
                                   slashes):
    original = f"{scheme}://{host}{path}{query}"
    stamp_format, iso_format = STAMP_FORMATS[digits]
    server = prefix.format(n=n, coll=coll)
    # Some rewriters collapse the original's "//" to "/".
    address = f"{server}/{when.strftime(stamp_format)}{modifier}/{scheme}:{slashes}{host}{path}{query}"
    assert replay_address(address) == (original, when.strftime(iso_format))


@settings(max_examples=300, deadline=None)
@given(host=hosts, when=moments, slug=st.from_regex(r"[a-z0-9-]{1,30}(\.html?)?", fullmatch=True),
       section=st.sampled_from(["", "/news", "/web", "/archive", "/2017"]))
def test_dated_article_addresses_are_not_replays(host, when, slug, section):
    url = f"https://{host}{section}/{when:%Y}/{when:%m}/{when:%d}/{slug}"
    assert replay_address(url) is None
    assert replay_address(f"https://{host}{section}/{when:%Y%m%d}/{slug}") is None


def test_shorter_timestamps_are_valid_iso_8601():
    for url in ("/web/2017031512/http://a.example/", "/web/201703151234/http://a.example/",
                "/web/20170315123456/http://a.example/", "/web/20170315/http://a.example/"):
        _, when = replay_address(url)
        assert datetime.fromisoformat(when).year == 2017


def test_odd_digit_counts_keep_only_whole_fields():
    assert replay_address("/web/201703151/http://a.example/") == ("http://a.example/", "2017-03-15")


# ---------------------------------------------------------------- url hints


def test_hints_of_a_browser_saved_page():
    assert url_hints(page("saved_ordinary.html")) == UrlHints(
        canonical="/culture/2017/03/15/choir-festival-returns",
        og_url="https://www.example.co.uk/culture/2017/03/15/choir-festival-returns"
               "?utm_source=share&utm_medium=social",
        base="https://www.example.co.uk/culture/",
        saved_from="https://www.example.co.uk/culture/2017/03/15/choir-festival-returns",
    )


def test_hints_of_a_wayback_page_include_the_replays_own_script():
    hints = url_hints(page("wayback.html"))
    assert hints.canonical == "https://web.archive.org/web/20170315123456/http://www.example.com/news/story.html"
    assert hints.replay_url == "http://www.example.com/news/story.html?ref=home"
    assert hints.replay_time == "2017-03-15T12:34:56Z"


def test_hints_of_an_old_wayback_script_give_the_time_only():
    markup = ('<html><head><script type="text/javascript">\n'
              'WB_wombat_Init("http://web.archive.org/web", "20130102030405", "www.example.com");\n'
              "</script></head><body></body></html>")
    assert url_hints(markup) == UrlHints(replay_time="2013-01-02T03:04:05Z")


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ('<LINK HREF=http://a.example/x REL="Canonical">', UrlHints(canonical="http://a.example/x")),
        ("<link rel='alternate canonical' href='http://a.example/x?a=1&amp;b=2'/>",
         UrlHints(canonical="http://a.example/x?a=1&b=2")),
        ('<link\n  rel="canonical"\n  href="\n  http://a.example/\nx  ">', UrlHints(canonical="http://a.example/x")),
        ('<link rel="alternate" href="http://a.example/amp">', UrlHints()),
        ('<meta content="http://a.example/o" property="og:url" />', UrlHints(og_url="http://a.example/o")),
        ('<META NAME="og:url" CONTENT="http://a.example/o">', UrlHints(og_url="http://a.example/o")),
        ("<meta property=og:url content=http://a.example/o>", UrlHints(og_url="http://a.example/o")),
        ('<meta property="og:title" content="http://a.example/o">', UrlHints()),
        ('<base target="_blank" href="http://a.example/dir/">', UrlHints(base="http://a.example/dir/")),
        ("<base target=_top>", UrlHints()),
        ("<!-- saved from url=(0022)http://a.example/story -->", UrlHints(saved_from="http://a.example/story")),
        ("<!--saved from url=(0014)about:internet-->", UrlHints(saved_from="about:internet")),
        ("<!-- saved from url=(0018)http://a.example/x and more -->",
         UrlHints(saved_from="http://a.example/x")),
        # The length says where an address with a space ends.
        ("<!-- saved from url=(0025) http://a.example/my story -->",
         UrlHints(saved_from="http://a.example/my story")),
        ("<!-- saved from url=(0099)http://a.example/x -->", UrlHints(saved_from="http://a.example/x")),
        ("<!-- saved from url=(0000)http://a.example/x -->", UrlHints(saved_from="http://a.example/x")),
        ('<link-preview rel="canonical" href="http://a.example/x">', UrlHints()),
        ('<meta-tag property="og:url" content="http://a.example/x">', UrlHints()),
    ],
)
def test_hint_tags_in_any_spelling(tag, expected):
    markup = f"<!DOCTYPE html>\n{tag}\n<html><head><title>t</title></head><body></body></html>"
    assert url_hints(markup) == expected


def test_saved_from_comment_counts_only_before_the_document():
    # Further down it names a fragment the saved page had included (seen in the Gold Set).
    markup = ("<!DOCTYPE html>\n<html><head><!-- saved from url=(0020)http://a.example/nav -->"
              "<title>t</title></head><body></body></html>")
    assert url_hints(markup) == UrlHints()
    assert url_hints("\ufeff <!-- saved from url=(0020)http://a.example/top -->\n" + markup) == UrlHints(
        saved_from="http://a.example/top")


def test_first_hint_of_each_kind_wins():
    markup = ('<head><link rel="canonical" href="http://a.example/1"><link rel="canonical" href="http://a.example/2">'
              '<base href="http://a.example/b1/"><base href="http://a.example/b2/"></head>')
    hints = url_hints(markup)
    assert (hints.canonical, hints.base) == ("http://a.example/1", "http://a.example/b1/")


def test_hints_in_comments_scripts_and_body_are_not_the_pages_own():
    markup = ('<html><head><!-- <link rel="canonical" href="http://a.example/old"> -->'
              "<script>document.write('<link rel=\"canonical\" href=\"http://a.example/js\">');</script>"
              '</head><body><meta property="og:url" content="http://a.example/related-story">'
              '<link rel="canonical" href="http://a.example/body"></body></html>')
    assert url_hints(markup) == UrlHints()


def test_hints_are_read_from_the_head_region_only():
    padding = "<style>" + "x" * 70_000 + "</style>"
    assert url_hints(f'<head><link rel="canonical" href="http://a.example/x">{padding}</head>').canonical
    assert url_hints(f'<head>{padding}<link rel="canonical" href="http://a.example/x"></head>') == UrlHints()


# ---------------------------------------------------------------- provenance


WAYBACK_ADDRESS = "https://web.archive.org/web/20170315123456/http://www.example.com/news/story.html"


@pytest.mark.parametrize(
    ("name", "url", "date", "expected"),
    [
        # The record's replay address wins over the replay server's fetch time.
        ("wayback.html", WAYBACK_ADDRESS, "2020-01-02T10:11:12Z",
         Provenance("http://www.example.com/news/story.html", "2017-03-15T12:34:56Z", "replay", True,
                    "replay")),
        # A year-only address gets the rest of the time from the page.
        ("wayback.html", "https://web.archive.org/web/2017/http://www.example.com/news/story.html", None,
         Provenance("http://www.example.com/news/story.html", "2017-03-15T12:34:56Z", "replay", True,
                    "replay")),
        # No record URL: the replay's own script names the capture.
        ("wayback.html", None, None,
         Provenance("http://www.example.com/news/story.html?ref=home", "2017-03-15T12:34:56Z", "replay",
                    True, "replay")),
        ("archive_it.html", None, None,
         Provenance("http://www.example.org/politics/council-vote.html", "2017-03-15T08:15:00Z", "replay",
                    True, "replay")),
        ("pywb.html", "http://localhost:8080/my-coll/20170315200102mp_/https://www.example.net/world/harbour-strike",
         "2021-05-05T05:05:05Z",
         Provenance("https://www.example.net/world/harbour-strike", "2017-03-15T20:01:02Z", "replay", True,
                    "replay")),
        ("pywb.html", None, None,
         Provenance("https://www.example.net/world/harbour-strike", "2017-03-15T20:01:02Z", "replay", True,
                    "replay")),
        # Saved from a browser: the "saved from" comment is the Wayback address.
        ("wayback_saved.html", None, None,
         Provenance("http://www.example.com/news/bridge.html", "2017-03-16T09:45:00Z", "replay", True,
                    "replay")),
        # A relative canonical resolves against <base>.
        ("saved_ordinary.html", None, None,
         Provenance("https://www.example.co.uk/culture/2017/03/15/choir-festival-returns", None, "canonical",
                    False)),
        ("saved_ordinary.html", "https://www.example.co.uk/c/123", "2017-03-15T10:00:00Z",
         Provenance("https://www.example.co.uk/c/123", "2017-03-15T10:00:00Z", "archive", False,
                    "archive")),
        ("ordinary.html", None, "2017-03-16T08:00:00Z",
         Provenance("https://news.example.com/2017/03/15/wayback-at-twenty", "2017-03-16T08:00:00Z",
                    "canonical", False, "archive")),
    ],
)
def test_provenance_of_fixture_pages(name, url, date, expected):
    markup = page(name)
    assert recover_provenance(url, date, markup) == expected
    assert recover_provenance(url, date, markup, inserts=strip_replay_inserts(markup)[1]) == expected


def test_capture_time_from_the_archived_on_note_when_nothing_else_has_it():
    markup = page("archive_it.html")
    without = re.sub(r"<script type=\"text/javascript\">\nWB_wombat_Init.*?</script>", "", markup, flags=re.S)
    without = re.sub(r"<LINK REL=Canonical[^>]*>", "", without)
    assert "WB_wombat_Init" not in without and "Canonical" not in without
    record_url = "http://www.example.org/politics/council-vote.html"
    got = recover_provenance(record_url, "2018-06-20T14:02:51Z", without)
    assert got == Provenance(record_url, "2017-03-15T08:15:00Z", "archive", True, "notes")


def test_replay_without_any_capture_time_keeps_the_records_date():
    markup = '<html><body><p>Story.</p></body></html>'
    got = recover_provenance("https://web.archive.org/web/20171399/http://a.example/", "2020-01-01T00:00:00Z",
                             markup)
    assert got == Provenance("http://a.example/", "2020-01-01T00:00:00Z", "replay", True, "archive")


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ('<link rel="canonical" href="/news/x"><meta property="og:url" content="https://a.example/y">',
         ("https://a.example/news/x", "canonical")),
        ('<link rel="canonical" href="/news/x"><base href="/relative/">', (None, None)),
        ('<link rel="canonical" href="ftp://a.example/x"><meta property="og:url" content="https://a.example/y">',
         ("https://a.example/y", "og:url")),
        ('<meta property="og:url" content="file:///C:/pages/x.html">', (None, None)),
        ("<!-- saved from url=(0014)about:internet -->", (None, None)),
        # A base naming a section or a site's root is no page's address (issue 35).
        ('<base href="http://a.example/dir/">', (None, None)),
        ('<base href="http://a.example/dir/story.html">', ("http://a.example/dir/story.html", "base")),
        ('<!-- saved from url=(0018)http://b.example/s --><base href="http://a.example/dir/">',
         ("http://b.example/s", "saved-from")),
        ('<link rel="canonical" href="//a.example/x"><base href="https://b.example/">',
         ("https://a.example/x", "canonical")),
        ('<link rel="canonical" href="http://[::1/x"><meta property="og:url" content="https://a.example/y">',
         ("https://a.example/y", "og:url")),
        ('<link rel="canonical" href="/web/2017/http://[::1/x"><base href="https://a.example/">',
         (None, None)),
        # A rewritten canonical on a Wayback page, root-relative.
        ('<link rel="canonical" href="https://a.example/c">'
         '<meta property="og:url" content="/web/20170315/http://a.example/o">',
         ("http://a.example/o", "replay")),
    ],
)
def test_url_from_hints(head, expected):
    got = recover_provenance(None, None, f"{head}<html><head></head><body></body></html>")
    assert (got.url, got.url_from) == expected


def test_replay_hint_makes_the_page_a_replay_even_with_an_ordinary_record_url():
    markup = '<head><link rel="canonical" href="/web/20170315123456/http://a.example/c"></head><body></body>'
    got = recover_provenance("http://a.example/c", "2019-01-01T00:00:00Z", markup)
    assert got == Provenance("http://a.example/c", "2017-03-15T12:34:56Z", "archive", True, "replay")


def test_no_url_anywhere():
    assert recover_provenance(None, "2017-01-01", "<p>x</p>") == Provenance(None, "2017-01-01", None, False,
                                                                            "archive")


# ---------------------------------------------------------------- large pages


def large_page(markup: str) -> str:
    """``markup`` with 170 kB of story paragraphs added to its article."""
    cut = markup.index("</article>")
    filler = "<p>" + "Filler words of the story to make the page big. " * 20 + "</p>\n"
    return markup[:cut] + filler * (170_000 // len(filler)) + markup[cut:]


@pytest.mark.parametrize("name", ["wayback.html", "ordinary.html"])
def test_a_large_page_gives_what_the_page_itself_gives(name):
    """A big article changes neither what is stripped nor the provenance found. How fast
    it goes is benchmarks/bench_captures.py's to print, not a test's to assert."""
    markup = page(name)
    big = large_page(markup)
    stripped, found = strip_replay_inserts(markup)
    big_stripped, big_found = strip_replay_inserts(big)
    assert big_found == found
    assert [p for p in paragraphs(stripped) if p not in big_stripped] == []
    assert recover_provenance(None, None, big) == recover_provenance(None, None, markup)
