from __future__ import annotations

import numpy as np
import pytest

from workbench.core.clusters.clustering import METHODS, cluster_pairs
from workbench.core.clusters.evaluation import pairs_of_groups, score_pairs
from workbench.core.clusters.unionfind import UnionFind

# Two stories, 0-3 and 4-7, each a clique; one weak link 3-4 (a page that shares a
# paragraph with the other story) chains them.
STORY_A = [(a, b, 0.9) for a in range(4) for b in range(a + 1, 4)]
STORY_B = [(a, b, 0.8) for a in range(4, 8) for b in range(a + 1, 8)]
CHAINED = STORY_A + STORY_B + [(3, 4, 0.3)]


def run(method, pairs, n=9):
    a, b, s = zip(*pairs, strict=True) if pairs else ((), (), ())
    return cluster_pairs(method, n, a, b, s)


def test_components_chain_two_stories_through_one_weak_link():
    clusters = run("components", CHAINED)
    assert [sorted(c.members) for c in clusters] == [list(range(8))]


def test_star_resists_the_chain():
    clusters = run("star", CHAINED)
    # The bridge page 3 has most links, so it is a reference and page 4 (>= tau to it)
    # may join it; but the two stories are never merged, and every member of every
    # cluster is >= tau to its reference or to most of its cluster.
    assert len(clusters) == 2
    assert {5, 6, 7} <= set(clusters[1].members) or {5, 6, 7} <= set(clusters[0].members)
    linked = {(a, b) for a, b, _ in CHAINED} | {(b, a) for a, b, _ in CHAINED}
    for c in clusters:
        for m in c.members[1:]:
            assert (c.reference, m) in linked


@pytest.mark.parametrize("method", sorted(METHODS))
def test_reference_first_with_similarities(method):
    for c in run(method, CHAINED):
        assert c.members[0] == c.reference
        assert c.similarities[0] == 1.0
        assert len(c.similarities) == len(c.members)
        assert len(set(c.members)) == len(c.members)


def test_star_leftover_joins_only_by_majority():
    # Hub 0 takes 1..4. Page 5 is linked to 1, 2 and 3 (3 of 5 members: a majority),
    # page 6 only to 4 (1 of 5): it stays out.
    hub = [(0, k, 0.9) for k in (1, 2, 3, 4)]
    extra = [(5, 1, 0.5), (5, 2, 0.5), (5, 3, 0.5), (6, 4, 0.5)]
    clusters = run("star", hub + extra, n=8)
    assert clusters[0].reference == 0
    assert sorted(clusters[0].members) == [0, 1, 2, 3, 4, 5]
    assert len(clusters) == 1


def test_no_pairs_no_clusters_and_unknown_method():
    assert run("star", []) == []
    with pytest.raises(ValueError, match="unknown cluster method"):
        cluster_pairs("nope", 2, [0], [1], [0.5])


def test_union_find_groups():
    uf = UnionFind(5)
    uf.union(0, 1)
    uf.union(3, 4)
    uf.union(1, 0)
    assert sorted(uf.groups()) == [[0, 1], [3, 4]]


def test_pair_scores():
    truth = pairs_of_groups([["a", "b", "c"], ["d", "e"]])
    s = score_pairs([("b", "a"), ("a", "d")], truth)
    assert (s.correct_pairs, s.predicted_pairs, s.true_pairs) == (1, 2, 4)
    assert s.precision == 0.5 and s.recall == 0.25
    assert s.f1 == pytest.approx(2 * 0.5 * 0.25 / 0.75)
    assert score_pairs([], truth).precision == 1.0


def test_a_lone_weak_link_is_no_cluster_but_a_corroborated_one_is():
    lone = [(0, 1, 0.22)]  # two rewrites of one event, nothing else
    assert cluster_pairs("star", 2, *zip(*lone, strict=True), corroborate_below=0.3) == []
    assert len(cluster_pairs("star", 2, *zip(*lone, strict=True))) == 1
    # Page 3 is weak to the reference 0 but linked to member 1 as well: it stays.
    group = [(0, 1, 0.8), (0, 2, 0.7), (1, 2, 0.75), (0, 3, 0.22), (1, 3, 0.4)]
    clusters = cluster_pairs("star", 4, *zip(*group, strict=True), corroborate_below=0.3)
    assert [sorted(c.members) for c in clusters] == [[0, 1, 2, 3]]
    # Without the link from 1 it is dropped, and the rest stays a cluster.
    weak = [p for p in group if p[:2] != (1, 3)]
    clusters = cluster_pairs("star", 4, *zip(*weak, strict=True), corroborate_below=0.3)
    assert [sorted(c.members) for c in clusters] == [[0, 1, 2]]


def test_weak_join_takes_a_page_the_whole_cluster_vouches_for_and_no_lone_one():
    # Cluster 0-2 at >= tau; page 3 is only 0.2 similar, but to all three members.
    pairs = [(0, 1, 0.8), (0, 2, 0.7), (1, 2, 0.6), (0, 3, 0.2), (1, 3, 0.2), (2, 3, 0.2)]
    got = cluster_pairs("star", 6, *zip(*pairs, strict=True), tau=0.35, weak_join=0.15)
    assert [sorted(c.members) for c in got] == [[0, 1, 2, 3]]
    assert got[0].similarities[-1] == 0.2  # the weak member shows its true similarity
    # Linked to one member only: stays out. A pair of pages never takes weak members.
    one = pairs[:3] + [(0, 3, 0.2)] + [(4, 5, 0.9), (4, 3, 0.2)]
    got = cluster_pairs("star", 6, *zip(*one, strict=True), tau=0.35, weak_join=0.15)
    assert sorted(sorted(c.members) for c in got) == [[0, 1, 2], [4, 5]]
    # Off: tau alone decides.
    got = cluster_pairs("star", 6, *zip(*pairs, strict=True), tau=0.35)
    assert [sorted(c.members) for c in got] == [[0, 1, 2]]


def test_two_clusters_of_one_story_merge_when_most_cross_pairs_are_weakly_similar():
    story = [(a, b, 0.5) for a in range(3) for b in range(a + 1, 3)]
    story += [(a, b, 0.5) for a in range(3, 6) for b in range(a + 1, 6)]
    cross = [(a, b, 0.2) for a in range(3) for b in range(3, 6)]
    got = cluster_pairs("star", 6, *zip(*(story + cross), strict=True), tau=0.35, weak_join=0.15)
    assert [sorted(c.members) for c in got] == [list(range(6))]
    # Only a few cross links (4 of 9): two stories stay two clusters.
    got = cluster_pairs("star", 6, *zip(*(story + cross[:4]), strict=True), tau=0.35, weak_join=0.15)
    assert sorted(sorted(c.members) for c in got) == [[0, 1, 2], [3, 4, 5]]


def test_links_at_a_threshold_every_pair_reaches_are_not_copied():
    from workbench.core.clusters.links import Links

    adj = Links.of_pairs(4, [0, 1, 2], [1, 2, 3], np.array([0.2, 0.5, 0.9]))
    assert adj.at_least(0.15) is adj  # weak joins at the pair floor share the links
    strong = adj.at_least(0.5)
    assert strong is not adj
    assert [strong[x] for x in range(4)] == [{}, {2: 0.5}, {1: 0.5, 3: 0.9}, {2: 0.9}]
    assert adj[0] == {1: 0.2}  # the whole graph is left as it was


# A hub: page 0 holds a whole story; 1-3 are copies of one splice that quotes it, 4-5
# copies of another, 6-8 single pages that quote it. Each is >= tau to page 0, the
# splices' copies to each other, nothing else: page 0 has the most links, so the greedy
# pass makes it the reference of all of them.
HUB = ([(0, k, 0.45) for k in range(1, 9)]
       + [(1, 2, 0.95), (1, 3, 0.95), (2, 3, 0.95), (4, 5, 0.9)])


def test_star_without_hub_split_keeps_the_hub():
    clusters = run("star", HUB)
    assert [sorted(c.members) for c in clusters] == [list(range(9))]


def test_hub_split_keeps_copies_and_releases_quoting_pages():
    a, b, s = zip(*HUB, strict=True)
    clusters = cluster_pairs("star", 9, a, b, s, tau=0.4, hub_split=0.5)
    # The members fall apart into {1,2,3}, {4,5}, 6, 7, 8: the largest holds 3 of 8 (less
    # than half), so the reference keeps the largest, {4,5} is a cluster of its own and
    # the pages linked to the reference alone leave.
    assert sorted(sorted(c.members) for c in clusters) == [[0, 1, 2, 3], [4, 5]]
    assert clusters[0].reference == 0


def test_hub_split_leaves_copies_that_link_to_each_other():
    # Copies 1-5 of one story link to each other; 6 is linked to the reference alone.
    # The largest group holds 5 of 6 members: not a hub, nothing is split.
    copies = [(x, y, 0.8) for x in range(6) for y in range(x + 1, 6)]
    a, b, s = zip(*copies, (0, 6, 0.5), strict=True)
    clusters = cluster_pairs("star", 7, a, b, s, tau=0.4, hub_split=0.5)
    assert [sorted(c.members) for c in clusters] == [list(range(7))]


def test_hub_split_never_splits_a_cluster_of_three():
    # The reference and two members not linked to each other: nothing tells the copy.
    a, b, s = zip((0, 1, 0.6), (0, 2, 0.5), strict=True)
    clusters = cluster_pairs("star", 3, a, b, s, tau=0.4, hub_split=1.0)
    assert [sorted(c.members) for c in clusters] == [[0, 1, 2]]


def test_hub_split_groups_keep_the_star_rule():
    # Reference 0 links to 1-13. Members 1-5 link to each other, 6-9 form a chain
    # 6-7-8-9, 10-13 link to nothing else. The largest group holds 5 of 13 members: a hub.
    # The reference keeps 1-5; the chain becomes a cluster around 7 (7 and 8 tie as most
    # similar to the rest: lowest page); 9 is neither >= tau to 7 nor to more than half
    # of the chain, so it leaves, as 10-13 do.
    clique = [(x, y, 0.9) for x in range(1, 6) for y in range(x + 1, 6)]
    pairs = [(0, k, 0.45) for k in range(1, 14)] + clique + [(6, 7, 0.9), (7, 8, 0.9), (8, 9, 0.9)]
    a, b, s = zip(*pairs, strict=True)
    clusters = cluster_pairs("star", 14, a, b, s, tau=0.4, hub_split=0.5)
    assert [(c.reference, sorted(c.members)) for c in clusters] == [(0, [0, 1, 2, 3, 4, 5]), (7, [6, 7, 8])]



def test_hub_split_leaves_the_storys_copies_out_of_the_grouping():
    # The hub above, and page 9: a copy of the story (0.95 to page 0) that, as page 0
    # does, links to every quoting page. Through it all members are one group, yet
    # without it they fall apart as before: the reference keeps its copy and the
    # largest group, {4,5} is a cluster of its own, the single quoting pages leave.
    copy = [(0, 9, 0.95)] + [(9, k, 0.45) for k in range(1, 9)]
    a, b, s = zip(*HUB, *copy, strict=True)
    clusters = cluster_pairs("star", 10, a, b, s, tau=0.4, hub_split=0.5)
    assert sorted(sorted(c.members) for c in clusters) == [[0, 1, 2, 3, 9], [4, 5]]
    assert clusters[0].reference == 0


def test_hub_split_keeps_families_of_copies_that_copies_bridge():
    # One story: near-exact copies 1-2 of reference 0 link to two families of rewrites,
    # 3-6 and 7-9, that do not link to each other. Left out with the copies, the
    # families are not a hub's quoting pages: each rewrite links to more than half of
    # the cluster (and the larger family holds more than half of the rest).
    copies = [(0, 1, 0.9), (0, 2, 0.9), (1, 2, 0.9)]
    families = [(x, y, 0.7) for f in (range(3, 7), range(7, 10)) for x in f for y in f if x < y]
    bridges = [(c, k, 0.55) for c in (0, 1, 2) for k in range(3, 10)]
    a, b, s = zip(*copies, *families, *bridges, strict=True)
    clusters = cluster_pairs("star", 10, a, b, s, tau=0.4, hub_split=0.5)
    assert [sorted(c.members) for c in clusters] == [list(range(10))]


def test_hub_split_keeps_rewrites_that_no_near_exact_copy_bridges():
    # Three families of rewrites (3-4, 5-6, 7-8) of story 0, bridged by rewrites 1-2 that
    # are similar to the story (0.7) but no near-exact copies of it: one story, not split.
    bridges = [(0, 1, 0.7), (0, 2, 0.7), (1, 2, 0.7)] + [(c, k, 0.5) for c in (0, 1, 2) for k in range(3, 9)]
    families = [(3, 4, 0.8), (5, 6, 0.8), (7, 8, 0.8)]
    a, b, s = zip(*bridges, *families, strict=True)
    clusters = cluster_pairs("star", 9, a, b, s, tau=0.4, hub_split=0.5)
    assert [sorted(c.members) for c in clusters] == [list(range(9))]


def test_hub_split_keeps_a_few_rewrites_that_only_copies_bridge():
    # Story 0 with near-exact copies 1-5, and rewrites 6-8 that each link to the story and
    # one copy, not to each other. Without the copies they fall apart, but they are 3 of
    # 8 members: a story's copies with a few rewrites, not a hub of quoting pages.
    copies = [(x, y, 0.9) for x in range(6) for y in range(x + 1, 6)]
    rewrites = [(0, 6, 0.5), (1, 6, 0.5), (0, 7, 0.5), (2, 7, 0.5), (0, 8, 0.5), (3, 8, 0.5)]
    a, b, s = zip(*copies, *rewrites, strict=True)
    clusters = cluster_pairs("star", 9, a, b, s, tau=0.4, hub_split=0.5)
    assert [sorted(c.members) for c in clusters] == [list(range(9))]


def test_hub_split_keeps_rewrites_that_most_members_link_to():
    # Story 0 with near-exact copies 1-3; rewrites 4-7 each link to the story and all
    # three copies (4 of the 7 other members), not to each other. Left out with the
    # copies, as members the cluster vouches for, they keep the cluster whole.
    copies = [(x, y, 0.9) for x in range(4) for y in range(x + 1, 4)]
    rewrites = [(c, k, 0.5) for c in range(4) for k in range(4, 8)]
    a, b, s = zip(*copies, *rewrites, strict=True)
    clusters = cluster_pairs("star", 8, a, b, s, tau=0.4, hub_split=0.5)
    assert [sorted(c.members) for c in clusters] == [list(range(8))]
