"""Schema 12: a project of the version before gains the team tables and keeps its work."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from workbench.store import CURRENT_VERSION, Project, schema
from workbench.store.team import bring_in, coder_codes, draw_sample, hand_out

TEAM_TABLES = {"coder_codes", "coder_exceptions", "team_imports", "samples", "sample_members",
               "settlements"}


def test_a_version_11_project_is_upgraded_and_can_hand_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        m.setattr(schema, "CURRENT_VERSION", 11)
        project = new_project(tmp_path, [3, 2, 2, 1])
        # The largest cluster, read as version 11 stored it (the list's query is the
        # current schema's).
        first = project.reader().execute(
            "SELECT cluster_id FROM cluster_summary ORDER BY size DESC, cluster_id LIMIT 1").fetchone()[0]
        tagged = project.tag_clusters([first], [tag_id(project, "unions")]).action_id
        path = project.path
        project.close()
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    conn.close()
    assert not TEAM_TABLES & tables  # truly a file of the version before
    with Project.open(path, backups=0, coder="ann") as project:
        assert project.schema_version == CURRENT_VERSION >= 12  # later steps may follow
        assert [t.name for t in project.cluster(first).tags] == ["unions"]
        assert project.next_undo().id == tagged  # the old log still undoes
        draw_sample(project, n=2, seed=1)
        out = tmp_path / "out"
        out.mkdir()
        [copy_path] = hand_out(project, ["bob"], out)
        with Project.open(copy_path, backups=0) as copy:
            copy.tag_clusters([cluster_ids(copy)[1]], [tag_id(copy, "feminism")])
        bring_in(project, copy_path)
        second = cluster_ids(project)[1]
        assert set(coder_codes(project, [second])) == {"bob"}
