"""Pages saved from the Wayback Machine: banner never compared; URL, date and site recovered."""

from __future__ import annotations

from pathlib import Path

from workbench.detect.spotsigs.boilerplate import site_of
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import run_dedup

BANNER = ("These crawls are part of an effort to archive pages as they are created and archive the "
          "pages that they refer to. The Internet Archive discovers and captures web pages through "
          "many different web crawls, and this page was captured by one of them on the date shown.")


def capture(timestamp: str, path: str, story: list[str]) -> str:
    original = f"http://www.harbourtimes.example/{path}"
    body = "".join(f"<p>{p}</p>" for p in story)
    return (
        '<!DOCTYPE html><html><head><script src="//archive.org/includes/analytics.js?v=1"></script>'
        '<script src="/_static/js/wombat.js"></script>'
        f'<script>__wm.wombat("{original}","{timestamp}","https://web.archive.org/","web",'
        '"/_static/");</script>'
        '<link rel="stylesheet" href="/_static/css/banner-styles.css"/>'
        "<!-- End Wayback Rewrite JS Include -->"
        f'<title>Harbour Times</title><link rel="canonical" href="/web/{timestamp}/{original}"></head>'
        "<body><!-- BEGIN WAYBACK TOOLBAR INSERT -->"
        f'<div id="wm-ipp-base"><div id="wm-ipp"><p>{BANNER}</p><p>{BANNER}</p></div></div>'
        "<!-- END WAYBACK TOOLBAR INSERT -->"
        f'<nav><a href="/web/{timestamp}/http://www.harbourtimes.example/">Home</a></nav>'
        f"<article>{body}</article></body></html>"
        f"<!--\n     FILE ARCHIVED ON 12:34:56 Mar 15, 2017 AND RETRIEVED FROM THE\n-->"
    )


STORY_A = ["The harbour board voted on Tuesday to close the old ferry terminal at the end of the "
           "summer season, after the engineers reported that the pier was no longer safe to use.",
           "The ferry company said it would move its boats to the new quay on the north side of the "
           "bay, where a temporary waiting room will be built before the winter timetable starts."]
STORY_B = ["A local bakery has won the regional prize for its rye bread for the third year in a row, "
           "the jury announced at a ceremony in the town hall on Saturday afternoon.",
           "The owners said the recipe came from a grandmother who had baked for the village for "
           "forty years, and that they would use the prize money to repair their old stone oven."]


def test_a_wayback_capture_has_its_url_date_and_site_and_its_banner_is_not_compared(tmp_path: Path):
    (tmp_path / "a.html").write_text(capture("20170315123456", "news/ferry.html", STORY_A), encoding="utf-8")
    (tmp_path / "b.html").write_text(capture("20170316070809", "news/bakery.html", STORY_B), encoding="utf-8")
    result = run_dedup(tmp_path, SpotSigsParams(), workers=1)
    by_key = {p.key: p for p in result.pages}
    a, b = by_key["a.html"], by_key["b.html"]
    assert a.url == "http://www.harbourtimes.example/news/ferry.html"
    assert a.capture_date == "2017-03-15T12:34:56Z"
    assert b.url == "http://www.harbourtimes.example/news/bakery.html"
    assert b.capture_date == "2017-03-16T07:08:09Z"
    assert site_of(a) == site_of(b) == "www.harbourtimes.example"
    # Two different stories behind one banner: never a pair, at any similarity.
    assert len(result.floor_pairs) == 0 and result.clusters == []


def test_the_banner_is_gone_from_the_text_the_coder_sees(tmp_path: Path):
    from workbench.core.records import RawPage
    from workbench.detect.spotsigs.extract import extract_text

    raw = RawPage("a.html", capture("20170315123456", "news/ferry.html", STORY_A).encode())
    extracted, _ = extract_text(raw)
    assert "Internet Archive" not in extracted.text
    assert STORY_A[0] in extracted.text
    assert extracted.provenance is not None and extracted.provenance.replay
