"""Titles that are a site's label, not a headline: only the whole crawl tells them.

A page's headline is chosen from what the page alone says (workbench.text.headline),
and some pages say nothing better than their site's label: "Westfall Weekly News",
"Kstp.com", "fremonttribune.com, Fremont, Nebraska's Community Newspaper", with no
heading that names the story. Such a label is the title of many pages of its site, each
about another story. So once every page is read, a candidate title that at least
:data:`MIN_PAGES` pages of one site offer, and whose pages tell different stories, is
the site's label: each page shows the first of its candidates that is not (another
heading, the ``<title>`` with the site's name off, or the article's first words).

A headline that three copies of one story on one site share (the Gold Set holds such
copies) is kept: the caller says which pages are one story (a SpotSigs run by their
signatures, :func:`matrix_similarity`). Titles are for display only: detection never
reads them.
"""

from __future__ import annotations

import sys
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import combinations

import numpy as np

from workbench.core.records import PageInfo

# A candidate offered by at least this many pages of a site can be its label.
MIN_PAGES = 3
# The pages of a candidate that are compared (the first ones, in reading order).
SAMPLE = 12
# Two pages at least this similar are copies of one story (SpotSigs' similarity: pages of
# different stories on one site share next to nothing once its template is left out).
SAME_STORY = 0.25
# The opening shown as a title: its first words.
SHOWN_OPENING_WORDS = 12

Similarity = Callable[[int, int], float]
# A candidate of a site: (site, text).
Key = tuple[str, str]
# Candidates are counted by this hash of their key first, and only those that come
# MIN_PAGES times or more are then kept as text: keeping every page's candidates as keys
# (most pages' openings and other titles are their own) held about 1 KB a page at once,
# the client's peak on a 300,000-page --dask run. A module name, so that a test can make
# every key collide.
_key_hash: Callable[[Key], int] = hash


def shown_opening(opening: str) -> str:
    """The article's first words as a title: at most :data:`SHOWN_OPENING_WORDS`."""
    words = opening.split()
    if len(words) <= SHOWN_OPENING_WORDS:
        return " ".join(words)
    return " ".join(words[:SHOWN_OPENING_WORDS]) + "…"


def matrix_similarity(ptr: np.ndarray, sig: np.ndarray, cnt: np.ndarray,
                      lengths: np.ndarray) -> Similarity:
    """SpotSigs' similarity of two pages (multiset Jaccard) from a signature matrix's
    rows (workbench.detect.join.matcher.SignatureMatrix) and the pages' lengths."""
    def similarity(i: int, j: int) -> float:
        a, b = slice(ptr[i], ptr[i + 1]), slice(ptr[j], ptr[j + 1])
        _, ia, ib = np.intersect1d(sig[a], sig[b], assume_unique=True, return_indices=True)
        shared = int(np.minimum(cnt[a][ia], cnt[b][ib]).sum())
        union = int(lengths[i]) + int(lengths[j]) - shared
        return shared / union if union else 0.0

    return similarity


def _candidates(page: PageInfo) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for t in (page.title, *page.other_titles, page.opening) if t))


def _is_label(group: list[int], similarity: Similarity | None) -> bool:
    """Whether the pages of ``group`` tell at least :data:`MIN_PAGES` different stories:
    pages linked by copies (similarity at least :data:`SAME_STORY`, directly or through
    another) are one story. At most :data:`SAMPLE` pages, spread over the group, are
    compared."""
    if similarity is None:
        return True
    sample = group[:: -(-len(group) // SAMPLE)]
    story = list(range(len(sample)))

    def root(k: int) -> int:
        while story[k] != k:
            k = story[k]
        return k

    for (x, i), (y, j) in combinations(enumerate(sample), 2):
        if root(x) != root(y) and similarity(i, j) >= SAME_STORY:
            story[root(y)] = root(x)
    return len({root(k) for k in range(len(sample))}) >= MIN_PAGES


def retitle_site_labels(pages: Sequence[PageInfo], site_of: Callable[[PageInfo], str | None],
                        similarity: Similarity | None = None) -> int:
    """Give each page whose title is its site's label the first of its candidates that is
    none; how many pages got another title. ``similarity(i, j)`` of pages i and j tells
    copies of one story (None: no page is a copy of another). The candidates are let go
    afterwards (they were kept for this alone)."""
    # Each site's text once, shared by its pages (site_of makes a new one per call).
    sites = [None if (site := site_of(page)) is None else sys.intern(site) for page in pages]

    def site_titles() -> Iterator[tuple[int, Key]]:
        for i, (site, page) in enumerate(zip(sites, pages, strict=True)):
            if site and page.title:
                yield i, (site, page.title)

    titles = _grouped_if_often(site_titles)
    repeated_sites = {site for (site, _), group in titles.items() if len(group) >= MIN_PAGES}
    del titles
    retitled: dict[int, str] = {}
    if repeated_sites:
        def offers() -> Iterator[tuple[int, Key]]:
            for i, site in enumerate(sites):
                if site in repeated_sites:
                    for text in _candidates(pages[i]):
                        yield i, (site, text)

        offered = _grouped_if_often(offers)
        labels: dict[Key, bool] = {}

        def is_label(key: Key) -> bool:
            group = offered.get(key)
            if group is None or len(group) < MIN_PAGES:
                return False
            if key not in labels:
                labels[key] = _is_label(group, similarity)
            return labels[key]

        for i, site in enumerate(sites):
            if site not in repeated_sites:
                continue
            page = pages[i]
            if not is_label((site, page.title)):
                continue
            better = next((t for t in _candidates(page) if not is_label((site, t))), None)
            if better is not None:
                retitled[i] = better
        del offered, labels
    _set_titles(pages, retitled)
    _let_go_of_candidates(pages)
    return len(retitled)


def _grouped_if_often(offers: Callable[[], Iterable[tuple[int, Key]]]) -> dict[Key, list[int]]:
    """The pages (in order) that offer each key that could come :data:`MIN_PAGES` times
    (others are left out): two passes over ``offers()``, the first counting hashes only.
    Every key that comes that often has a frequent hash; a rarer key may share one with
    another, so its group is made and its length tells."""
    hashes = np.frombuffer(array("q", (_key_hash(key) for _, key in offers())), dtype=np.int64)
    values, counts = np.unique(hashes, return_counts=True)
    often = set(values[counts >= MIN_PAGES].tolist())
    grouped: dict[Key, list[int]] = defaultdict(list)
    for i, key in offers():
        if _key_hash(key) in often:
            grouped[key].append(i)
    return grouped


def _set_titles(pages: Sequence[PageInfo], titles: dict[int, str]) -> None:
    """Page ``k`` titled ``titles[k]``. Records held in columns (a cluster run's client:
    workbench.cluster.records.page_table) take them all at once."""
    at_once = getattr(pages, "set_many", None)
    if at_once is not None:
        at_once("title", titles)
        return
    for k, title in titles.items():
        pages[k].title = title


def _let_go_of_candidates(pages: Sequence[PageInfo]) -> None:
    """Every page's other titles and opening emptied. Records held in columns (a cluster
    run's client: workbench.cluster.records.page_table) drop the columns at once."""
    everywhere = getattr(pages, "set_for_every_page", None)
    if everywhere is not None:
        everywhere("other_titles", ())
        everywhere("opening", "")
        return
    for page in pages:
        page.other_titles, page.opening = (), ""
