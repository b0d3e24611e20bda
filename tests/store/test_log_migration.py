"""A project whose undo log was written by schema 6 (JSON row images) keeps working."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.store.test_migration import v1_file  # noqa: F401 - the fixture
from workbench.store import CURRENT_VERSION, Project

T0 = "2025-03-01T10:00:00.000Z"


def _as_version_6(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.store import schema

    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:6])
        m.setattr(schema, "CURRENT_VERSION", 6)
        Project.open(path, backups=0).close()


def _member(similarity: float) -> str:
    return json.dumps({"cluster_id": 1, "page_id": 2, "similarity": similarity,
                       "boilerplate_share": None})


def test_a_schema_6_log_is_converted_and_still_undoes_and_redoes(
        v1_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _as_version_6(v1_file, monkeypatch)
    conn = sqlite3.connect(v1_file)
    # Action 2 (as schema 6 logged it): a member's similarity 0.75 -> 0.5, already done.
    conn.execute("UPDATE cluster_members SET similarity = 0.5 WHERE cluster_id = 1 AND page_id = 2")
    conn.execute("INSERT INTO actions (id, kind, description, coder_id, created_at) "
                 "VALUES (2, 'split', 'Split', 1, ?)", (T0,))
    conn.execute("INSERT INTO changes (action_id, tbl, op, before, after) "
                 "VALUES (2, 'cluster_members', 'U', ?, ?)", (_member(0.75), _member(0.5)))
    # Action 3: discarded (undone, then overtaken), with a big log nothing can replay.
    conn.execute("INSERT INTO actions (id, kind, description, coder_id, created_at, state) "
                 "VALUES (3, 'tag', 'Tag', 1, ?, 'discarded')", (T0,))
    image = json.dumps({"page_id": 3, "tag_id": 1, "coder_id": 1, "tagged_at": T0,
                        "via_cluster_id": 2, "padding": "x" * 200})
    conn.executemany("INSERT INTO changes (action_id, tbl, op, before, after) "
                     "VALUES (3, 'page_tags', 'I', NULL, ?)", [(image,)] * 3000)
    conn.commit()
    big = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()

    with Project.open(v1_file, backups=0) as project:
        assert project.schema_version == CURRENT_VERSION >= 7
        assert [m.similarity for m in project.members(1)] == [1.0, 0.5]
        assert project.undo() == 2
        assert [m.similarity for m in project.members(1)] == [1.0, 0.75]
        assert project.undo() == 1
        assert project.cluster(1).coded == "none"  # type: ignore[union-attr]
        assert project.redo() == 1 and project.redo() == 2
        assert project.cluster(1).coded == "all"  # type: ignore[union-attr]
        assert [m.similarity for m in project.members(1)] == [1.0, 0.5]
        assert project.integrity_problems() == []
    conn = sqlite3.connect(v1_file)
    assert conn.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'changes'"
                        ).fetchone() == (0,)
    assert [r[0] for r in conn.execute("SELECT action_id FROM action_changes")] == [1, 2]
    # The dropped log's pages went back: the file is a fraction of what it was.
    assert conn.execute("PRAGMA page_count").fetchone()[0] < big // 4
    conn.close()


def test_discarded_actions_give_up_their_log(tmp_path: Path) -> None:
    from tests.store.builders import cluster_ids, new_project, tag_id

    with new_project(tmp_path, [3, 2]) as project:
        first = project.tag_clusters(cluster_ids(project)[:1], [tag_id(project, "unions")])
        project.undo()
        project.add_memo(cluster_ids(project)[0], "a new action discards the tag")
        conn = sqlite3.connect(project.path)
        logged = {r[0] for r in conn.execute("SELECT action_id FROM action_changes")}
        conn.close()
        assert first.action_id not in logged
        assert project.redo() is None
