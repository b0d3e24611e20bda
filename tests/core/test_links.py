"""The near-duplicate graph as arrays (workbench.core.clusters.links): each page's links
read back as a dictionary filled pair by pair would hold them, and little memory a pair."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from workbench.core.clusters.clustering import cluster_pairs
from workbench.core.clusters.links import Links


def filled_pair_by_pair(n, a, b, sim):
    rows: list[dict[int, float]] = [{} for _ in range(n)]
    for x, y, s in zip(a, b, sim, strict=True):
        rows[x][y] = s
        rows[y][x] = s
    return rows


@pytest.mark.parametrize("seed", range(5))
def test_rows_are_what_filling_dictionaries_pair_by_pair_gives(seed):
    rng = np.random.default_rng(seed)
    n, m = 40, 200
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)  # repeats and self-pairs included
    sim = rng.random(m)
    links = Links.of_pairs(n, a.tolist(), b.tolist(), sim.tolist())
    want = filled_pair_by_pair(n, a.tolist(), b.tolist(), sim.tolist())
    for x in range(n):
        # Order too: the greedy pass takes a page's free neighbours in this order.
        assert list(links[x].items()) == list(want[x].items())
        assert links.neighbours(x) == list(want[x])
    assert links.degrees().tolist() == [len(d) for d in want]


@pytest.mark.parametrize("seed", range(5))
def test_sums_are_pythons_sum_to_the_last_bit(seed):
    rng = np.random.default_rng(seed)
    n, m = 30, 400
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    # Values of very different sizes, where the order and compensation of a sum show.
    sim = rng.random(m) * 10.0 ** rng.integers(-8, 8, m)
    links = Links.of_pairs(n, a, b, sim)
    want = filled_pair_by_pair(n, a.tolist(), b.tolist(), sim.tolist())
    assert links.sums().tolist() == [sum(d.values()) for d in want]


def test_links_below_a_threshold_leave_and_rows_stay_in_order():
    links = Links.of_pairs(5, [0, 0, 0, 3], [1, 2, 3, 4], [0.3, 0.9, 0.6, 0.1])
    strong = links.at_least(0.5)
    assert [strong[x] for x in range(5)] == [{2: 0.9, 3: 0.6}, {}, {0: 0.9}, {0: 0.6}, {}]
    assert strong.degrees().tolist() == [2, 0, 1, 1, 0]


def test_a_row_read_is_the_callers_to_change():
    links = Links.of_pairs(2, [0], [1], [0.5])
    links[0][1] = 0.0
    assert links[0] == {1: 0.5}


def test_a_pair_outside_the_pages_is_refused():
    with pytest.raises(ValueError, match="outside"):
        Links.of_pairs(3, [0], [3], [0.5])
    with pytest.raises(ValueError, match="length"):
        Links.of_pairs(3, [0, 1], [2], [0.5])


def test_star_clustering_holds_little_a_pair_at_once():
    # 20,000 pages in stories of 2-8 copies, each page also linked weakly to a few
    # others: 61,000 pairs. As a dictionary a page (every link twice, with its float and
    # int objects) this took about 340 bytes a pair at the peak; as arrays about 100.
    rng = np.random.default_rng(7)
    n = 20_000
    a, b = [], []
    start = 0
    while start < n - 8:
        size = int(rng.integers(2, 9))
        for i in range(start, start + size):
            for j in range(i + 1, start + size):
                a.append(i)
                b.append(j)
        start += size
    strong = len(a)
    for _ in range(n):
        x, y = sorted(rng.choice(n, 2, replace=False).tolist())
        a.append(x)
        b.append(y)
    sim = np.concatenate([rng.uniform(0.5, 1.0, strong), rng.uniform(0.1, 0.3, len(a) - strong)])
    xs, ys = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    tracemalloc.start()
    clusters = cluster_pairs("star", n, xs, ys, sim, 0.0, 0.4, 0.1, None, 0.5)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(clusters) > 1_000
    assert peak / len(a) < 150, f"{peak / len(a):.0f} bytes a pair"
