"""A project written by schema version 1 opens under the current schema intact."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from workbench.store import CURRENT_VERSION, Project
from workbench.store.safety.backup import list_backups

SCHEMA_V1 = Path(__file__).resolve().parents[1] / "data" / "store" / "schema_v1.sql"
T0 = "2025-03-01T10:00:00.000Z"


@pytest.fixture
def v1_file(tmp_path: Path) -> Path:
    """A version-1 project as the first release wrote it: one run, two clusters,
    a codebook, tags on one cluster, a memo, and the tag action in the log."""
    path = tmp_path / "old.wbproj"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_V1.read_text(encoding="utf-8"))
    conn.executescript(f"""
        INSERT INTO meta VALUES ('archive_root', '/old/crawl'), ('current_run', '1');
        INSERT INTO files VALUES ('a.html', 100, 1.0, '{T0}');
        INSERT INTO runs VALUES (1, '{T0}', 'spotsigs', '{{"tau": 0.4}}', '{{"total": 2.0}}',
                                 '0.0.9');
        INSERT INTO pages (id, key, source, url, title, site) VALUES
            (1, 'a.html', 'a.html', 'http://a.org/1', 'Strike at the docks', 'a.org'),
            (2, 'b.html', 'b.html', 'http://b.org/2', 'Dock strike', 'b.org'),
            (3, 'c.html', 'c.html', 'http://a.org/3', 'Council vote', 'a.org');
        INSERT INTO pages (id, key, source, skip_reason) VALUES (4, 'd.html', 'd.html', 'empty');
        INSERT INTO run_pages VALUES (1, 1, 0), (1, 2, 1), (1, 3, 2), (1, 4, 3);
        INSERT INTO pairs VALUES (1, 1, 2, 0.75);
        INSERT INTO clusters (id, run_id, reference_page_id) VALUES (1, 1, 1), (2, 1, 3);
        INSERT INTO cluster_members VALUES (1, 1, 1.0), (1, 2, 0.75), (2, 3, 1.0);
        INSERT INTO coders VALUES (1, 'ann', '{T0}');
        INSERT INTO tags VALUES (1, 'unions', 'Labour', '#ff0000', '1', NULL);
        INSERT INTO actions (id, kind, description, coder_id, created_at)
            VALUES (1, 'tag', 'Tag 1 cluster with unions', 1, '{T0}');
        INSERT INTO page_tags VALUES (1, 1, 1, '{T0}', 1), (2, 1, 1, '{T0}', 1);
        INSERT INTO changes (action_id, tbl, op, before, after) VALUES
          (1, 'page_tags', 'I', NULL, '{json.dumps(dict(page_id=1, tag_id=1, coder_id=1,
                tagged_at=T0, via_cluster_id=1))}'),
          (1, 'page_tags', 'I', NULL, '{json.dumps(dict(page_id=2, tag_id=1, coder_id=1,
                tagged_at=T0, via_cluster_id=1))}');
        INSERT INTO memos VALUES (1, 2, 1, '{T0}', '{T0}', 'check the date');
    """)
    conn.commit()
    conn.close()
    return path


def test_v1_file_opens_migrated_with_data_intact(v1_file: Path) -> None:
    with Project.open(v1_file) as project:
        assert project.schema_version == CURRENT_VERSION > 1
        assert project.archive_root == "/old/crawl"
        assert project.known_files() == {"a.html": (100, 1.0)}
        run = project.current_run()
        assert run is not None and run.params == {"tau": 0.4} and run.page_count == 4
        rows = project.list_clusters()
        assert [(r.id, r.size, r.coded, r.reference_title) for r in rows] == [
            (1, 2, "all", "Strike at the docks"), (2, 1, "none", "Council vote")]
        assert rows[0].min_similarity == 0.75
        assert rows[0].sites == ("a.org", "b.org")
        assert [t.name for t in rows[0].tags] == ["unions"]
        assert rows[1].memo_count == 1
        assert project.memos(2)[0].text == "check the date"
        assert [(t.name, t.colour, t.shortcut) for t in project.codebook()] == [
            ("unions", "#ff0000", "1")]
        assert project.skipped_pages() == [("d.html", "empty")]
        assert project.integrity_problems() == []
        # The old action log still drives undo after the upgrade.
        assert project.undo() == 1
        assert project.cluster(1).coded == "none"  # type: ignore[union-attr]
    # The backup holds the file as it was, still at version 1.
    (copy,) = list_backups(v1_file)
    conn = sqlite3.connect(copy)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


def test_migration_is_atomic(v1_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.store import schema

    def broken(conn: sqlite3.Connection) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(schema, "MIGRATIONS", [schema.MIGRATIONS[0],
                                               (schema.MIGRATIONS[1][0], broken)])
    with pytest.raises(RuntimeError):
        Project.open(v1_file, backups=0)
    conn = sqlite3.connect(v1_file)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'cluster_summary'"
                        ).fetchone()[0] == 0
    conn.close()


def test_v4_file_gains_boilerplate_share_and_an_honest_minimum(
        v1_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 5 adds cluster_members.boilerplate_share (NULL: not measured) and recomputes
    the summary, whose minimum is now unknown when a member is below the pair floor."""
    from workbench.store import schema

    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:4])
        m.setattr(schema, "CURRENT_VERSION", 4)
        Project.open(v1_file, backups=0).close()
    conn = sqlite3.connect(v1_file)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    assert "boilerplate_share" not in [r[1] for r in conn.execute("PRAGMA table_info(cluster_members)")]
    # A member whose similarity to the reference was never stored, under a summary that
    # still shows the minimum of the known ones (as version 4 computed it).
    conn.execute("INSERT INTO pages (id, key, source, title, site) "
                 "VALUES (5, 'e.html', 'e.html', 'E', 'c.org')")
    conn.execute("INSERT INTO run_pages VALUES (1, 5, 4)")
    conn.execute("INSERT INTO cluster_members VALUES (1, 5, NULL)")
    conn.execute("UPDATE cluster_summary SET size = 3, min_similarity = 0.75 WHERE cluster_id = 1")
    conn.commit()
    conn.close()

    with Project.open(v1_file, backups=0) as project:
        assert project.schema_version == CURRENT_VERSION >= 5
        row = project.cluster(1)
        assert row is not None and row.size == 3
        assert row.min_similarity is None and row.below_floor
        assert [(m.similarity, m.boilerplate_share) for m in project.members(1)] == [
            (1.0, None), (0.75, None), (None, None)]
        assert project.integrity_problems() == []


def test_v5_file_gains_totals_page_counts_and_indexes(
        v1_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 6 stores each run's page count, sums the summary up in cluster_totals and
    adds the indexes a project of a million pages needs."""
    from workbench.store import schema

    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:5])
        m.setattr(schema, "CURRENT_VERSION", 5)
        Project.open(v1_file, backups=0).close()
    conn = sqlite3.connect(v1_file)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
    assert conn.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'cluster_totals'"
                        ).fetchone()[0] == 0
    conn.close()

    with Project.open(v1_file, backups=0) as project:
        assert project.schema_version == CURRENT_VERSION >= 6
        counts = project.counts()
        assert (counts.clusters, counts.clusters_all_coded, counts.clusters_some_coded,
                counts.pages, counts.pages_coded) == (2, 1, 0, 3, 2)
        assert project.count_clusters(coded="none") == 1
        assert project.skipped_pages() == [("d.html", "empty")]
        # The counts follow actions on the migrated file, and so does undo.
        project.tag_clusters([2], [1])
        assert project.counts().clusters_all_coded == 2
        project.undo()
        project.undo()
        assert project.counts().pages_coded == 0
        assert project.integrity_problems() == []
    conn = sqlite3.connect(v1_file)
    assert conn.execute("SELECT id, page_count FROM runs").fetchall() == [(1, 4)]
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'index'")}
    assert {"pages_skipped", "cluster_summary_by_similarity", "clusters_merged_into",
            "page_tags_via"} <= indexes
    conn.close()


def test_v7_file_gains_exclusions_page_memos_and_tag_guids(
        v1_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 8: members are not excluded, memos keep their cluster (and may now belong to
    a page), every tag gets a GUID; the undo log still undoes the old tag action."""
    from workbench.store import schema

    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:7])
        m.setattr(schema, "CURRENT_VERSION", 7)
        Project.open(v1_file, backups=0).close()
    with Project.open(v1_file, backups=0) as project:
        assert project.schema_version == CURRENT_VERSION >= 8
        (tag,) = project.codebook()
        assert tag.guid is not None and len(tag.guid) == 36
        assert [(m.cluster_id, m.page_id, m.text) for m in project.memos(2)] == [
            (2, None, "check the date")]
        assert [m.excluded for m in project.members(1)] == [False, False]
        assert project.cluster(1).excluded_count == 0  # type: ignore[union-attr]
        project.add_page_memo(3, "new kind of memo")
        assert project.integrity_problems() == []
        project.undo()
        assert project.undo() is not None  # the version-1 tag action
        assert project.cluster(1).coded == "none"  # type: ignore[union-attr]
