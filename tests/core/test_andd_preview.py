"""The preview of a re-run: which clusters would merge, which would split, which stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.clusters.andd_preview import preview_changes
from workbench.core.records import Cluster, PageInfo

PAGES = [PageInfo(key=f"site/p{i}.htm", source="", title=f"Story {i}") for i in range(10)]


def _indexes(parts) -> list[list[int]]:
    return [[p.index for p in part] for part in parts]


def test_merges_and_splits_name_their_pages():
    old = [[0, 1, 2], [3, 4], [5, 6, 7], [8, 9]]
    new = [Cluster(0, [0, 1, 2, 3, 4]), Cluster(5, [5, 6]), Cluster(8, [8, 9])]
    changes = preview_changes(PAGES, old, new)
    (merge,) = changes.merges
    assert merge.kind == "merge" and _indexes(merge.parts) == [[0, 1, 2], [3, 4]]
    assert merge.parts[0][0].key == "site/p0.htm" and merge.parts[0][0].title == "Story 0"
    assert merge.headline() == "Merge 2 clusters (5 pages): Story 0"
    (split,) = changes.splits
    assert _indexes(split.parts) == [[5, 6], [7]]
    assert split.headline() == "Split a cluster of 3 pages into 1 cluster and 1 single page: Story 5"
    assert changes.unchanged == 1  # [8, 9]
    assert changes.summary() == ("1 merge (pages of different clusters coming together) and "
                                 "1 split (a cluster falling apart); 1 cluster stays as it is.")


def test_single_pages_joining_is_a_merge_and_a_cluster_falling_apart_a_split():
    changes = preview_changes(PAGES, [[0, 1]], [[2, 3, 4]])
    assert [_indexes(c.parts) for c in changes.merges] == [[[2], [3], [4]]]
    assert changes.merges[0].headline() == "Merge 3 single pages (3 pages): Story 2"
    assert [_indexes(c.parts) for c in changes.splits] == [[[0], [1]]]
    assert changes.unchanged == 0 and not changes.empty


def test_the_same_clustering_changes_nothing():
    changes = preview_changes(PAGES, [[0, 1], [2, 3, 4]], [[4, 3, 2], [1, 0], [5]])
    assert changes.empty and changes.unchanged == 2
    assert changes.summary() == "Nothing would change."


def test_clusters_that_do_not_fit_the_pages_are_refused():
    with pytest.raises(ValueError, match="Page 12 of the new clusters"):
        preview_changes(PAGES, [], [[1, 12]])
    with pytest.raises(ValueError, match="Page 1 is in two of the current clusters"):
        preview_changes(PAGES, [[0, 1], [1, 2]], [])


partitions = st.lists(st.integers(0, 5), min_size=10, max_size=10)


def _groups(labels: list[int]) -> list[list[int]]:
    out: dict[int, list[int]] = {}
    for page, label in enumerate(labels):
        out.setdefault(label, []).append(page)
    return list(out.values())


@settings(max_examples=80, deadline=None)
@given(partitions, partitions)
def test_a_merge_one_way_is_a_split_the_other_way(old_labels, new_labels):
    old, new = _groups(old_labels), _groups(new_labels)
    forward, backward = preview_changes(PAGES, old, new), preview_changes(PAGES, new, old)
    merged = sorted(sorted(map(sorted, _indexes(c.parts))) for c in forward.merges)
    split_back = sorted(sorted(map(sorted, _indexes(c.parts))) for c in backward.splits)
    assert merged == split_back
    assert forward.unchanged == backward.unchanged
    # Every merge brings together pages that were apart; every split's parts were together.
    for change in forward.merges:
        firsts = [part[0].index for part in change.parts]
        assert len({old_labels[i] for i in firsts}) == len(firsts)
    for change in forward.splits:
        pages = [p.index for part in change.parts for p in part]
        assert len({old_labels[i] for i in pages}) == 1
