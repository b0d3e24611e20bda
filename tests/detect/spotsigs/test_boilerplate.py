from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.detect.spotsigs.corpus_boilerplate_reference import draw_corpus, reference_corpus_boilerplate
from workbench.core.records import PageInfo, RawPage
from workbench.detect.spotsigs import corpus_boilerplate as corpus_boilerplate_module
from workbench.detect.spotsigs.boilerplate import (
    ANY_SITE,
    boilerplate_masks,
    corpus_boilerplate,
    repeated_blocks,
    site_of,
)
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.usecases.pipeline import run_dedup


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


def _weights(hashes):
    return [np.full(len(h), 10.0) for h in hashes]


def test_a_block_on_many_pages_of_different_stories_is_corpus_boilerplate():
    from workbench.detect.spotsigs.boilerplate import corpus_boilerplate

    banner = 1
    # Twelve pages of twelve different stories (four blocks each) share one banner block.
    hashes = [np.array([banner, *(100 * i + k for k in range(4))], dtype=np.int64) for i in range(1, 13)]
    assert corpus_boilerplate(hashes, _weights(hashes), min_pages=5).tolist() == [banner]
    # Too few pages: left alone.
    assert corpus_boilerplate(hashes[:4], _weights(hashes[:4]), min_pages=5).tolist() == []


def test_the_shared_story_of_a_syndicated_cluster_is_never_corpus_boilerplate():
    from workbench.detect.spotsigs.boilerplate import corpus_boilerplate

    story = [11, 12, 13, 14]
    # Eight syndicated copies of one story, each in its own frame (one frame block each)
    # and each with one paragraph of its own (an editor's note), plus a banner on all.
    hashes = [np.array([*story, 500 + i, 900 + i, 1], dtype=np.int64) for i in range(8)]
    # ... and eight unrelated pages with the banner.
    hashes += [np.array([1, 2000 + 10 * i, 2001 + 10 * i, 2002 + 10 * i], dtype=np.int64) for i in range(8)]
    dropped = set(corpus_boilerplate(hashes, _weights(hashes), min_pages=5).tolist())
    assert not dropped & set(story)
    assert 1 in dropped


def test_other_boilerplate_on_a_storys_pages_does_not_make_the_story_boilerplate():
    from workbench.detect.spotsigs.boilerplate import corpus_boilerplate

    rng = np.random.default_rng(5)
    story = 7
    ads = np.arange(31, 43)  # twelve ads, three random ones on every page

    def three_ads() -> list[int]:
        return rng.choice(ads, 3, replace=False).tolist()

    # Six copies of one story, each with a note of its own: the story is a fifth of the
    # page until the ads (found everywhere) are left out of it.
    hashes = [np.array([story, 300 + i, *three_ads()], dtype=np.int64) for i in range(6)]
    hashes += [np.array([*three_ads(), 400 + 3 * i, 401 + 3 * i, 402 + 3 * i], dtype=np.int64)
               for i in range(40)]
    dropped = set(corpus_boilerplate(hashes, _weights(hashes), min_pages=5, max_core_share=0.35).tolist())
    assert story not in dropped
    assert len(set(ads.tolist()) & dropped) >= 9  # most ads (an ad on story pages may stay)


def test_the_corpus_filter_keeps_a_syndicated_story_and_drops_a_banner_end_to_end(tmp_path):
    """Fourteen pages: six copies of one story in six frames, eight other stories; all with
    the same archive-like banner paragraph. The copies cluster; the others stay alone."""
    banner = ("These pages are part of an effort to preserve the record of the web as it was "
              "published, and this copy was made by an automated crawler on behalf of a library.")
    story = ["The regional council approved the new tram line on Monday after a long debate "
             "that ended with a narrow vote of seventeen to fifteen in favour of the project.",
             "Work on the first section will begin in the spring and the line is expected to "
             "carry its first passengers within four years if the budget holds as planned."]
    rng = np.random.default_rng(3)
    vocabulary = [f"{stem}{k}" for stem in ("river", "market", "harvest", "lantern", "copper", "meadow",
                                            "quarry", "harbour", "orchard", "signal") for k in range(30)]

    def sentence() -> str:  # prose whose spots (the/is/was + the next words) are its own
        w = rng.choice(vocabulary, 12, replace=False)
        return (f"The {w[0]} {w[1]} was {w[2]} {w[3]} and the {w[4]} {w[5]} is {w[6]} {w[7]} "
                f"while a {w[8]} {w[9]} has {w[10]} {w[11]}.")

    others = [[" ".join(sentence() for _ in range(3)) for _ in range(2)] for _ in range(8)]
    pages = [[*story, f"Frame {k} says hello to its readers with a note of its own number {k} "
                      f"that is long enough to count as a paragraph of prose in the filter."]
             for k in range(6)] + others
    for i, paragraphs in enumerate(pages):
        body = "".join(f"<p>{p}</p>" for p in [banner, *paragraphs])
        (tmp_path / f"p{i:02d}.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    result = run_dedup(tmp_path, SpotSigsParams(main_content=False), workers=1)
    keys = [p.key for p in result.pages]
    clusters = [sorted(keys[m] for m in c.members) for c in result.clusters]
    assert clusters == [[f"p{i:02d}.html" for i in range(6)]]
    assert result.filters.boilerplate.get("*")  # the banner was recognised


def test_a_short_story_in_shared_frames_stays_although_the_frames_outweigh_it():
    from workbench.detect.spotsigs.boilerplate import corpus_boilerplate

    story = 5
    # Twelve copies of a one-paragraph story, each in one of three frames (a frame is four
    # blocks that other pages of that template carry too); nothing of the page is its own.
    frames = [[100 * f + k for k in range(4)] for f in range(3)]
    hashes = [np.array([story, *frames[i % 3]], dtype=np.int64) for i in range(12)]
    # Other pages in the same frames with stories of their own.
    hashes += [np.array([*frames[i % 3], 1000 + 4 * i, 1001 + 4 * i, 1002 + 4 * i, 1003 + 4 * i],
                        dtype=np.int64) for i in range(12)]
    weights = _weights(hashes)
    assert story in corpus_boilerplate(hashes, weights, min_pages=5, max_core_share=0.35).tolist()
    kept = corpus_boilerplate(hashes, weights, min_pages=5, max_core_share=0.35, min_own_share=0.25)
    assert story not in kept.tolist()


def _masks_page_by_page(infos, hashes, boiler):
    """The definition, one page at a time (what boilerplate_masks computes in one pass)."""
    out = []
    for info_, h in zip(infos, hashes, strict=True):
        site = site_of(info_)
        mask = np.isin(h, boiler[site]) if site in boiler else None
        if ANY_SITE in boiler and len(boiler[ANY_SITE]):
            common = np.isin(h, boiler[ANY_SITE])
            mask = common if mask is None else mask | common
        out.append(mask)
    return out


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_masks_in_one_pass_equal_the_page_by_page_definition(data):
    n = data.draw(st.integers(0, 12))
    sites = ["a.com", "b.org", "c.net", "Lion"]
    infos = [info(f"{data.draw(st.sampled_from(sites))}/{i}.html") for i in range(n)]
    hashes = [np.array(data.draw(st.lists(st.integers(0, 9), max_size=6)), dtype=np.int64) for _ in infos]
    boiler = {site: np.array(sorted(data.draw(st.sets(st.integers(0, 9), max_size=4))), dtype=np.int64)
              for site in data.draw(st.sets(st.sampled_from([*sites, ANY_SITE])))}
    got = boilerplate_masks(infos, hashes, boiler)
    want = _masks_page_by_page(infos, hashes, boiler)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            assert g.tolist() == w.tolist()


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corpus_boilerplate_over_arrays_equals_the_block_by_block_rule(data):
    """Random corpora of a few block kinds: banners, story paragraphs, own text."""
    c = draw_corpus(data)
    got = corpus_boilerplate(c.hashes, c.weights, c.min_pages, c.core, sample=c.sample, min_own_share=c.own)
    want = reference_corpus_boilerplate(c.hashes, c.weights, c.min_pages, c.core, sample=c.sample,
                                        min_own_share=c.own)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("chunk", [1, 3, 4_000_000])
def test_blocks_numbered_a_chunk_at_a_time_as_np_unique_numbers_them(monkeypatch, chunk):
    monkeypatch.setattr(corpus_boilerplate_module, "_CHUNK", chunk)
    hashes = np.random.default_rng(chunk).integers(-2**63, 2**63 - 1, 50, dtype=np.int64)[
        np.random.default_rng(1).integers(0, 50, 200)]
    ids, inverse = np.unique(hashes, return_inverse=True)
    got = corpus_boilerplate_module._dense_ids(ids, hashes)
    assert got.dtype == np.int32 and got.tolist() == inverse.tolist()


@pytest.mark.parametrize("most", [5, 64, 65, 500])
def test_page_entries_sum_each_pages_copies_of_a_block(most):
    """Pages of up to ``most`` blocks (both ways of ordering a page), copies repeated."""
    rng = np.random.default_rng(most)
    sizes = rng.integers(0, most + 1, 60)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    dense = rng.integers(0, 40, int(sizes.sum())).astype(np.int32)
    weight = rng.integers(0, 9, len(dense)).astype(np.float64)
    page, block, summed, start = corpus_boilerplate_module._page_entries(ptr, dense, weight)
    row = np.repeat(np.arange(len(sizes)), sizes)
    keys, inverse = np.unique(row * 40 + dense, return_inverse=True)
    assert page.tolist() == (keys // 40).tolist() and block.tolist() == (keys % 40).tolist()
    assert summed.tolist() == np.bincount(inverse, weights=weight, minlength=len(keys)).tolist()
    assert start.tolist() == [0, *np.cumsum(np.bincount(keys // 40, minlength=len(sizes))).tolist()]


@pytest.mark.parametrize("seed", range(5))
def test_own_medians_are_np_median_of_each_candidates_sampled_pages(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9, 40)  # even and odd samples, and candidates with none
    sample_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    own = rng.integers(0, 5, 30) / rng.integers(1, 5, 30)  # ties, and shares that round
    pages = rng.integers(0, len(own), int(sizes.sum())).astype(np.int32)
    use = rng.random(len(sizes)) < 0.7
    got = corpus_boilerplate_module._own_medians(sample_start, pages, own, use)
    for c, size in enumerate(sizes.tolist()):
        if not use[c]:
            assert np.isnan(got[c])
        else:
            want = np.median(own[pages[sample_start[c] : sample_start[c + 1]]]) if size else 0.0
            assert got[c] == want, (c, got[c], want)
