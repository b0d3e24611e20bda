"""Memos on pages, the one-memo-per-coder save, and its undo log."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, snapshot
from workbench.store import ProjectError


def test_page_memos_follow_the_page_and_undo_exactly(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    big, _ = cluster_ids(project)
    page = project.members(big)[1].page_id
    before = snapshot(project.path)
    result = project.add_page_memo(page, "date looks wrong")
    assert result.id is not None
    assert [(m.page_id, m.cluster_id, m.text, m.coder) for m in project.page_memos(page)] == [
        (page, None, "date looks wrong", "ann")]
    assert project.memos(big) == [] and project.cluster(big).memo_count == 0  # type: ignore[union-attr]
    project.split(big, [page])
    assert [m.text for m in project.page_memos(page)] == ["date looks wrong"]
    project.undo()
    after = snapshot(project.path)
    assert project.undo() == result.action_id
    assert snapshot(project.path) == before
    project.redo()
    assert snapshot(project.path) == after
    with pytest.raises(ProjectError, match="No such page"):
        project.add_page_memo(10_000, "x")


def test_set_memo_creates_edits_and_deletes_the_coders_one_memo(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3])
    (cid,) = cluster_ids(project)
    start = snapshot(project.path)
    first = project.set_memo(cluster_id=cid, text="odd")
    assert first.id is not None and project.next_undo().description == (  # type: ignore[union-attr]
        f"Add memo on cluster {cid}")
    assert project.set_memo(cluster_id=cid, text="odd date").id == first.id
    assert project.next_undo().description == f"Edit memo on cluster {cid}"  # type: ignore[union-attr]
    assert project.set_memo(cluster_id=cid, text="odd date").action_id is None
    project.use_coder("bob")
    bobs = project.set_memo(cluster_id=cid, text="agree").id
    assert bobs != first.id
    assert [m.text for m in project.memos(cid)] == ["odd date", "agree"]
    assert project.set_memo(cluster_id=cid, text="  ").id is None
    assert project.next_undo().description == f"Delete memo on cluster {cid}"  # type: ignore[union-attr]
    assert [m.text for m in project.memos(cid)] == ["odd date"]
    page = project.members(cid)[0].page_id
    assert project.set_memo(page_id=page, text="paywall").id is not None
    assert [m.text for m in project.page_memos(page)] == ["paywall"]
    with pytest.raises(ProjectError, match="one cluster or to one page"):
        project.set_memo(cluster_id=cid, page_id=page, text="x")
    while project.undo() is not None and snapshot(project.path) != start:
        pass
    assert snapshot(project.path) == start


def test_saving_a_memo_as_it_is_typed_logs_only_what_changed(tmp_path: Path) -> None:
    """A memo pane saves on every pause: 40 saves of a memo growing to some 2.8 KB. Each
    save is one action that logs the text once (before; the text after is deflated
    against it) and the time: less than the memo's own length, not twice it."""
    project = new_project(tmp_path, [2])
    (cid,) = cluster_ids(project)
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(500)]
    text = " ".join(words[:400])
    project.set_memo(cluster_id=cid, text=text)
    saves = []
    for i in range(40):
        text += " " + words[400 + i]
        saves.append(project.set_memo(cluster_id=cid, text=text).action_id)
    conn = sqlite3.connect(project.path)
    sizes = dict(conn.execute("SELECT action_id, length(data) FROM action_changes"))
    conn.close()
    assert len(text) > 2500
    assert all(sizes[a] < len(text) for a in saves), max(sizes[a] for a in saves)
    assert [m.text for m in project.memos(cid)] == [text]


def test_one_memos_typing_in_several_saves_is_one_undo_step(tmp_path: Path) -> None:
    """A memo pane saves on every pause; saves that continue the typing of one memo join
    the action before (one undo step), and any other action in between starts anew."""
    project = new_project(tmp_path, [3, 2])
    big, small = cluster_ids(project)
    start, logged = snapshot(project.path), len(project.history())
    first = project.set_memo(cluster_id=big, text="Same")
    for text in ("Same wire", "Same wire story", "Same wire story, other byline"):
        assert project.set_memo(cluster_id=big, text=text, continued=True).action_id == (
            first.action_id)
    assert [a.description for a in project.history()][:-logged] == [f"Add memo on cluster {big}"]
    typed = snapshot(project.path)
    assert project.undo() == first.action_id
    assert snapshot(project.path) == start and project.memos(big) == []
    project.redo()
    assert snapshot(project.path) == typed
    # Another memo, or any other action between, is a step of its own.
    page = project.members(big)[1].page_id
    other = project.set_memo(page_id=page, text="paywall", continued=True)
    assert other.action_id not in (None, first.action_id)
    again = project.set_memo(cluster_id=big, text="Same wire story.", continued=True)
    assert again.action_id not in (None, first.action_id, other.action_id)
    project.add_tag("wire")
    assert project.set_memo(cluster_id=big, text="Same wire story!", continued=True).action_id \
        not in (None, again.action_id)
    # Another coder's save never joins this coder's action.
    project.use_coder("bob")
    bobs = project.set_memo(cluster_id=small, text="agree")
    project.use_coder("ann")
    assert project.set_memo(cluster_id=small, text="me too", continued=True).action_id != (
        bobs.action_id)
    # An undone action is not continued: the save is a new step and redo has nothing left.
    project.undo()
    assert project.set_memo(cluster_id=small, text="me too!", continued=True).action_id \
        is not None and project.next_redo() is None


def test_a_memo_added_then_emptied_in_one_go_leaves_no_undo_step(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    (cid,) = cluster_ids(project)
    project.add_tag("wire")
    before = [a.id for a in project.history()]
    start = snapshot(project.path)
    project.set_memo(cluster_id=cid, text="oops")
    project.set_memo(cluster_id=cid, text="oops, no", continued=True)
    assert project.set_memo(cluster_id=cid, text="", continued=True).id is None
    assert [a.id for a in project.history()] == before and snapshot(project.path) == start


def test_a_memo_typed_in_forty_saves_logs_its_text_twice_at_most(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    (cid,) = cluster_ids(project)
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(440)]
    text = " ".join(words[:400])
    first = project.set_memo(cluster_id=cid, text=text).action_id
    for word in words[400:]:
        text += " " + word
        assert project.set_memo(cluster_id=cid, text=text, continued=True).action_id == first
    conn = sqlite3.connect(project.path)
    (size,) = conn.execute("SELECT length(data) FROM action_changes WHERE action_id = ?",
                           (first,)).fetchone()
    conn.close()
    assert size < 2 * len(text), size
    project.undo()
    assert project.memos(cid) == []
    project.redo()
    assert [m.text for m in project.memos(cid)] == [text]


def test_changes_joined_fold_each_change_into_the_one_before_on_the_same_row() -> None:
    from workbench.store.coding.changelog import ChangeGroup, joined

    cols = ("id", "cluster_id", "page_id", "coder_id", "created_at", "updated_at", "text")
    added = ChangeGroup("memos", "I", cols, [[7, 1, None, 1, "t0", "t0", "a"]])

    def edit(before: str, after: str) -> ChangeGroup:
        return ChangeGroup("memos", "U", ("text",), [[7, before, after]])

    gone = ChangeGroup("memos", "D", cols, [[7, 1, None, 1, "t0", "t0", "abc"]])
    inserted = joined([added], [edit("a", "ab")])
    assert [(g.op, g.rows) for g in inserted] == [("I", [[7, 1, None, 1, "t0", "t0", "ab"]])]
    assert [(g.op, g.rows) for g in joined([edit("a", "ab")], [edit("ab", "abc")])] == [
        ("U", [[7, "a", "abc"]])]
    # An edit then a delete: the delete of the row as it was before the edit.
    assert [(g.op, g.rows) for g in joined([edit("a", "abc")], [gone])] == [
        ("D", [[7, 1, None, 1, "t0", "t0", "a"]])]
    assert joined(inserted, [edit("ab", "abc"), gone]) == []
    # Another row's change is kept apart, in order.
    other = ChangeGroup("memos", "U", ("text",), [[8, "x", "y"]])
    assert [(g.op, len(g.rows)) for g in joined([edit("a", "ab")], [other, edit("ab", "abc")])] \
        == [("U", 3)]
