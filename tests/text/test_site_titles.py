"""A title many pages of a site share, each another story, is the site's label: each page
shows its next candidate; copies of one story keep their shared headline."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import numpy as np

from workbench.core.records import PageInfo
from workbench.detect.spotsigs.boilerplate import site_of
from workbench.text.site_titles import retitle_site_labels


def _page(key: str, title: str, others: tuple[str, ...] = (), opening: str = "") -> PageInfo:
    return PageInfo(key=key, source=key, title=title, other_titles=others, opening=opening)


def _stories(*groups: list[int]):
    """Pages in one group are copies of one story (similarity 0.9), others share nothing."""
    story = {i: g for g, members in enumerate(groups) for i in members}
    return lambda i, j: 0.9 if story.get(i, -1 - i) == story.get(j, -1 - j) else 0.0


def test_a_label_on_pages_of_three_stories_gives_way_to_the_next_candidate():
    pages = [_page("kstp.com/a", "Kstp.com", ("Storm closes schools",), "A storm closed schools…"),
             _page("kstp.com/b", "Kstp.com", (), "The mayor said on Monday that…"),
             _page("kstp.com/c", "Kstp.com", ()),  # nothing else to show: keeps the label
             _page("kstp.com/d", "Twins win the pennant")]
    assert retitle_site_labels(pages, site_of, _stories()) == 2
    assert [p.title for p in pages] == ["Storm closes schools", "The mayor said on Monday that…",
                                        "Kstp.com", "Twins win the pennant"]
    assert all(p.other_titles == () and p.opening == "" for p in pages)  # let go after


def test_copies_of_one_story_keep_the_headline_they_share():
    pages = [_page(f"examiner.com/{k}", "Pelosi Bans Smoking Near House Floor", (), f"Opening {k}…")
             for k in range(4)]
    # Three copies of one story and a fourth page of another: two stories, no label.
    assert retitle_site_labels(pages, site_of, _stories([0, 1, 2])) == 0
    assert {p.title for p in pages} == {"Pelosi Bans Smoking Near House Floor"}


def test_two_pages_or_pages_of_different_sites_are_no_label():
    pages = [_page("a.com/1", "Daily Planet", (), "One…"), _page("a.com/2", "Daily Planet", (), "Two…"),
             _page("b.com/1", "Daily Planet", (), "Three…")]
    assert retitle_site_labels(pages, site_of, _stories()) == 0


def test_a_next_candidate_that_is_a_label_too_is_passed_over():
    pages = [_page(f"news.com/{k}", "News Home", ("Latest headlines", f"Story {k}")) for k in range(3)]
    retitle_site_labels(pages, site_of, _stories())
    assert [p.title for p in pages] == ["Story 0", "Story 1", "Story 2"]


def _mixed_crawl(seed: int) -> tuple[list[PageInfo], object]:
    """Pages of a few sites, titled from a small pool (labels, shared headlines and
    their own), some of them copies of one story."""
    rng = random.Random(seed)
    pool = ["Home", "News Home", "Daily Planet", "Storm closes schools", "Latest"]
    pages = [_page(f"site{rng.randrange(4)}.com/{k}", rng.choice(pool + [f"Own {k}"]),
                   tuple(rng.sample(pool, rng.randrange(3))) + (f"Other {k}",) * rng.randrange(2),
                   rng.choice(["", f"Opening {k}…", "Shared opening…"]))
             for k in range(300)]
    copies = [list(range(start, start + rng.randrange(2, 6))) for start in range(0, 300, 17)]
    return pages, _stories(*copies)


def test_candidates_counted_by_their_hash_first_give_what_their_text_gives(monkeypatch):
    """Candidates are counted by a hash before their text is kept: keys that share a hash
    must still be told apart by their text (here every key, or every fourth, collides)."""
    import workbench.text.site_titles as site_titles

    for seed in range(3):
        pages, stories = _mixed_crawl(seed)
        retitled = retitle_site_labels(pages, site_of, stories)
        want = [p.title for p in pages]
        assert retitled > 0 and len(set(want)) > len(pages) // 3
        for collide in (lambda key: 0, lambda key: hash(key) & 3):
            monkeypatch.setattr(site_titles, "_key_hash", collide)
            pages, stories = _mixed_crawl(seed)
            assert retitle_site_labels(pages, site_of, stories) == retitled
            assert [p.title for p in pages] == want
            monkeypatch.undo()


# ------------------------------------------------------------------ a real run


def _article(rng: random.Random, words: list[str]) -> str:
    sentences = [" ".join(rng.choice(words) for _ in range(14)).capitalize() + "." for _ in range(12)]
    return "".join(f"<p>{s} The {rng.choice(words)} is {rng.choice(words)}.</p>" for s in sentences)


def _site(root: Path) -> Path:
    """kstp.com: four stories titled "Kstp.com"; wire.com: three copies of one story
    under its headline."""
    rng = random.Random(3)
    words = [f"w{rng.randrange(10**6)}" for _ in range(4000)]
    for k in range(4):
        folder = root / "kstp.com"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"story{k}.html").write_text(
            f"<html><head><title>Kstp.com</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<article>{_article(rng, words)}</article></body></html>")
    story = _article(rng, words)
    for k in range(3):
        folder = root / "wire.com"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"copy{k}.html").write_text(
            f"<html><head><title>Storm closes schools</title></head><body>"
            f"<article>{story}<p>Copy {k}.</p></article></body></html>")
    return root


def test_a_run_shows_the_articles_opening_for_a_sites_label_and_detection_is_unchanged(tmp_path,
                                                                                        monkeypatch):
    import workbench.usecases.pipeline as pipeline

    root = _site(tmp_path)
    corpus = pipeline.load_corpus(root, workers=1)
    titles = {p.key: p.title for p in corpus.pages}
    kstp = [t for k, t in titles.items() if k.startswith("kstp.com/")]
    assert len(kstp) == 4 and "Kstp.com" not in kstp and len(set(kstp)) == 4
    assert all(t.endswith("…") and t.startswith("W") for t in kstp)  # the article's first words
    assert {t for k, t in titles.items() if k.startswith("wire.com/")} == {"Storm closes schools"}
    result = pipeline.detect(corpus)
    # The same run without the rule: the same signatures, pairs and clusters.
    monkeypatch.setattr(pipeline, "retitle_site_labels", lambda *args: 0)
    plain = pipeline.load_corpus(root, workers=1)
    assert {p.key: p.title for p in plain.pages}["kstp.com/story0.html"] == "Kstp.com"
    again = pipeline.detect(plain)
    assert np.array_equal(corpus.matrix.sig, plain.matrix.sig)
    assert [(a, b, s) for a, b, s in zip(result.pairs.a, result.pairs.b, result.pairs.similarity,
                                         strict=True)] == \
        [(a, b, s) for a, b, s in zip(again.pairs.a, again.pairs.b, again.pairs.similarity, strict=True)]
    assert [c.members for c in result.clusters] == [c.members for c in again.clusters]


def test_dev_gold_set_site_labels_give_way_and_shared_headlines_stay(goldset_dev):
    """Titles one site gives pages of three or more gold stories are its labels: 56 pages
    showed one before (15 labels); copies of one story that share a headline keep it."""
    from workbench.usecases.pipeline import load_corpus

    pages = load_corpus(goldset_dev).pages
    stories: dict[tuple[str, str], set[str]] = defaultdict(set)
    for p in pages:
        site = site_of(p)
        if site and p.title:
            stories[(site, p.title)].add(p.key.split("/", 1)[0])
    labelled = [p for p in pages if len(stories.get((site_of(p), p.title), ())) >= 3]
    assert len(labelled) <= 10, sorted({p.title for p in labelled})
    for title in ("Pelosi Bans Smoking Near House Floor", "Julia Roberts expecting third child"):
        assert sum(p.title == title for p in pages if site_of(p) in ("examiner.com", "news.com.au")) >= 3
