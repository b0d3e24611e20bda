"""The related ranking (workbench.core.related) and the pane's rows (its presenter)."""

from __future__ import annotations

from tests.related.builders import cluster_of_key, key, related_project
from workbench.core.related import related_clusters
from workbench.gui.related.presenter import related_rows, title_text

CLUSTERS = {0: 10, 1: 10, 2: 10, 3: 20, 4: 20, 5: 30, 6: 40}


def test_ranked_by_closest_pair_then_by_links():
    pairs = [(0, 3, 0.30), (1, 4, 0.20), (2, 5, 0.30), (2, 6, 0.35), (0, 1, 0.9)]
    found = related_clusters([0, 1, 2], pairs, CLUSTERS, tau=0.4, floor=0.15)
    # 40 has the closest pair; 20 and 30 tie at 0.30, and 20 has two links.
    assert [r.cluster for r in found] == [40, 20, 30]
    assert [(k.here, k.there) for k in found[1].links] == [(0, 3), (1, 4)]
    assert found[1].best.similarity == 0.30


def test_only_pairs_between_floor_and_tau_across_clusters():
    pairs = [(0, 3, 0.45), (0, 5, 0.10), (0, 6, 0.15), (0, 1, 0.2)]
    found = related_clusters([0, 1, 2], pairs, CLUSTERS, tau=0.4, floor=0.15)
    # >= tau: clustered or kept apart by the coder; < floor: never stored; 0-1: one cluster.
    assert [r.cluster for r in found] == [40]


def test_dismissed_links_are_not_offered_but_new_links_are():
    pairs = [(0, 3, 0.30), (1, 4, 0.20)]
    gone = related_clusters([0, 1], pairs, CLUSTERS, tau=0.4, floor=0.15,
                            dismissed=[(0, 3), (1, 4)])
    assert gone == []
    anew = related_clusters([0, 1], pairs, CLUSTERS, tau=0.4, floor=0.15, dismissed=[(0, 3)])
    assert [(r.cluster, r.similarity) for r in anew] == [(20, 0.20)]


def test_links_within_one_site_are_not_offered():
    pairs = [(0, 3, 0.35), (1, 4, 0.20), (2, 5, 0.30)]
    sites = {0: "a.example", 1: "b.example", 2: "", 3: "a.example", 4: "c.example", 5: ""}
    found = related_clusters([0, 1, 2], pairs, CLUSTERS, tau=0.4, floor=0.15,
                             site_of=sites.__getitem__)
    # 0-3: one site (its template); 2-5: sites unknown, so offered.
    assert [(r.cluster, r.similarity) for r in found] == [(30, 0.30), (20, 0.20)]


def test_project_rows_rank_and_say_why(tmp_path):
    with related_project(tmp_path / "p.wbproj") as project:
        a = cluster_of_key(project, key(0))
        rows = related_rows(project, a)
        assert [r.cluster_id for r in rows] == [cluster_of_key(project, key(3)),
                                                cluster_of_key(project, key(5))]
        first = rows[0]
        assert first.page_id == project.page_id(key(3)) and first.size == 2
        assert first.lines()[0] == "0.30" and first.lines()[1].startswith("Story 3")
        assert first.line().startswith("0.30 · Story 3")
        assert "2 pairs tie" in first.why() and "Ranked by the closest pair" in first.why()
        assert title_text(rows) == "Related, not merged (2)"
        # From the other side: B's related is A, through its closest pair.
        b_rows = related_rows(project, cluster_of_key(project, key(3)))
        assert [(r.cluster_id, r.page_id) for r in b_rows] == [(a, project.page_id(key(2)))]
        assert related_rows(project, a, shown=1) == rows[:1]
