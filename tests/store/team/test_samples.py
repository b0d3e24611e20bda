"""Samples: reproducible, stored with their seed and rule, queryable for list and export."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.builders import new_project
from tests.store.team.conftest import clusters
from workbench.store import Project, ProjectError
from workbench.store.team import (
    draw_sample,
    get_sample,
    list_samples,
    reliability_clusters,
    sample_clusters,
    sample_membership,
)
from workbench.store.team.samples import plan

SIZES = [2] * 40 + [4] * 20 + [12] * 6 + [30] * 2 + [1] * 30


@pytest.fixture
def big(tmp_path: Path):
    with new_project(tmp_path, SIZES) as project:
        yield project


def test_same_seed_and_rule_same_clusters(big: Project, tmp_path: Path) -> None:
    first = draw_sample(big, n=20, seed=1, name="a")
    second = draw_sample(big, n=20, seed=1, name="b")
    other = draw_sample(big, n=20, seed=2, name="c")
    assert first.clusters == second.clusters != other.clusters
    assert len(first.clusters) == 20
    singles = {r.id for r in big.list_clusters(limit=1000) if r.size == 1}
    assert not singles & set(first.clusters)  # single pages only when asked
    # The same rule on another file of the same run draws the same clusters.
    (tmp_path / "again").mkdir()
    with new_project(tmp_path / "again", SIZES) as again:
        assert draw_sample(again, n=20, seed=1).clusters == first.clusters


def test_the_sample_is_stored_with_its_seed_and_rule(big: Project) -> None:
    drawn = draw_sample(big, share=0.1, seed=7, stratify_by="size", include_singles=True,
                        reliability=True)
    assert drawn.name == "Reliability sample 1"
    stored = get_sample(big.reader(), drawn.id)
    assert stored == drawn == get_sample(big.reader(), "Reliability sample 1")
    assert (stored.seed, stored.reliability) == (7, True)
    assert stored.rule["share"] == 0.1 and stored.rule["n"] == 10
    assert stored.rule["stratify_by"] == "size" and stored.rule["include_singles"] is True
    assert stored.rule["population"] == len(SIZES)
    # Proportional allocation by size: 40 pairs, 20 of 3-5, 8 of 6-20+..., 30 singles.
    assert sum(stored.rule["strata"].values()) == 10
    assert stored.rule["strata"]["2"] == 4 and stored.rule["strata"]["1"] == 3
    assert list_samples(big.reader()) == [drawn]
    assert reliability_clusters(big.reader()) == set(drawn.clusters)


def test_membership_for_the_list_filter_and_the_export(lead: Project) -> None:
    sample = draw_sample(lead, n=2, seed=5, name="pilot")
    assert sample_clusters(lead.reader(), sample.id) == list(sample.clusters)
    membership = sample_membership(lead.reader())
    assert set(membership) == set(sample.clusters)
    assert all(names == ["pilot"] for names in membership.values())
    # A sample cluster merged into another: the sample follows it.
    a = sample.clusters[0]
    b = next(c for c in clusters(lead) if c not in sample.clusters)
    lead.merge([a, b], into=b)
    assert b in sample_clusters(lead.reader(), sample.id)


def test_drawing_is_undoable(lead: Project) -> None:
    sample = draw_sample(lead, n=2, seed=5)
    assert lead.undo() is not None
    assert list_samples(lead.reader()) == []
    lead.redo()
    assert list_samples(lead.reader()) == [sample]


@pytest.mark.parametrize("kw, message", [
    ({"n": 99}, "Cannot draw 99 clusters: there are 4"),
    ({"n": 2, "share": 0.5}, "either a number"),
    ({"share": 1.5}, "at most 100 %"),
    ({"n": 2, "stratify_by": "colour"}, "stratified by size, site, month"),
])
def test_bad_rules_say_what_is_wrong(lead: Project, kw: dict, message: str) -> None:
    with pytest.raises(ProjectError, match=message):
        plan(lead.reader(), seed=1, stratify_by=kw.pop("stratify_by", None),
             include_singles=False, n=kw.get("n"), share=kw.get("share"))


def test_stratified_by_site_and_month(lead: Project) -> None:
    by_site = draw_sample(lead, n=4, seed=1, stratify_by="site", include_singles=True)
    assert set(by_site.rule["strata"]) <= {"dailycourier", "metroherald", "valleynews"}
    by_month = draw_sample(lead, n=2, seed=1, stratify_by="month")
    assert by_month.rule["strata"] == {"(no date)": 2}
