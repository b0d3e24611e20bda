"""The calibration presenter: counts for another τ, checked against a brute-force recount."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.clusters.calibration import (
    Calibration,
    Change,
    PairGraph,
    cluster_at,
    clustering_options,
    compare,
    labels_at,
    labels_of,
    run_floor,
    snap,
    weak_joins_note,
)
from workbench.core.clusters.clustering import METHODS, cluster_pairs


@st.composite
def graphs(draw, max_pages: int = 14):
    """A random near-duplicate graph: n pages, distinct pairs with two-decimal similarities."""
    n = draw(st.integers(2, max_pages))
    possible = [(a, b) for a in range(n) for b in range(a + 1, n)]
    chosen = draw(st.lists(st.sampled_from(possible), unique=True, max_size=min(30, len(possible))))
    sims = draw(st.lists(st.integers(10, 100), min_size=len(chosen), max_size=len(chosen)))
    a = [x for x, _ in chosen]
    b = [y for _, y in chosen]
    return n, a, b, [s / 100 for s in sims]


def brute_change(n: int, current: list[set[int]], new: list[set[int]]) -> Change:
    """The definitions of the counts, with sets and nothing clever."""
    current = [g for g in current if len(g) >= 2]
    new = [g for g in new if len(g) >= 2]
    where_new = {p: i for i, g in enumerate(new) for p in g}
    split = sum(1 for g in current
                if len({where_new.get(p, ("alone", p)) for p in g}) > 1)
    merging = [g for g in new if sum(1 for c in current if c & g) >= 2]
    merged = sum(1 for c in current if any(c & g for g in merging))
    in_cur = set().union(*current) if current else set()
    in_new = set().union(*new) if new else set()
    return Change(clusters=len(new), pages=len(in_new), split=split, merged=merged,
                  merges=len(merging), joined=len(in_new - in_cur), left=len(in_cur - in_new))


options = st.fixed_dictionaries({}, optional={"corroborate_below": st.sampled_from([0.0, 0.3, 0.5]),
                                              "weak_join": st.sampled_from([0.0, 0.15, 0.25]),
                                              "hub_split": st.sampled_from([0.0, 0.5, 0.67])})


def run_clusters(method, n, a, b, s, tau, opts):
    """What the pipeline does: every pair down to the floor, with tau and the run's options."""
    return cluster_pairs(method, n, a, b, s, tau=tau, **opts)


@settings(max_examples=300, deadline=None)
@given(graphs(), st.sampled_from(sorted(METHODS)), st.integers(10, 100), st.integers(10, 100), options)
def test_counts_equal_a_brute_force_recount(graph, method, run_tau100, new_tau100, opts):
    n, a, b, s = graph
    run_tau, new_tau = run_tau100 / 100, new_tau100 / 100
    floor = 0.10
    g = PairGraph.build(n, a, b, s)
    # The coder's current clustering: the run's own, at its τ.
    current = run_clusters(method, n, a, b, s, run_tau, opts)
    cal = Calibration(g, labels_of(n, [c.members for c in current]), method=method,
                      run_tau=run_tau, floor=floor, options=opts)
    counts = cal.counts(new_tau)
    expected = run_clusters(method, n, a, b, s, new_tau, opts)
    assert counts.tau == new_tau
    assert counts.pairs == sum(1 for x in s if x >= new_tau)
    assert counts.change == brute_change(n, [set(c.members) for c in current],
                                         [set(c.members) for c in expected])
    # At the run's own τ nothing changes.
    assert cal.counts(run_tau).change.split == cal.counts(run_tau).change.merges == 0


@settings(max_examples=300, deadline=None)
@given(graphs(), st.sampled_from(sorted(METHODS)), st.integers(10, 100), options)
def test_clustering_only_the_paired_pages_changes_nothing(graph, method, tau100, opts):
    """cluster_at renumbers the pages that have a pair; the result must be exactly what
    clustering every page of the run gives, similarities and references included."""
    n, a, b, s = graph
    tau = tau100 / 100
    g = PairGraph.build(n, a, b, s)
    direct = run_clusters(method, n, g.a.tolist(), g.b.tolist(), g.similarity.tolist(), tau, opts)
    assert cluster_at(g, method, tau, opts) == direct
    assert (labels_at(g, method, tau, opts) == labels_of(n, [c.members for c in direct])).all()


@settings(max_examples=300, deadline=None)
@given(graphs(), st.integers(10, 100), st.sampled_from([0.15, 0.25]), st.integers(0, 3),
       st.integers(1, 3))
def test_weak_joins_are_checked_with_the_runs_page_numbers(graph, tau100, weak, modulus, unpaired):
    """The view numbers only the paired pages; the check must still be asked about the
    run's pages. Here it refuses a join whenever the joining side holds a page whose run
    index is a multiple of ``modulus + 2``: a wrong numbering changes its answers. The
    run's first pages have no pair, so the two numberings differ."""
    n, a, b, s = graph
    n, a, b = n + unpaired, [x + unpaired for x in a], [y + unpaired for y in b]
    tau = tau100 / 100
    g = PairGraph.build(n, a, b, s)
    asked: list[list[int]] = []

    def vouch(side, other):
        side = [int(x) for x in side]
        asked.append(side)
        return all(x % (modulus + 2) for x in side)

    opts = {"weak_join": weak}
    direct = cluster_pairs("star", n, g.a.tolist(), g.b.tolist(), g.similarity.tolist(), tau=tau,
                           vouch=vouch, **opts)
    from_direct, asked[:] = list(asked), []
    assert cluster_at(g, "star", tau, opts, vouch) == direct
    assert asked == from_direct
    assert (labels_at(g, "star", tau, opts, vouch) == labels_of(n, [c.members for c in direct])).all()


def test_clustering_options_read_from_the_run():
    assert clustering_options({"tau": 0.3}) == {}
    assert clustering_options({"tau": 0.3, "corroborate_below": 0.3, "weak_join": None}) == {
        "corroborate_below": 0.3}
    # Weak joins checked against the pages' text cannot be repeated from pairs alone: they
    # are left out, and the calibration view says so. Unchecked ones (older runs) are kept.
    checked = {"tau": 0.4, "pair_floor": 0.15, "weak_join": 0.15, "weak_join_own_text": 0.4}
    assert clustering_options(checked) == {}
    assert "rewritten copies" in weak_joins_note(checked)
    # ...unless the run kept its signatures, so that the check can be made again.
    assert clustering_options(checked, checkable=True) == {"weak_join": 0.15}
    assert weak_joins_note(checked, checkable=True) == ""
    unchecked = {"tau": 0.4, "weak_join": 0.15}
    assert clustering_options(unchecked) == {"weak_join": 0.15}
    assert clustering_options({**unchecked, "weak_join_own_text": 0.0}) == {"weak_join": 0.15}
    assert weak_joins_note(unchecked) == ""
    assert weak_joins_note({**checked, "weak_join": 0.0}) == ""
    # Hub splits need the pairs only: always repeated; a run from before them had none.
    assert clustering_options({"tau": 0.4, "hub_split": 0.5}) == {"hub_split": 0.5}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1, 4), min_size=1, max_size=25),
       st.lists(st.integers(-1, 4), min_size=1, max_size=25))
def test_compare_on_arbitrary_labellings(cur, new):
    size = min(len(cur), len(new))
    cur, new = cur[:size], new[:size]

    def groups(labels):
        out: dict[int, set[int]] = {}
        for i, x in enumerate(labels):
            if x >= 0:
                out.setdefault(x, set()).add(i)
        return [g for g in out.values() if len(g) >= 2]

    cur_groups, new_groups = groups(cur), groups(new)
    got = compare(labels_of(size, [sorted(g) for g in cur_groups]),
                  labels_of(size, [sorted(g) for g in new_groups]))
    assert got == brute_change(size, cur_groups, new_groups)


def test_two_stories_merge_below_and_split_above():
    # Story A: 0-2 (0.9 among them); story B: 3-4 (0.8); a 0.35 link joins 2 and 3;
    # page 5 is alone.
    a, b, s = [0, 0, 1, 3, 2], [1, 2, 2, 4, 3], [0.9, 0.9, 0.9, 0.8, 0.35]
    g = PairGraph.build(6, a, b, s)
    current = labels_of(6, [[0, 1, 2], [3, 4]])
    cal = Calibration(g, current, method="components", run_tau=0.5, floor=0.3)
    low = cal.counts(0.3)
    assert low.change == Change(clusters=1, pages=5, split=0, merged=2, merges=1, joined=0, left=0)
    assert cal.describe(low) == "τ 0.30: 1 cluster, 5 pages — 2 clusters would merge into 1"
    high = cal.counts(0.85)
    assert high.change == Change(clusters=1, pages=3, split=1, merged=0, merges=0, joined=0, left=2)
    assert cal.describe(high) == "τ 0.85: 1 cluster, 3 pages — 1 cluster would split"
    assert cal.detail(high) == "3 pairs ≥ τ · 2 pages would be left alone"
    same = cal.counts(0.5)
    assert cal.describe(same) == "τ 0.50: 2 clusters, 5 pages — no cluster would split or merge"
    assert cal.detail(same) == "4 pairs ≥ τ"


def test_describe_split_and_merge_together():
    cal = Calibration(PairGraph.build(2, [], [], []), np.full(2, -1), method="star",
                      run_tau=0.4, floor=0.4)
    from workbench.core.clusters.calibration import Counts
    counts = Counts(0.2, 10, Change(clusters=38, pages=412, split=3, merged=2, merges=1, joined=0,
                                    left=0))
    assert cal.describe(counts) == (
        "τ 0.20: 38 clusters, 412 pages — 3 clusters would split, 2 would merge into 1")


def test_range_floor_and_grid():
    g = PairGraph.build(3, [0, 1], [1, 2], [0.155, 0.5])
    cal = Calibration(g, np.full(3, -1), method="star", run_tau=0.3, floor=0.155)
    assert cal.low == 0.16  # the floor rounded up onto the grid: 0.15 is not answerable
    assert cal.clamp(0.01) == 0.16 and cal.clamp(1.7) == 1.0 and cal.clamp(0.444) == 0.44
    grid = cal.grid()
    assert grid[0] == 0.3 and sorted(grid) == [round(0.16 + i / 100, 2) for i in range(85)]
    assert cal.estimate(0.2).pairs == 1 and cal.estimate(0.16).pairs == 1
    assert cal.cached(0.5) is None
    cal.counts(0.5)
    assert cal.cached(0.5) is not None and cal.cached(0.5004) is not None


def test_floor_never_above_run_tau():
    cal = Calibration(PairGraph.build(2, [0], [1], [0.5]), np.full(2, -1), method="star",
                      run_tau=0.4, floor=0.6)
    assert cal.floor == 0.4 and cal.low == 0.4


def test_histogram_counts_every_pair_once():
    sims = [0.2, 0.2, 0.21, 0.39, 0.4, 0.999, 1.0, 1.0]
    g = PairGraph.build(9, list(range(8)), list(range(1, 9)), sims)
    cal = Calibration(g, np.full(9, -1), method="star", run_tau=0.5, floor=0.2)
    h = cal.histogram(0.1)
    assert h.start == pytest.approx(0.2) and len(h.counts) == 8 and sum(h.counts) == len(sims)
    # [0.2, 0.3): 0.2, 0.2, 0.21; [0.3, 0.4): 0.39; [0.4, 0.5): 0.4; the last bin holds 1.0.
    assert h.counts == (3, 1, 1, 0, 0, 0, 0, 3)
    assert h.edges()[0] == pytest.approx(0.2) and h.edges()[-1] == pytest.approx(1.0)


def test_run_floor_reads_old_and_new_params():
    assert run_floor({"tau": 0.44}) == 0.44
    assert run_floor({"tau": 0.44, "pair_floor": 0.2}) == 0.2
    assert run_floor({"tau": 0.3, "pair_floor": 0.5}) == 0.3
    assert run_floor({"tau": 0.3, "pair_floor": None}) == 0.3
    assert snap(0.4449) == 0.44 and snap(0.445001) == 0.45


def test_graph_rejects_bad_pairs():
    with pytest.raises(ValueError):
        PairGraph.build(3, [0], [3], [0.5])
    with pytest.raises(ValueError):
        PairGraph.build(3, [1], [1], [0.5])
    with pytest.raises(ValueError):
        Calibration(PairGraph.build(3, [], [], []), np.full(2, -1), method="star", run_tau=0.3, floor=0.3)


def test_a_run_without_pairs():
    cal = Calibration(PairGraph.build(3, [], [], []), np.full(3, -1), method="star", run_tau=0.3,
                      floor=0.3)
    counts = cal.counts(0.5)
    assert counts.pairs == 0 and counts.change == Change(0, 0, 0, 0, 0, 0, 0)
    assert cal.histogram().counts == (0,) * 35 and cal.clusters(0.5) == []
