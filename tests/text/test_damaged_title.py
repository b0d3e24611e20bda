"""An unclosed <title> must not turn a page's scripts and footer into its text.

HTML reads everything after an unclosed <title> as the title's text, markup and all, and
leaves the body empty (50 of the 621 L3S-GN1 Google News pages of 2008 have one). Taken
as the page's text, two different stories of one site then share their site's scripts and
footer, which outweigh the stories: a false pair.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.records import RawPage
from workbench.detect.spotsigs.extract import extract_text
from workbench.usecases.pipeline import run_dedup

SCRIPT = ("<script type='text/javascript'>var the_site = {name: 'the daily courier', section: 'is the news'};"
          " function the_tracker(a) { return a + ' is the page of the site'; }"
          " the_tracker(the_site);</script>"
          "<script src='/static/site.js'></script><style>body { font: 12px the sans; }</style>")
FOOTER = ("The Daily Courier is a member of the regional press council and is published by the Courier "
          "media group, which is also the owner of the weekend magazine and the radio station of the "
          "county. All of the material on this site is the property of the group and is protected by the "
          "law of copyright. The reproduction of any of the material of the site is not allowed without "
          "the written permission of the editor. The views of the readers in the comments are not the "
          "views of the newspaper. Contact the newsroom, advertise with the group, read the terms of the "
          "service and the privacy policy of the site, or subscribe to the daily newsletter of the "
          "courier to get the news of the county in the inbox every morning of the week. ")
STORIES = (
    ("Council approves the new budget for the schools",
     "The county council approved on Tuesday a budget that is the largest in a decade for the schools "
     "of the district. The plan is to hire forty teachers and to repair the roofs of six buildings "
     "before the winter. A member of the council said that the vote was the result of a year of talks "
     "with the parents of the pupils and the unions of the staff. The budget is to be paid for by a "
     "rise of the property tax, which is the first since the crisis of the banks. The mayor is "
     "expected to sign the plan at the end of the month."),
    ("Flood waters reach the old mill on the river",
     "Heavy rain over the weekend sent the river over its banks and the water reached the old mill "
     "in the early hours of Sunday. Firefighters evacuated a dozen homes on the lane by the bridge and "
     "a shelter was opened in the gym of the high school. The weather service said that the rain is "
     "to ease by Wednesday but that the ground is too wet to take much more. Farmers in the valley "
     "said that the flood is the worst they have seen since the storm of the spring of the last year, "
     "when the road to the village was closed for a week."),
)


def _page(headline: str, story: str) -> str:
    # The title is never closed: everything after it is the title's text to an HTML parser.
    return (f"<html><head><title>{headline} | The Daily Courier\n{SCRIPT}</head><body>"
            f"<div id=nav><a href='/'>Home</a> <a href='/news'>News</a></div>"
            f"<h1>{headline}</h1><div class=story><p>{story}</p></div>"
            f"<div class=footer><p>{FOOTER * 3}</p></div>{SCRIPT}</body></html>")


def test_an_unclosed_title_leaves_the_article_as_the_text():
    headline, story = STORIES[0]
    raw = RawPage("story.html", _page(headline, story).encode(), content_type="text/html")
    extracted, _ = extract_text(raw, main_content=True)
    text = " ".join(extracted.text.split())
    assert story in text
    assert "the_tracker" not in text and "<script" not in text and "<h1>" not in text
    assert extracted.title.startswith("Council approves the new budget")
    article = " ".join(text for b in extracted.blocks if b.main
                       for text in [extracted.text[b.start : b.end]])
    assert story in article and "press council" not in article


def test_two_stories_with_unclosed_titles_are_no_pair(tmp_path: Path):
    site = tmp_path / "courier"
    site.mkdir()
    for k, (headline, story) in enumerate(STORIES):
        (site / f"story{k}.html").write_text(_page(headline, story), encoding="utf-8")
    result = run_dedup(tmp_path, workers=1)
    assert len(result.pages) == 2
    assert len(result.pairs.a) == 0
    # Both pages were read for their stories, not skipped for too little text.
    assert all(page.signature_count > 0 for page in result.pages)


def test_a_closed_title_that_spells_a_tag_stays_the_title():
    page = ("<html><head><title>Why <br> breaks a line</title></head><body>"
            f"<p>{STORIES[0][1]}</p></body></html>")
    raw = RawPage("br.html", page.encode(), content_type="text/html")
    extracted, _ = extract_text(raw, main_content=True)
    assert extracted.title_tag == "Why <br> breaks a line"
    assert extracted.text.startswith("Why <br> breaks a line\n")
