"""Handing out coders' copies: one stamped project file per coder, written whole."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.store.team.conftest import clusters, tag
from workbench.store import Project, ProjectError
from workbench.store.team import draw_sample, hand_out
from workbench.store.team.identity import codebook_fingerprint, copy_stamp, project_id


def _stamp(path: Path):
    conn = sqlite3.connect(path)
    try:
        return copy_stamp(conn), project_id(conn), codebook_fingerprint(conn)
    finally:
        conn.close()


def test_each_coder_gets_a_stamped_copy_that_opens_with_them(lead: Project, out_dir: Path) -> None:
    assigned = clusters(lead)[:2]
    paths = hand_out(lead, ["ann", "bob"], out_dir, clusters=assigned)
    assert [p.name for p in paths] == ["study-ann.wbproj", "study-bob.wbproj"]
    lead_id = project_id(lead.reader())
    assert lead_id is not None  # the lead got an identity
    ids = set()
    for path, coder in zip(paths, ["ann", "bob"], strict=True):
        stamp, _, fingerprint = _stamp(path)
        assert stamp is not None
        assert (stamp.coder, stamp.project_id, stamp.run_id, stamp.clusters) == (
            coder, lead_id, lead.current_run().id, tuple(assigned))
        assert stamp.codebook == fingerprint == codebook_fingerprint(lead.reader())
        ids.add(stamp.copy_id)
        with Project.open(path, backups=0) as copy:
            assert dict((i, n) for i, n, _ in copy.coders())[copy.coder_id] == coder
            assert [(t.name, t.guid) for t in copy.codebook()] == \
                [(t.name, t.guid) for t in lead.codebook()]
            assert [r.id for r in copy.list_clusters()] == [r.id for r in lead.list_clusters()]
            assert copy.next_undo() is None  # the copy's history starts with its coder
    assert len(ids) == 2
    assert sorted(p.name for p in out_dir.iterdir()) == ["study-ann.wbproj", "study-bob.wbproj"]


def test_an_existing_copy_is_never_replaced(lead: Project, out_dir: Path) -> None:
    (out_dir / "study-bob.wbproj").write_bytes(b"bob's work")
    with pytest.raises(ProjectError, match="may hold a coder's work not brought in"):
        hand_out(lead, ["ann", "bob"], out_dir)
    assert (out_dir / "study-bob.wbproj").read_bytes() == b"bob's work"
    assert sorted(p.name for p in out_dir.iterdir()) == ["study-bob.wbproj"]


@pytest.mark.parametrize("coders, message", [
    (["ann", "Ann"], "named twice"), ([" "], "no empty names"), ([], "Name every coder")])
def test_bad_coder_lists_are_refused(lead: Project, out_dir: Path, coders: list[str],
                                     message: str) -> None:
    with pytest.raises(ProjectError, match=message):
        hand_out(lead, coders, out_dir)
    assert list(out_dir.iterdir()) == []


def test_copies_are_blind_on_reliability_clusters(lead: Project, out_dir: Path) -> None:
    blind = draw_sample(lead, n=2, seed=3, reliability=True).clusters
    open_ = [c for c in clusters(lead) if c not in blind][0]
    unions = tag(lead, "unions")
    for cluster in (*blind, open_):
        lead.tag_clusters([cluster], [unions])
        lead.add_memo(cluster, f"lead's memo on {cluster}")
    [path] = hand_out(lead, ["ann"], out_dir)
    with Project.open(path, backups=0) as copy:
        for cluster in blind:
            assert copy.cluster(cluster).tags == ()
            assert copy.memos(cluster) == []
        assert copy.cluster(open_).tags != ()  # outside the sample: the final codes show
        assert [m.text for m in copy.memos(open_)] == [f"lead's memo on {open_}"]
    for cluster in blind:  # the lead's file keeps them
        assert lead.cluster(cluster).tags != ()


def test_coders_whose_names_make_one_file_name_get_two_files(lead: Project, out_dir: Path) -> None:
    # "Anna B" and "Anna_B" both become "Anna_B"; the second copy used to collide with
    # the first and the hand-out failed half-way.
    coders = ["Anna B", "Anna_B", "anna/b"]
    paths = hand_out(lead, coders, out_dir)
    assert [p.name for p in paths] == ["study-Anna_B.wbproj", "study-Anna_B-2.wbproj",
                                       "study-anna_b-3.wbproj"]
    assert [_stamp(p)[0].coder for p in paths] == coders


def test_copy_names_are_valid_and_distinct_on_windows_and_macos(lead: Project,
                                                                out_dir: Path) -> None:
    from workbench.store.safety.portable_names import collision_key, name_problem

    coders = ["Jos\u00e9", "Ren\u0065\u0301e", "RENÉE 2", "x" * 300, "con", "<a:b>"]
    paths = hand_out(lead, coders, out_dir)
    names = [p.name for p in paths]
    for name in names:
        assert name_problem(name, "win32") is None, name
        assert name_problem(name, "darwin") is None, name
    assert len({collision_key(n) for n in names}) == len(names)
    assert max(len(n.encode()) for n in names) <= 130


def test_one_name_in_two_unicode_spellings_is_named_twice(lead: Project, out_dir: Path) -> None:
    with pytest.raises(ProjectError, match="named twice"):
        hand_out(lead, ["Jos\u00e9", "jos\u0065\u0301"], out_dir)
    assert list(out_dir.iterdir()) == []


def test_a_copy_there_under_another_case_is_never_replaced(lead: Project, out_dir: Path) -> None:
    # On Windows and macOS study-ANN.wbproj is the file study-ann.wbproj would replace.
    (out_dir / "study-ANN.wbproj").write_bytes(b"ann's work")
    with pytest.raises(ProjectError, match="study-ANN.wbproj already exists"):
        hand_out(lead, ["ann"], out_dir)
    assert sorted(p.name for p in out_dir.iterdir()) == ["study-ANN.wbproj"]
