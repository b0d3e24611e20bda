"""The review queue's and the hand-out's logic without a window (no Qt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.team.conftest import demo_file, lead, out_dir, tag  # noqa: F401 - fixtures
from workbench.gui.coding.review_presenter import keep_final, review_rows, take_coder
from workbench.gui.project.team_text import bring_in_all, copy_banner
from workbench.store import Project, ProjectError
from workbench.store.team import copy_of, draw_sample, hand_out


@pytest.fixture
def two_coders(lead: Project, out_dir: Path):  # noqa: F811 - the fixtures above
    sample = draw_sample(lead, n=2, seed=9, reliability=True)
    a, b = sample.clusters
    ann, bob = hand_out(lead, ["ann", "bob"], out_dir)
    with Project.open(ann, backups=0) as copy:
        assert copy_banner(copy_of(copy)) == "ann's copy"
        copy.tag_clusters([a, b], [tag(copy, "unions")])
        copy.add_memo(b, "ann: strike story")
    with Project.open(bob, backups=0) as copy:
        copy.tag_clusters([a], [tag(copy, "unions")])
        copy.tag_clusters([b], [tag(copy, "feminism")])
        copy.set_excluded(b, [copy.members(b)[-1].page_id], True)
    outcome = bring_in_all(lead, [ann, bob, out_dir / "missing.wbproj"])
    assert [r.coder for r in outcome.reports] == ["ann", "bob"]
    assert [p.name for p, _ in outcome.refused] == ["missing.wbproj"]
    return lead, sample.id, b


def test_rows_put_coders_side_by_side_in_name_order(two_coders) -> None:
    project, sample_id, b = two_coders
    [row] = review_rows(project, sample_id)
    assert row.cluster_id == b and not row.settled
    ann, bob = row.sides
    assert (ann.coder, ann.tags, ann.memos, ann.excluded) == ("ann", ("unions",),
                                                              ("ann: strike story",), ())
    assert (bob.coder, bob.tags) == ("bob", ("feminism",))
    last = project.members(b)[-1]
    assert bob.excluded == (f"{last.site}: {last.title}",)
    assert "1. ann: unions  |  2. bob: feminism" in row.line()


def test_take_a_coder_then_keep_the_final_codes(two_coders) -> None:
    project, sample_id, b = two_coders
    [row] = review_rows(project, sample_id)
    assert "bob's codes" in take_coder(project, row, 2)
    assert [t.name for t in project.cluster(b).tags] == ["feminism"]
    [row] = review_rows(project, sample_id)
    assert row.settled and row.final == ("feminism",)
    with pytest.raises(ProjectError, match="no coder 3"):
        take_coder(project, row, 3)
    project.tag_clusters([b], [tag(project, "unions")])
    said = keep_final(project, row)
    assert "feminism" in said and "unions" in said
    assert sorted(t.name for t in project.cluster(b).tags) == ["feminism", "unions"]
    # The coders' own codes stay as they were.
    assert [s.tags for s in review_rows(project, sample_id)[0].sides] == [("unions",),
                                                                        ("feminism",)]
