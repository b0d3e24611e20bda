"""A text cell that is not UTF-8 (damage SQLite's integrity check passes) does not stop the
export: every row is written, the damaged cells are named, and there is no traceback."""

from __future__ import annotations

import argparse
import csv
import json
import sqlite3
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, new_project, tag_id
from workbench.export import export_pages
from workbench.export.command import add_parser, run
from workbench.store import Project

BAD = "CAST(x'53746f7279ff2021' AS TEXT)"  # "Story\xff !": \xff never occurs in UTF-8


def damage(path: Path, sql: str) -> None:
    """Write raw bytes into a cell the way a damaged disk or a foreign tool would."""
    conn = sqlite3.connect(path)
    try:
        conn.execute(sql)
        conn.commit()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


@pytest.fixture
def damaged_project(tmp_path: Path) -> tuple[Path, int]:
    """Two clusters, all tagged; a page title, a memo and a tag's timestamp (in a table
    without rowids) hold bytes that are not UTF-8."""
    project = new_project(tmp_path, [3, 2])
    big, small = cluster_ids(project)
    project.tag_clusters([big, small], [tag_id(project, "unions")])
    project.add_memo(small, "fine")
    title_page = project.members(big)[1]
    path = project.path
    project.close()
    damage(path, f"UPDATE pages SET title = {BAD} WHERE id = {title_page.page_id}")
    damage(path, f"UPDATE memos SET text = {BAD}")
    damage(path, f"UPDATE page_tags SET tagged_at = {BAD} WHERE page_id = {title_page.page_id}")
    return path, title_page.page_id


def test_export_writes_every_row_and_names_the_damaged_cells(damaged_project: tuple[Path, int],
                                                            tmp_path: Path) -> None:
    path, page_id = damaged_project
    with Project.open(path, backups=0, readonly=True) as project:
        result = export_pages(project, tmp_path / "out.csv")
    assert result.rows == 5
    assert sorted(map(str, result.damaged)) == sorted([
        f"pages row {page_id}, column title", "memos row 1, column text",
        f"page_tags row page_id={page_id}, tag_id=1, column tagged_at"])
    with open(result.csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 5 and rows[1]["title"] == "Story\ufffd !"
    assert {r["cluster_memo"] for r in rows[3:]} == {"Story\ufffd !"}
    side = json.loads(result.sidecar_path.read_text(encoding="utf-8"))
    assert {"table": "pages", "row": str(page_id), "column": "title"} in side["export"]["damaged_text"]
    assert not (tmp_path / "out.csv.partial").exists()


def test_the_command_warns_and_exits_zero_without_a_traceback(damaged_project: tuple[Path, int],
                                                              tmp_path: Path,
                                                              capsys: pytest.CaptureFixture) -> None:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["export", str(damaged_project[0]), "--out", str(tmp_path / "o.csv")])
    assert run(args) == 0
    out, err = capsys.readouterr()
    assert "Wrote 5 rows" in out
    assert "3 text cells of the project are damaged" in err and "column title" in err
    assert "Traceback" not in err


def test_a_sound_project_reports_no_damage(tmp_path: Path) -> None:
    project = new_project(tmp_path, [2])
    project.tag_clusters(cluster_ids(project), [tag_id(project, "unions")])
    result = export_pages(project, tmp_path / "o.csv")
    assert result.damaged == () and project.damaged_text_cells() == []
    assert json.loads(result.sidecar_path.read_text())["export"]["damaged_text"] == []
