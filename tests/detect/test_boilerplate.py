from __future__ import annotations

import numpy as np

from workbench.core.records import PageInfo, RawPage
from workbench.detect.boilerplate import repeated_blocks, site_of
from workbench.detect.params import SpotSigsParams
from workbench.pipeline import run_dedup


def info(source: str, url: str | None = None) -> PageInfo:
    return PageInfo(key=source, source=source, url=url)


def test_site_comes_from_url_or_host_named_folder():
    assert site_of(info("crawl.warc.gz#12", "https://News.Example.org/a/b")) == "news.example.org"
    assert site_of(info("www.cnn.com/2019/story.html")) == "www.cnn.com"
    assert site_of(info("Lion/l10.htm")) is None  # a Gold Set style folder: no site
    assert site_of(info("page.html")) is None
    assert site_of(info("2019.11/page.html")) is None  # digits only are not a host
    saved = PageInfo(key="Lion/l3.htm", source="Lion/l3.htm", link_host="kgo.example.com")
    assert site_of(saved) == "kgo.example.com"  # a "Save As" page: where its links point


def test_blocks_repeated_on_a_share_of_a_sites_pages_are_masked():
    infos = [info(f"site.com/{i}.html") for i in range(10)] + [info("other.org/x.html")]
    template, story = 111, 222
    hashes = [np.array([template, 1000 + i], dtype=np.int64) for i in range(10)]
    hashes[0] = np.array([template, story], dtype=np.int64)
    hashes[1] = np.array([template, story], dtype=np.int64)  # a story on 2 of 10 pages
    hashes.append(np.array([template], dtype=np.int64))
    masks = repeated_blocks(infos, hashes, min_pages=8, share=0.25)
    assert masks[0].tolist() == [True, False]
    assert all(m.tolist() == [True, False] for m in masks[1:10])
    assert masks[10] is None  # a one-page site is never judged


def test_small_sites_are_left_alone():
    infos = [info(f"site.com/{i}.html") for i in range(5)]
    hashes = [np.array([7], dtype=np.int64) for _ in infos]
    assert repeated_blocks(infos, hashes, min_pages=8, share=0.25) == [None] * 5


TEASERS = "".join(
    f"<div class='teaser'><h3>Teaser {k}</h3><p>The council is said to have approved the plan "
    f"number {k} for the town and the river after a long debate in the hall.</p></div>"
    for k in range(6)
)


def page(story: str) -> bytes:
    words = " ".join(f"the {story}{i} is a word{i} and has more{i} in it" for i in range(12))
    return f"<html><body><p>{words}</p>{TEASERS}</body></html>".encode()


def test_same_template_different_stories_do_not_match_once_the_template_is_known():
    pages = [RawPage(f"site.com/{i}.html", page(f"s{i}x")) for i in range(10)]
    params = SpotSigsParams(tau=0.5, min_sigs=1)
    with_filter = run_dedup("site.com", params, pages=pages)
    without = run_dedup("site.com", SpotSigsParams(tau=0.5, min_sigs=1, site_boilerplate=False),
                        pages=pages)
    assert len(without.pairs) > 0  # the teasers alone make the pages look alike
    assert len(with_filter.pairs) == 0
    # The run records what it left out, for the side-by-side view.
    assert len(with_filter.filters.boilerplate["site.com"]) == 6  # the six teaser paragraphs
    assert not without.filters.boilerplate
