"""The title a coder sees is the page's headline, not its site's name."""

from __future__ import annotations

from collections import defaultdict

from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_page
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.text.headline import Site, TitleCandidates, choose_headline, strip_site
from workbench.text.html import extract

STORY = "<p>" + "The council voted on the new budget after a long debate in the town hall. " * 6 + "</p>"


def page(head: str = "", body: str = STORY) -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_og_title_is_the_headline_and_the_title_tag_is_kept():
    og = '<meta property="og:title" content="Council  passes budget">'
    ex = extract(page(f"<title>Daily Planet</title>{og}"))
    assert ex.title == "Council passes budget"
    assert ex.title_tag == "Daily Planet"


def test_twitter_title_counts_when_there_is_no_og_title():
    twitter = '<meta name="twitter:title" content="Budget passes at last">'
    ex = extract(page(f"<title>Daily Planet</title>{twitter}"))
    assert ex.title == "Budget passes at last"


def test_h1_is_the_headline_when_the_title_names_the_site():
    ex = extract(page("<title>Daily Planet Online</title>",
                      "<h1>Council passes the budget after a long night</h1>" + STORY))
    assert ex.title == "Council passes the budget after a long night"
    assert ex.title_tag == "Daily Planet Online"


def test_only_an_h1_and_no_title():
    ex = extract(page("", "<h1>Council passes the budget</h1>" + STORY))
    assert ex.title == "Council passes the budget"
    assert ex.title_tag == ""


def test_a_logo_h1_is_skipped_for_the_story_heading():
    body = "<h1>www.planet.example.com</h1><h1>Council passes the budget after a long night</h1>" + STORY
    ex = extract(page("<title>Council passes the budget after a long night | Planet</title>", body))
    assert ex.title == "Council passes the budget after a long night"


def test_section_label_headings_do_not_replace_a_story_title():
    body = "<h1>AP World News</h1><h2>Friday, January 19th, 2007</h2>" + STORY
    ex = extract(page("<title>Council passes the budget after a long night - planet.com</title>", body))
    assert ex.title == "Council passes the budget after a long night"  # the site suffix is gone


def test_nothing_but_text_gives_the_first_words():
    ex = extract(page("", STORY))
    assert ex.title.startswith("The council voted") and ex.title_tag == ""


def test_the_text_still_starts_with_the_title_tag_so_detection_is_unchanged():
    plain = page("<title>Daily Planet</title>", STORY)
    declared = page('<title>Daily Planet</title><meta property="og:title" content="Council passes budget">',
                    STORY)
    a, b = extract(plain, main_content=True), extract(declared, main_content=True)
    assert a.text == b.text and a.text.startswith("Daily Planet\n")
    assert a.blocks == b.blocks
    params = SpotSigsParams()
    pa = extract_page(RawPage("a.html", plain.encode(), content_type="text/html"), params)
    pb = extract_page(RawPage("a.html", declared.encode(), content_type="text/html"), params)
    assert (pa.spot_ids.tolist(), pa.info.checksum) == (pb.spot_ids.tolist(), pb.info.checksum)
    assert (pa.info.title, pb.info.title) == ("Daily Planet", "Council passes budget")
    assert pb.info.title_tag == "Daily Planet"


def test_titles_are_capped():
    long = "word " * 300
    info = extract_page(RawPage("a.html", page(f"<title>{long}</title>").encode()), SpotSigsParams()).info
    assert len(info.title) <= 500 and len(info.title_tag) <= 500


def test_site_names_and_hosts_claim_a_text():
    site = Site.of(["The Planet"], ["www.islandpacket.com"])
    assert site.claims("islandpacket.com")
    assert site.claims("The Island Packet Online")
    assert site.claims("the planet")
    assert site.claims("  ")
    assert not site.claims("Island council passes the budget after a long night")


def test_strip_site_only_takes_off_clearly_site_segments():
    site = Site.of([], ["www.washingtonpost.com"])
    assert strip_site("Pelosi Bans Smoking - washingtonpost.com", site) == "Pelosi Bans Smoking"
    assert strip_site("Forbes.com: Aide to Premier Arrested", site) == "Aide to Premier Arrested"
    assert strip_site("Winter Relief - Health News", site) == "Winter Relief - Health News"
    # Too little would be left: kept whole.
    assert strip_site("680News - ALL NEWS", Site.of([], ["680news.com"])) == "680News - ALL NEWS"


def test_a_main_content_heading_comes_before_the_first_h1():
    headings = [("h1", "Mayor opens the new bridge"), ("h2", "Council passes the budget")]
    found = TitleCandidates(headings=headings, title_tag="Daily Planet")
    assert choose_headline(found, main_texts=frozenset({"Council passes the budget"})) == (
        "Council passes the budget")
    assert choose_headline(found) == "Mayor opens the new bridge"


def test_a_declared_site_name_is_not_a_headline():
    found = TitleCandidates(declared=["Daily Planet"], headings=[("h1", "Council passes the budget")],
                            title_tag="Daily Planet", site_names=["Daily Planet"])
    assert choose_headline(found) == "Council passes the budget"


def test_dev_gold_set_titles_shared_by_different_stories_give_way(goldset_dev):
    """A <title> carried by pages of two or more gold clusters (different stories) names a
    site; fewer pages than before show it as their title (before: every one of them)."""
    from workbench.usecases.pipeline import load_corpus

    pages = load_corpus(goldset_dev).pages
    stories: dict[str, set[str]] = defaultdict(set)
    for p in pages:
        if p.title_tag:
            stories[p.title_tag].add(p.key.split("/", 1)[0])
    site_like = {t for t, s in stories.items() if len(s) >= 2}
    carrying = [p for p in pages if p.title_tag in site_like]
    still = [p for p in carrying if p.title == p.title_tag]
    assert len(carrying) >= 50
    assert len(still) <= 0.8 * len(carrying), (len(still), len(carrying))
    # And no headline is a site-like title of another page.
    assert not any(p.title in site_like for p in pages if p.title != p.title_tag)
