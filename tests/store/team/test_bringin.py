"""Bringing coders' work in: attributed, idempotent, never over another coder's decision."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.store.realistic import dump
from tests.store.team.conftest import clusters, guid, tag
from workbench.store import Project, ProjectError
from workbench.store.team import (
    bring_in,
    brought_in_actions,
    coder_codes,
    copy_of,
    hand_out,
    page_codes_by_coder,
)
from workbench.store.team.identity import copy_stamp


def _done_actions(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM actions WHERE state = 'done'").fetchone()[0]
    finally:
        conn.close()


def _copy_id(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        stamp = copy_stamp(conn)
        assert stamp is not None
        return stamp.copy_id
    finally:
        conn.close()


def _code_ann(path: Path) -> dict[str, object]:
    """Ann codes her copy through the store API: every kind of decision."""
    with Project.open(path, backups=0) as copy:
        c1, c2, c3, c4 = clusters(copy)[:4]
        unions, feminism = tag(copy, "unions"), tag(copy, "feminism")
        copy.tag_clusters([c1], [unions])
        copy.tag_clusters([c2], [unions, feminism])
        copy.untag_clusters([c2], [unions])  # changed her mind: feminism only
        copy.tag_clusters([c3], [feminism])
        copy.undo()  # an undone action is no decision
        members = [m.page_id for m in copy.members(c1)]
        copy.set_excluded(c1, [members[-1]], True)
        copy.add_memo(c1, "ann: check the date line")
        copy.add_tag("strike")  # a code new in her copy
        copy.tag_clusters([c4], [tag(copy, "strike")])
        split_pages = [m.page_id for m in copy.members(c3)][-1:]
        copy.split(c3, split_pages)
        return {"c1": c1, "c2": c2, "c3": c3, "c4": c4, "excluded": members[-1],
                "split": split_pages}


def _code_bob(path: Path) -> None:
    with Project.open(path, backups=0) as copy:
        c1, c2 = clusters(copy)[:2]
        copy.tag_clusters([c1], [tag(copy, "feminism")])
        copy.tag_clusters([c2], [tag(copy, "feminism")])
        copy.add_memo(c1, "bob: looks like a feminism story")


def test_two_coders_brought_in_side_by_side_nothing_lost(lead: Project, out_dir: Path) -> None:
    ann_path, bob_path = hand_out(lead, ["ann", "bob"], out_dir)
    ann = _code_ann(ann_path)
    _code_bob(bob_path)
    done = {p: _done_actions(p) for p in (ann_path, bob_path)}
    assert done[ann_path] == 8  # the undone tag is not counted

    report = bring_in(lead, ann_path)
    assert report.action_id is not None and report.coder == "ann"
    assert report.copy_actions == report.new_actions == done[ann_path]
    bring_in(lead, bob_path)
    for path in (ann_path, bob_path):  # nothing either coder did is lost
        assert brought_in_actions(lead.reader(), _copy_id(path)) == done[path]

    c1, c2, c3, c4 = ann["c1"], ann["c2"], ann["c3"], ann["c4"]
    strike = lead.tag_by_name("strike")
    assert strike is not None  # added to the codebook, its GUID kept
    codes = coder_codes(lead, [c1, c2, c3, c4])
    u, f, s = guid(lead, "unions"), guid(lead, "feminism"), strike.guid
    assert codes["ann"] == {c1: {u}, c2: {f}, c4: {s}}
    assert codes["bob"] == {c1: {f}, c2: {f}}
    # Final codes: the first coder's on pages that had none; bob's sit beside them.
    assert {t.name for t in lead.cluster(c1).tags} == {"unions"}
    # ann's "not this story" mark and her split are made in the lead's project.
    assert ann["excluded"] in [m.page_id for m in lead.members(c1) if m.excluded]
    assert lead.cluster_of_page(ann["split"][0]) != c3
    memos = {(m.coder, m.text) for m in lead.memos(c1)}
    assert memos == {("ann", "ann: check the date line"), ("bob", "bob: looks like a feminism story")}
    assert lead.history(1)[0].description.startswith("Bring in bob's work (3 actions)")
    assert lead.history(1)[0].coder == "lead"


def test_bringing_the_same_copy_twice_changes_nothing(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    _code_ann(ann_path)
    first = bring_in(lead, ann_path)
    assert first.action_id is not None
    before = dump(lead.path)
    history = lead.history()
    again = bring_in(lead, ann_path)
    assert again.action_id is None and again.new_actions == 0
    assert dump(lead.path) == before
    assert lead.history() == history


def test_coding_more_in_the_copy_brings_only_what_is_new(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    _code_ann(ann_path)
    bring_in(lead, ann_path)
    with Project.open(ann_path, backups=0) as copy:
        c1 = clusters(copy)[0]
        copy.untag_clusters([c1], [tag(copy, "unions")])
        copy.tag_clusters([c1], [tag(copy, "local issue")])
    report = bring_in(lead, ann_path)
    assert report.new_actions == 2
    assert coder_codes(lead, [c1])["ann"][c1] == {guid(lead, "local issue")}


def test_bring_in_is_one_undoable_action(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    _code_ann(ann_path)
    before = dump(lead.path)
    report = bring_in(lead, ann_path)
    assert lead.undo() == report.action_id
    after = dump(lead.path)
    after["coders"].remove(next(r for r in after["coders"] if r[1] == "ann"))  # names stay
    assert after == before
    assert lead.redo() == report.action_id
    assert coder_codes(lead, clusters(lead))["ann"]


def test_a_tag_renamed_in_the_copy_is_the_same_code(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    with Project.open(ann_path, backups=0) as copy:
        unions = tag(copy, "unions")
        copy.edit_tag(unions, name="trade unions")
        copy.tag_clusters([clusters(copy)[0]], [unions])
    names = [t.name for t in lead.codebook()]
    bring_in(lead, ann_path)
    assert [t.name for t in lead.codebook()] == names
    c1 = clusters(lead)[0]
    assert coder_codes(lead, [c1])["ann"][c1] == {guid(lead, "unions")}


def test_a_copy_of_another_run_is_refused(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    _code_ann(ann_path)
    lead.recluster(0.9)
    before = dump(lead.path)
    with pytest.raises(ProjectError, match=r"handed out for detection run 1, but the "
                       r"project's current run is 2 .*nothing was brought in"):
        bring_in(lead, ann_path)
    assert dump(lead.path) == before


def test_a_copy_of_another_project_is_refused(lead: Project, out_dir: Path,
                                              demo_file: Path, tmp_path: Path) -> None:
    other_path = tmp_path / "other.wbproj"
    shutil.copy(demo_file, other_path)
    with Project.open(other_path, backups=0, coder="eve") as other:
        [foreign] = hand_out(other, ["ann"], tmp_path)
    hand_out(lead, ["ann"], out_dir)
    with pytest.raises(ProjectError, match="handed out from another project"):
        bring_in(lead, foreign)
    with pytest.raises(ProjectError, match="is not a coder's copy"):
        bring_in(lead, other_path)


def test_a_merge_is_made_and_a_split_that_no_longer_fits_is_kept_aside(
        lead: Project, out_dir: Path) -> None:
    ann_path, bob_path = hand_out(lead, ["ann", "bob"], out_dir)
    c1, _c2, c3, c4 = clusters(lead)[:4]
    with Project.open(ann_path, backups=0) as copy:
        copy.merge([c3, c4], into=c3)
    moved = [m.page_id for m in lead.members(c4)]
    with Project.open(bob_path, backups=0) as copy:
        copy.split(c4, moved[-1:])  # c4 is gone here once ann's merge is in
    assert bring_in(lead, ann_path).merges == 1
    assert {m.page_id for m in lead.members(c3)} >= set(moved)
    report = bring_in(lead, bob_path)
    assert report.splits == 0 and len(report.kept_aside) == 1
    assert "bob split pages" in report.kept_aside[0]
    assert bring_in(lead, bob_path).action_id is None  # kept aside once, not again
    assert lead.cluster(c1) is not None


def test_the_export_can_name_each_coders_tags_per_page(lead: Project, out_dir: Path) -> None:
    ann_path, bob_path = hand_out(lead, ["ann", "bob"], out_dir)
    assert copy_of(lead) is None
    with Project.open(ann_path, backups=0) as copy:
        stamp = copy_of(copy)
        assert stamp is not None and stamp.coder == "ann"
    _code_ann(ann_path)
    _code_bob(bob_path)
    bring_in(lead, ann_path)
    bring_in(lead, bob_path)
    c1 = clusters(lead)[0]
    reference = lead.members(c1)[0].page_id
    assert page_codes_by_coder(lead.reader())[reference] == {"ann": ("unions",),
                                                             "bob": ("feminism",)}


def test_a_memo_edited_or_deleted_in_the_copy_follows(lead: Project, out_dir: Path) -> None:
    [ann_path] = hand_out(lead, ["ann"], out_dir)
    c1 = clusters(lead)[0]
    with Project.open(ann_path, backups=0) as copy:
        kept = copy.add_memo(c1, "first thought").id
        dropped = copy.add_memo(c1, "to be dropped").id
    bring_in(lead, ann_path)
    assert [m.text for m in lead.memos(c1)] == ["first thought", "to be dropped"]
    with Project.open(ann_path, backups=0) as copy:
        copy.edit_memo(kept, "second thought")  # type: ignore[arg-type]
        copy.delete_memo(dropped)  # type: ignore[arg-type]
    assert bring_in(lead, ann_path).memos == 2
    assert [(m.coder, m.text) for m in lead.memos(c1)] == [("ann", "second thought")]
    assert bring_in(lead, ann_path).action_id is None
