"""Issue 35: a page's capture date and URL from a replay's rewritten links, never a
<base href> naming a site's root or a section, and the publication date the page states,
kept apart from the capture date. Fixtures: tests/data/dates/ (hand-made)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_batch, extract_text
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.text.provenance.captures import Provenance, names_a_page, recover_provenance
from workbench.text.provenance.published import htmldate_published, machine_date, stated_date
from workbench.text.provenance.replay_links import link_evidence, own_link

DATA = Path(__file__).resolve().parents[1] / "data" / "dates"
FOX_STORY = "http://www.foxnews.com/story/0,2933,152780,00.html"


def fixture(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------- capture time and URL


def test_wayback_capture_with_only_rewritten_links_gets_its_url_and_capture_date():
    markup = fixture("wayback_links_only.html")
    got = recover_provenance(None, None, markup, saved_as="fox/0,2933,152780,00.html")
    # 14 links carry 20050409130612, one an older capture's 20050401000000.
    assert got == Provenance(FOX_STORY, "2005-04-09T13:06:12Z", "links", True, "links")


def test_without_the_saved_name_the_links_give_the_capture_date_but_no_url():
    got = recover_provenance(None, None, fixture("wayback_links_only.html"), saved_as="fox/index.html")
    assert got == Provenance(None, "2005-04-09T13:06:12Z", None, True, "links")


def test_extraction_of_a_saved_wayback_page_keeps_url_dates_and_where_they_came_from():
    raw = RawPage("fox/0,2933,152780,00.html", fixture("wayback_links_only.html").encode(),
                  content_type="text/html")
    (page,) = extract_batch([raw], SpotSigsParams())
    assert not isinstance(page, str)
    info = page.info
    assert (info.url, info.url_from, info.capture_date, info.captured_from) == (
        FOX_STORY, "links", "2005-04-09T13:06:12Z", "links")
    assert info.published is None and info.published_from is None


def test_a_mirror_that_saved_the_page_under_its_replay_address_names_it():
    markup = "<html><body><p>Story.</p></body></html>"
    got = recover_provenance(None, None, markup,
                             saved_as="web.archive.org/web/20050409130612/http:/www.foxnews.com/story/a.html")
    assert got == Provenance("http://www.foxnews.com/story/a.html", "2005-04-09T13:06:12Z", "replay", True,
                             "replay")


def test_a_few_cited_archive_links_do_not_make_an_article_a_replay():
    cites = "".join(f'<a href="https://web.archive.org/web/2015010{i}000000/http://gone.example/{i}">'
                    f"source {i}</a>" for i in range(1, 5))
    markup = f'<html><head><link rel="canonical" href="https://news.example/a"></head><body>{cites}</body>'
    assert link_evidence(markup, "a.html").stamp is None
    got = recover_provenance(None, None, markup)
    assert got == Provenance("https://news.example/a", None, "canonical", False, None)


def test_site_root_base_and_an_article_url_in_og_url_give_the_article():
    got = recover_provenance(None, None, fixture("root_base_og_url.html"))
    assert got == Provenance("http://www.foxnews.com/story/0,2933,152781,00.html", "2005-04-09T14:01:02Z",
                             "og:url", True, "replay")


def test_site_root_base_and_a_canonical_article_url_give_the_article():
    markup = ('<html><head><base href="http://www.foxnews.com/">'
              '<link rel="canonical" href="/story/0,2933,152782,00.html"></head><body></body></html>')
    got = recover_provenance(None, None, markup)
    assert (got.url, got.url_from) == ("http://www.foxnews.com/story/0,2933,152782,00.html", "canonical")


def test_only_a_section_base_gives_no_url_rather_than_a_wrong_one():
    got = recover_provenance(None, None, fixture("section_base_only.html"))
    assert got == Provenance(None, "2005-04-10T09:15:00Z", None, True, "replay")


def test_six_stories_sharing_a_site_root_base_get_no_shared_url():
    urls = {recover_provenance(None, None, f'<html><head><base href="http://www.foxnews.com/"></head>'
                                           f"<body><p>Story {i}</p></body></html>").url for i in range(6)}
    assert urls == {None}


@pytest.mark.parametrize(("url", "page"), [
    ("http://www.foxnews.com/", False),
    ("http://www.foxnews.com", False),
    ("http://www.foxnews.com/politics/", False),
    ("http://www.foxnews.com/politics/index.html", False),
    ("http://www.foxnews.com/story/0,2933,152780,00.html", True),
    ("http://www.foxnews.com/politics", True),
    ("https://a.example/2017/03/15/choir-festival-returns/", True),
    ("https://a.example/news/1234567/", True),
    ("https://a.example/?p=123", True),
])
def test_what_names_one_page(url, page):
    assert names_a_page(url) is page


def test_own_link_ignores_names_every_site_uses():
    links = ["http://a.example/index.html", "http://a.example/news/index.html"]
    assert own_link(links, "saved/index.html") is None
    assert own_link(["http://a.example/news/bridge-opens"], "saved/bridge-opens.html") == (
        "http://a.example/news/bridge-opens")


# ---------------------------------------------------------------- publication dates


def test_published_from_meta_tags_the_first_publication_before_a_plain_date():
    assert stated_date(fixture("published_meta.html")) == ("2005-04-08", "meta")


def test_published_from_json_ld():
    assert stated_date(fixture("published_jsonld.html")) == ("2017-03-15", "json-ld")


def test_published_from_a_time_element_the_one_marked_as_publication():
    markup = ('<html><body><time datetime="2012-05-02">May 2</time>'
              '<time itemprop="datePublished" datetime="2012-05-01T10:00">May 1</time></body></html>')
    assert stated_date(markup) == ("2012-05-01", "time")


def test_published_from_visible_text_through_htmldate():
    markup = fixture("published_text.html")
    assert stated_date(markup) is None  # nothing for machines
    assert htmldate_published(markup) == "2005-04-08"


def test_htmldate_never_gives_a_date_after_the_capture():
    assert htmldate_published(fixture("published_text.html"), latest="2005-04-01T00:00:00Z") != "2005-04-08"


@pytest.mark.parametrize(("value", "expected"), [
    ("2005-04-08T21:30:00-04:00", "2005-04-08"), ("2007/01/09", "2007-01-09"), ("20070109", "2007-01-09"),
    ("Jan 09, 2007", "2007-01-09"), ("9 January 2007", "2007-01-09"), ("2007-01-04 06:44", "2007-01-04"),
    ("METATAG-DATE", None), ("2007-13-40", None), ("0001-01-01", None), ("011707", None),
])
def test_machine_dates(value, expected):
    assert machine_date(value) == expected


def test_extraction_keeps_publication_and_capture_apart():
    raw = RawPage("a/harbour.html", fixture("published_meta.html").encode(), url="http://a.example/harbour",
                  capture_date="2005-04-12T08:00:00Z", content_type="text/html")
    extracted, _ = extract_text(raw)
    assert extracted.published == ("2005-04-08", "meta")
    (page,) = extract_batch([raw], SpotSigsParams())
    assert not isinstance(page, str)
    info = page.info
    assert (info.published, info.published_from, info.capture_date, info.captured_from, info.url_from) == (
        "2005-04-08", "meta", "2005-04-12T08:00:00Z", "archive", "archive")


def test_a_stated_date_after_the_capture_is_not_taken():
    raw = RawPage("a/harbour.html", fixture("published_meta.html").encode(), url="http://a.example/harbour",
                  capture_date="2005-04-01T08:00:00Z", content_type="text/html")
    assert extract_text(raw)[0].published is None


def test_an_article_citing_three_pages_of_one_capture_is_no_replay():
    # As a chaos-2017 story cites EPA pages: three archived links among many of its own.
    cites = "".join(f'<a href="https://web.archive.org/web/20170413052024/https://www.epa.gov/climate/{i}">'
                    f"EPA page {i}</a>" for i in range(3))
    own = "".join(f'<a href="https://news.example/story/{i}">more {i}</a>' for i in range(20))
    markup = f"<html><head><title>Climate</title></head><body>{own}{cites}</body></html>"
    assert link_evidence(markup, "climate.html").stamp is None
    assert recover_provenance(None, None, markup).replay is False


@pytest.mark.parametrize("prefix", ["/web/", "https://wayback.archive-it.org/1234/", "/my-coll/"])
def test_rewritten_links_of_any_replay_give_the_capture_time(prefix):
    links = "".join(f'<a href="{prefix}20170315200102/https://www.example.net/world/{i}">{i}</a>'
                    for i in range(5))
    got = recover_provenance(None, None, f"<html><body>{links}</body></html>")
    assert (got.capture_date, got.captured_from, got.replay) == ("2017-03-15T20:01:02Z", "links", True)
