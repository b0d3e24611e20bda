"""Blind coding of a reliability sample, its disagreements, and the lead settling them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.realistic import dump
from tests.store.team.conftest import clusters, guid, tag
from workbench.store import Project, ProjectError
from workbench.store.team import (
    bring_in,
    coder_codes,
    disagreements,
    draw_sample,
    hand_out,
    settle,
    visible_codes,
)


@pytest.fixture
def coded(lead: Project, out_dir: Path) -> tuple[Project, int, list[int]]:
    """A reliability sample of 3 clusters coded by ann and bob, brought in: they agree
    on the first, differ on the second; only ann codes the third."""
    sample = draw_sample(lead, n=3, seed=4, reliability=True)
    a, b, c = sample.clusters
    ann_path, bob_path = hand_out(lead, ["ann", "bob"], out_dir)
    with Project.open(ann_path, backups=0) as copy:
        copy.tag_clusters([a, b], [tag(copy, "unions")])
        copy.tag_clusters([c], [tag(copy, "feminism")])
        copy.add_memo(b, "ann's reason")
    with Project.open(bob_path, backups=0) as copy:
        copy.tag_clusters([a], [tag(copy, "unions")])
        copy.tag_clusters([b], [tag(copy, "local issue")])
        copy.set_excluded(b, [m.page_id for m in copy.members(b)][-1:], True)
        copy.add_memo(b, "bob's reason")
        outside = next(x for x in clusters(copy) if x not in sample.clusters)
        copy.tag_clusters([outside], [tag(copy, "local issue")])
        copy.add_memo(outside, "bob outside the sample")
    bring_in(lead, ann_path)
    bring_in(lead, bob_path)
    return lead, sample.id, [a, b, c, outside]


def test_a_coder_never_sees_another_coders_codes_or_memos_on_the_sample(coded) -> None:
    lead, _sample, (a, b, _c, outside) = coded
    for me, other in (("ann", "bob"), ("bob", "ann")):
        seen = visible_codes(lead, me, b)
        assert seen.blind and set(seen.coders) == {me}
        assert seen.final is None  # the final codes are hidden too
        assert {m.coder for m in seen.memos} == {me}
        assert other not in visible_codes(lead, me, a).coders
    # Outside a reliability sample nothing is kept apart.
    seen = visible_codes(lead, "ann", outside)
    assert not seen.blind and set(seen.coders) == {"bob"}
    assert [m.text for m in seen.memos] == ["bob outside the sample"]
    assert seen.final == {guid(lead, "local issue")}


def test_sample_clusters_keep_the_final_codes_untouched(coded) -> None:
    lead, _sample, (a, b, c, outside) = coded
    for cluster in (a, b, c):
        assert lead.cluster(cluster).tags == ()
    assert [t.name for t in lead.cluster(outside).tags] == ["local issue"]


def test_disagreements_list_each_coders_tags_exceptions_and_memos(coded) -> None:
    lead, sample, (a, b, c, _outside) = coded
    found = disagreements(lead, sample)
    assert [d.cluster_id for d in found] == [b]  # c: one coder only, nothing to compare
    at_b = next(d for d in found if d.cluster_id == b)
    assert at_b.coders["ann"].tags == {guid(lead, "unions")}
    assert at_b.coders["bob"].tags == {guid(lead, "local issue")}
    assert at_b.coders["ann"].memos == ("ann's reason",)
    assert at_b.coders["bob"].memos == ("bob's reason",)
    assert at_b.coders["bob"].excluded == {[m.page_id for m in lead.members(b)][-1]}
    assert at_b.coders["ann"].excluded == frozenset()
    assert coder_codes(lead, [c]) == {"ann": {c: {guid(lead, "feminism")}}}  # bob: absent
    assert coder_codes(lead, [a])["bob"][a] == coder_codes(lead, [a])["ann"][a]


def test_settle_sets_the_final_codes_as_one_undoable_action(coded) -> None:
    lead, sample, (_a, b, _c, _outside) = coded
    before = dump(lead.path)
    result = settle(lead, b, taken_from="ann")
    assert result.action_id is not None
    assert [t.name for t in lead.cluster(b).tags] == ["unions"]
    assert next(d for d in disagreements(lead, sample) if d.cluster_id == b).settled
    own = coder_codes(lead, [b])
    assert own["bob"][b] == {guid(lead, "local issue")}  # the coders' codes stay
    assert lead.undo() == result.action_id
    assert dump(lead.path) == before
    settle(lead, b, [tag(lead, "unions"), tag(lead, "local issue")])
    assert {t.name for t in lead.cluster(b).tags} == {"unions", "local issue"}


def test_settle_says_what_is_missing(coded) -> None:
    lead, _sample, (_a, b, _c, _outside) = coded
    with pytest.raises(ProjectError, match="No coder called zoe"):
        settle(lead, b, taken_from="zoe")
    with pytest.raises(ProjectError, match="which tags to keep"):
        settle(lead, b)
