"""Bringing in what a coder dismissed, and what a coder took back after a bring-in.

A related suggestion dismissed in a copy (key D) is a coder's decision like a tag: it comes
into the lead's project under the coder's name, holds across runs, and its undo follows.
So do the undos of tags, "not this story" marks and memos already brought in.
"""

from __future__ import annotations

from pathlib import Path

from tests.related.builders import cluster_of_key, key, save_related_run
from tests.store.realistic import dump
from tests.store.team.conftest import clusters, tag
from workbench.gui.project.team_text import report_text
from workbench.store import Project
from workbench.store.team import bring_in, coder_codes, hand_out


def _related_lead(tmp_path: Path) -> Project:
    """A real project file whose run offers cluster B (pages 3-4) as related to A (0-2)."""
    folder = tmp_path / "lead"
    folder.mkdir()
    project = Project.create(folder / "study.wbproj", str(tmp_path / "crawl"), coder="lead")
    save_related_run(project)
    return project


def _offered(project: Project, page: int) -> list[int]:
    return [r.cluster for r in project.related(cluster_of_key(project, key(page)))]


def _dismiss_first(path: Path) -> None:
    """The coder opens the copy and dismisses A's first related suggestion (B)."""
    with Project.open(path, backups=0) as copy:
        a = cluster_of_key(copy, key(0))
        assert copy.dismiss_related(a, copy.related(a)[0]).action_id is not None


B_LINKS = {tuple(sorted((key(2), key(3)))), tuple(sorted((key(2), key(4))))}


def test_a_dismissal_made_in_a_copy_comes_in_under_its_coder_and_survives_a_rerun(
        tmp_path: Path) -> None:
    with _related_lead(tmp_path) as lead:
        b = cluster_of_key(lead, key(3))
        assert b in _offered(lead, 0)
        [ann_path] = hand_out(lead, ["ann"], tmp_path)
        _dismiss_first(ann_path)

        report = bring_in(lead, ann_path)
        kept = lead.dismissed_related()
        assert {r[:2] for r in kept} == B_LINKS
        assert {r[2] for r in kept} == {"ann"}  # who did it, not who brought it in
        assert report.dismissals == 2 and report.action_id is not None
        assert "2 related suggestions dismissed" in report_text(report)
        assert b not in _offered(lead, 0) and _offered(lead, 3) == []

        before = dump(lead.path)  # bringing the same copy in again changes nothing
        assert bring_in(lead, ann_path).action_id is None
        assert dump(lead.path) == before

        save_related_run(lead)  # detection again: new cluster ids, the same page keys
        assert _offered(lead, 3) == []
        assert {r[:2] for r in lead.dismissed_related()} == B_LINKS
        assert lead.undo() is not None  # the run
        assert lead.undo() == report.action_id  # the bring-in is one undo step
        assert lead.dismissed_related() == []


def test_a_dismissal_undone_in_the_copy_after_bring_in_is_taken_back(tmp_path: Path) -> None:
    with _related_lead(tmp_path) as lead:
        [ann_path] = hand_out(lead, ["ann"], tmp_path)
        _dismiss_first(ann_path)
        bring_in(lead, ann_path)
        with Project.open(ann_path, backups=0) as copy:
            assert copy.undo() is not None  # ann takes her dismissal back
            copy.add_memo(cluster_of_key(copy, key(0)), "B is the same story after all")
        report = bring_in(lead, ann_path)
        assert report.dismissals_undone == 2
        assert lead.dismissed_related() == []
        assert cluster_of_key(lead, key(3)) in _offered(lead, 0)
        with Project.open(ann_path, backups=0) as copy:  # and she dismisses it again
            a = cluster_of_key(copy, key(0))
            copy.dismiss_related(a, copy.related(a)[0])
        assert bring_in(lead, ann_path).dismissals == 2
        assert {r[2] for r in lead.dismissed_related()} == {"ann"}


def test_a_pair_dismissed_before_keeps_its_first_coder_and_another_coders_undo_leaves_it(
        tmp_path: Path) -> None:
    with _related_lead(tmp_path) as lead:
        ann_path, bob_path = hand_out(lead, ["ann", "bob"], tmp_path)
        _dismiss_first(ann_path)
        _dismiss_first(bob_path)
        assert bring_in(lead, ann_path).dismissals == 2
        assert bring_in(lead, bob_path).dismissals == 0  # the same pairs: ann's stay
        with Project.open(bob_path, backups=0) as copy:
            copy.undo()
        assert bring_in(lead, bob_path).dismissals_undone == 0
        assert {r[2] for r in lead.dismissed_related()} == {"ann"}
        assert {r[:2] for r in lead.dismissed_related()} == B_LINKS


def test_tags_marks_and_memos_undone_in_the_copy_after_bring_in_are_taken_back(
        lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    c1, c2 = clusters(lead)[:2]
    excluded = lead.members(c1)[-1].page_id
    with Project.open(ann_path, backups=0) as copy:
        copy.tag_clusters([c1], [tag(copy, "unions")])
        copy.set_excluded(c1, [excluded], True)
        copy.add_memo(c1, "ann: check the date line")
    bring_in(lead, ann_path)
    assert coder_codes(lead, [c1])["ann"]
    with Project.open(ann_path, backups=0) as copy:
        for _ in range(3):  # ann takes all three back ...
            assert copy.undo() is not None
        copy.tag_clusters([c2], [tag(copy, "feminism")])  # ... and codes on (the undone
        # actions are discarded from her log)
    report = bring_in(lead, ann_path)
    assert report.codes_removed > 0 and report.exceptions == 1 and report.memos == 1
    assert c1 not in coder_codes(lead, [c1, c2]).get("ann", {})
    assert c2 in coder_codes(lead, [c1, c2])["ann"]
    assert [m.text for m in lead.memos(c1)] == []
    exceptions = lead.reader().execute(
        "SELECT count(*) FROM coder_exceptions WHERE page_id = ?", (excluded,)).fetchone()[0]
    assert exceptions == 0
    assert bring_in(lead, ann_path).action_id is None


def test_a_sub_tag_new_in_the_copy_comes_in_under_its_parent_with_its_key(
        lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    with Project.open(ann_path, backups=0) as copy:
        copy.add_tag("strike", shortcut="8", parent_id=tag(copy, "unions"))
        copy.tag_clusters([clusters(copy)[0]], [tag(copy, "strike")])
    bring_in(lead, ann_path)
    added = lead.tag_by_name("strike")
    assert added is not None
    assert added.parent_id == tag(lead, "unions") and added.shortcut == "8"


def _split_in_copy(path: Path, cluster: int) -> list[int]:
    with Project.open(path, backups=0) as copy:
        pages = [m.page_id for m in copy.members(cluster)][-1:]
        copy.split(cluster, pages)
        return pages


def _undo_in_copy(path: Path) -> None:
    with Project.open(path, backups=0) as copy:
        assert copy.undo() is not None


def test_a_split_undone_in_the_copy_after_bring_in_is_undone_here(
        lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    c3 = clusters(lead)[2]
    whole = {m.page_id for m in lead.members(c3)}
    moved = _split_in_copy(ann_path, c3)
    assert bring_in(lead, ann_path).splits == 1
    assert lead.cluster_of_page(moved[0]) != c3
    _undo_in_copy(ann_path)  # ann takes the split back

    report = bring_in(lead, ann_path)
    assert report.splits_undone == 1 and report.kept_aside == []
    assert "1 split undone" in report_text(report)
    assert lead.cluster_of_page(moved[0]) == c3
    assert {m.page_id for m in lead.members(c3)} == whole
    assert bring_in(lead, ann_path).action_id is None  # once, not again
    lead.undo()  # the lead's undo of that bring-in splits them again
    assert lead.cluster_of_page(moved[0]) != c3


def test_a_split_redone_in_the_copy_comes_in_again(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    c3 = clusters(lead)[2]
    moved = _split_in_copy(ann_path, c3)
    bring_in(lead, ann_path)
    _undo_in_copy(ann_path)
    bring_in(lead, ann_path)
    with Project.open(ann_path, backups=0) as copy:
        assert copy.redo() is not None
    assert bring_in(lead, ann_path).splits == 1
    assert lead.cluster_of_page(moved[0]) != c3


def test_a_split_undone_in_the_copy_whose_pages_moved_here_since_stays_with_a_note(
        lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    c3, c4 = clusters(lead)[2:4]
    moved = _split_in_copy(ann_path, c3)
    bring_in(lead, ann_path)
    lead.merge([lead.cluster_of_page(moved[0]), c4], into=c4)  # the lead moved them on
    _undo_in_copy(ann_path)

    report = bring_in(lead, ann_path)
    assert report.splits_undone == 0 and len(report.kept_aside) == 1
    assert "ann undid splitting pages" in report.kept_aside[0]
    assert lead.cluster_of_page(moved[0]) == c4
    assert bring_in(lead, ann_path).action_id is None  # said once


def test_a_merge_undone_in_the_copy_after_bring_in_is_said_in_a_note(
        lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    c3, c4 = clusters(lead)[2:4]
    with Project.open(ann_path, backups=0) as copy:
        copy.merge([c3, c4], into=c3)
    assert bring_in(lead, ann_path).merges == 1
    _undo_in_copy(ann_path)

    report = bring_in(lead, ann_path)
    assert len(report.kept_aside) == 1 and "ann undid merging clusters" in report.kept_aside[0]
    assert "Set aside for review: ann undid merging" in report_text(report)
    assert bring_in(lead, ann_path).action_id is None
