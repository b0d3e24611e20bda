"""The export's passage shares: each member against its cluster's reference, as the view shows them."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.export import COLUMNS, export_pages
from workbench.export.passage_columns import PASSAGE_COLUMNS, unread_report
from workbench.gui.sidebyside.pagetext import load_page
from workbench.gui.sidebyside.passagemarks import passage_marks
from workbench.store import Project
from workbench.usecases.pipeline import detect, load_corpus, save_result


@pytest.fixture
def demo_project(tmp_path: Path) -> Project:
    """A run over a copy of the demo archive (so a test may take pages away)."""
    root = tmp_path / "crawl"
    shutil.copytree(DEMO_ARCHIVE, root)
    project = Project.create(tmp_path / "p.wbproj", str(root))
    save_result(project, detect(load_corpus(root, SpotSigsParams(), workers=1)))
    yield project
    project.close()


def rows_of(project: Project, out: Path) -> list[dict[str, str]]:
    export_pages(project, out, coded_only=False)
    with open(out, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_export_has_the_share_columns_as_the_view_computes_them(demo_project: Project,
                                                                tmp_path: Path) -> None:
    rows = rows_of(demo_project, tmp_path / "all.csv")
    assert set(PASSAGE_COLUMNS) <= set(rows[0]) and set(PASSAGE_COLUMNS) <= set(COLUMNS)
    members = [r for r in rows if r["cluster"] and r["is_reference"] == "0"]
    assert members, "the demo archive has clusters with members"
    params = SpotSigsParams()
    root = demo_project.archive_root
    for row in rows:
        shares = (row["share_from_reference"], row["share_of_reference"])
        if not row["cluster"] or row["is_reference"] == "1":
            assert shares == ("", ""), "the reference (and a page in no cluster) has no share"
            continue
        cluster = demo_project.cluster(int(row["cluster"]))
        assert cluster is not None
        ref = demo_project.page(cluster.reference_page_id)
        assert ref is not None
        marks = passage_marks(load_page(root, ref.source, ref.offset, params),
                              load_page(root, row["path"], None, params))
        assert float(shares[0]) == pytest.approx(marks.alignment.share_of_b, abs=1e-4)
        assert float(shares[1]) == pytest.approx(marks.alignment.share_of_a, abs=1e-4)
    # Copies of one story carry most of each other's text.
    assert max(float(r["share_from_reference"]) for r in members) > 0.5


def test_a_page_gone_from_the_archive_leaves_its_shares_empty(demo_project: Project, tmp_path: Path) -> None:
    first = rows_of(demo_project, tmp_path / "before.csv")
    member = next(r for r in first if r["cluster"] and r["is_reference"] == "0")
    (Path(demo_project.archive_root) / member["path"]).unlink()
    result = export_pages(demo_project, tmp_path / "after.csv", coded_only=False)
    assert result.passages_unread == 1
    assert "1 page could not be read again from the archive folder" in unread_report(1, "/crawl")
    assert json.loads(result.sidecar_path.read_text(encoding="utf-8"))["export"]["passages_unread"] == 1
    with open(result.csv_path, newline="", encoding="utf-8") as f:
        again = {r["path"]: r for r in csv.DictReader(f)}
    assert again[member["path"]]["share_from_reference"] == ""
    assert again[member["path"]]["share_of_reference"] == ""
    # Every other row is still written, with its shares.
    assert len(again) == len(first)
    others = [r for r in first if r["path"] != member["path"] and r["share_from_reference"]]
    assert all(again[r["path"]]["share_from_reference"] == r["share_from_reference"] for r in others)


def test_the_command_line_warns_of_pages_it_could_not_read(demo_project: Project, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    member = next(r for r in rows_of(demo_project, tmp_path / "before.csv")
                  if r["cluster"] and r["is_reference"] == "0")
    (Path(demo_project.archive_root) / member["path"]).unlink()
    path = demo_project.path
    demo_project.close()
    assert main(["export", str(path), "--all", "--out", str(tmp_path / "cli.csv")]) == 0
    err = capsys.readouterr().err
    assert "warning: 1 page could not be read again from the archive folder" in err
    assert "Every row was exported" in err


def test_no_passages_leaves_the_columns_there_and_empty(demo_project: Project, tmp_path: Path) -> None:
    path = demo_project.path
    demo_project.close()
    assert main(["export", str(path), "--all", "--no-passages", "--out", str(tmp_path / "quick.csv")]) == 0
    with open(tmp_path / "quick.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["share_from_reference"] == r["share_of_reference"] == "" for r in rows)
    sidecar = json.loads((tmp_path / "quick.run.json").read_text(encoding="utf-8"))
    assert sidecar["export"]["passages"] is False
