"""The corpus boilerplate from only the blocks that weigh (workbench.cluster.filters.corpus_blocks):
the cluster's two steps, over any split of a crawl into units, give the same blocks as the
decision over every page's blocks, to the last one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.detect.spotsigs.corpus_boilerplate_reference import draw_corpus
from workbench.cluster.filters import corpus_blocks
from workbench.cluster.filters.reduce import merge_counts
from workbench.detect.spotsigs.corpus_boilerplate import (
    corpus_boilerplate,
    corpus_boilerplate_weighed,
    fewest_pages_weighed,
)


class _Done:
    """A unit's answer as a finished future gives it."""

    def __init__(self, answer: corpus_blocks.Weighed) -> None:
        self.answer = answer

    def result(self) -> corpus_blocks.Weighed:
        return self.answer


def _weighed_inputs(hashes: list[np.ndarray], weights: list[np.ndarray], cuts: list[int], min_pages: int,
                    sample: int) -> corpus_blocks.CorpusInputs:
    """The two steps as the cluster runs them, the pages cut into units at ``cuts``."""
    least = fewest_pages_weighed(min_pages, sample)
    bounds = [0, *sorted(set(cuts)), len(hashes)]
    units = [(lo, hi) for lo, hi in zip(bounds, bounds[1:], strict=False) if hi > lo]

    def flat(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.concatenate([np.empty(0, np.int64), *hashes[lo:hi]]),
                np.concatenate([np.empty(0, np.int64), *weights[lo:hi]]),
                np.array([len(h) for h in hashes[lo:hi]], dtype=np.int64))

    counted = corpus_blocks.shared(merge_counts(corpus_blocks.counts_of(*flat(lo, hi))
                                                       for lo, hi in units), least)
    answers = [_Done(corpus_blocks.weighed_of(*flat(lo, hi), counted, least)) for lo, hi in units]
    runs = [(k, 0, hi - lo) for k, (lo, hi) in enumerate(units)]
    return corpus_blocks._in_run_order(runs, list(answers), None, len(hashes), counted, least)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_weighed_blocks_decide_as_every_block_does(data):
    """Random corpora of a few block kinds (banners, story paragraphs, own text), blocks
    repeated on a page, pages without blocks, every setting of the decision."""
    c = draw_corpus(data, min_n=1, samples=(1, 2, 3, 5, 200))
    cuts = data.draw(st.lists(st.integers(0, len(c.hashes)), max_size=4))
    want = corpus_boilerplate(c.hashes, c.weights, c.min_pages, c.core, sample=c.sample, min_own_share=c.own)
    got = corpus_boilerplate_weighed(*_weighed_inputs(c.hashes, c.weights, cuts, c.min_pages, c.sample),
                                     c.min_pages, c.core, c.sample, c.own)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_blocks_on_too_few_pages_never_reach_the_client():
    """A crawl whose pages have a banner on all of them, a story on three and text of
    their own: with the defaults' bar (5 pages), only the banner and the story's
    paragraphs (on 3 pages, so they can make half of a 5-page sample) are sent."""
    rng = np.random.default_rng(3)
    hashes, weights = [], []
    for k in range(40):
        blocks = [1, 1000 + k, 2000 + k] + ([7, 8] if k < 3 else []) + ([9] if k < 2 else [])
        hashes.append(np.array(blocks, dtype=np.int64))
        weights.append(rng.integers(1, 9, len(blocks)))
    ids, pages, numbers, got_weights, sizes, total, own = _weighed_inputs(hashes, weights, [13, 27], 5, 200)
    assert ids.tolist() == [1, 7, 8] and pages.tolist() == [40, 3, 3]
    assert len(numbers) == 46 and sizes.tolist() == [3, 3, 3, *[1] * 37]
    assert total.tolist() == [float(w.sum()) for w in weights]
    assert own.tolist() == [float(w[1:3].sum()) for w in weights]  # its own two blocks (block 9 is on 2)
    assert got_weights.dtype == np.float64 and numbers.dtype == np.int32


def test_weighed_inputs_that_leave_a_page_of_a_block_out_are_refused():
    hashes = [np.array([1, 2], np.int64), np.array([1], np.int64), np.array([1, 3], np.int64)]
    weights = [np.array([2, 3]), np.array([1]), np.array([4, 1])]
    ids, pages, numbers, got_weights, sizes, total, own = _weighed_inputs(hashes, weights, [], 2, 200)
    assert ids.tolist() == [1, 2, 3]  # the defaults' bar at 2 pages: every block weighs
    with pytest.raises(ValueError, match="every page"):
        corpus_boilerplate_weighed(ids, pages + 1, numbers, got_weights, sizes, total, own, 2)
    with pytest.raises(ValueError, match="once each"):
        corpus_boilerplate_weighed(ids, pages, numbers[::-1].copy(), got_weights, sizes, total, own, 2)
