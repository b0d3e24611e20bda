"""The tagged-pages CSV reads back exactly and is safe to open in a spreadsheet."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import pytest

from tests.store.builders import cluster_ids, groups_run, new_project, tag_id
from workbench import __version__
from workbench.export import COLUMNS, export_pages
from workbench.export.command import add_parser, run
from workbench.store import Project, ProjectError


def read(path: Path, encoding: str = "utf-8") -> list[dict[str, str]]:
    with open(path, newline="", encoding=encoding) as f:
        return list(csv.DictReader(f))


@pytest.fixture
def coded(tmp_path: Path) -> Project:
    """Three clusters: one with two tags, one partly tagged, one untagged; a skipped page."""
    project = new_project(tmp_path, [3, 2, 2], skipped=1)
    a, b, _ = cluster_ids(project)
    project.tag_clusters([a], [tag_id(project, "unions"), tag_id(project, "local issue")])
    project.use_coder("bob")
    project.tag_pages([project.members(b)[1].page_id], [tag_id(project, "feminism")])
    return project


def stored_tags(project: Project) -> dict[str, str]:
    """page key -> ';'-joined tag names, straight from the store."""
    out = {}
    for cid in cluster_ids(project):
        for m in project.members(cid):
            names = sorted((t.name for t in project.page(m.page_id).tags),  # type: ignore[union-attr]
                           key=str.casefold)
            if names:
                out[m.key] = ";".join(names)
    return out


def test_read_back_gives_exactly_the_stored_tags(coded: Project, tmp_path: Path) -> None:
    out = tmp_path / "tagged.csv"
    result = export_pages(coded, out)
    rows = read(out)
    assert result.rows == len(rows) == 4
    assert list(rows[0]) == COLUMNS
    assert {r["path"]: r["tags"] for r in rows} == stored_tags(coded)
    first = rows[0]
    assert first["tags"] == "local issue;unions" and first["coder"] == "ann"
    assert first["is_reference"] == "1" and first["similarity"] == "1.0"
    assert first["cluster_size"] == "3" and first["title"] == "Story 0"
    assert rows[1]["similarity"] == "0.89" and rows[1]["is_reference"] == "0"
    assert rows[3]["coder"] == "bob" and rows[3]["tags"] == "feminism"
    assert all(r["tagged_at"].endswith("Z") for r in rows)


def test_all_includes_untagged_and_skipped_pages(coded: Project, tmp_path: Path) -> None:
    rows = read(export_pages(coded, tmp_path / "all.csv", coded_only=False).csv_path)
    assert len(rows) == 8
    skipped = rows[-1]
    assert skipped["cluster"] == "" and skipped["skip_reason"].startswith("too little text")
    assert {r["cluster"] for r in rows[:-1]} == {str(c) for c in cluster_ids(coded)}


def test_formula_cells_come_out_inert(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p.wbproj", "/crawl", coder="=cmd|' /C calc'!A0")
    pages, pairs, clusters = groups_run([2])
    pages[0].title = '=HYPERLINK("http://x")'
    pages[1].title = "+SUM(A1)"
    pages[1].url = "@evil"
    project.save_run({}, "spotsigs", {}, pages, pairs, clusters)
    project.add_tag("ok")
    project.tag_clusters(cluster_ids(project), [tag_id(project, "ok")])
    rows = read(export_pages(project, tmp_path / "t.csv").csv_path)
    assert rows[0]["title"] == "'=HYPERLINK(\"http://x\")"
    assert rows[1]["title"] == "'+SUM(A1)" and rows[1]["url"] == "'@evil"
    assert rows[0]["coder"].startswith("'=")
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_rfc4180_quoting_of_commas_quotes_and_newlines(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p.wbproj", "/crawl", coder="ann")
    pages, pairs, clusters = groups_run([1])
    pages[0].title = 'Strike, "again"\nand again — über'
    project.save_run({}, "spotsigs", {}, pages, pairs, clusters)
    out = tmp_path / "t.csv"
    export_pages(project, out, coded_only=False)
    raw = out.read_bytes()
    assert b'"Strike, ""again""\nand again \xe2\x80\x94 \xc3\xbcber"' in raw
    assert raw.count(b"\r\n") == 2 and not raw.startswith(b"\xef\xbb\xbf")
    assert read(out)[0]["title"] == 'Strike, "again"\nand again — über'


def test_excel_adds_a_bom_and_wide_adds_tag_columns(coded: Project, tmp_path: Path) -> None:
    out = tmp_path / "wide.csv"
    export_pages(coded, out, wide=True, excel=True)
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
    rows = read(out, encoding="utf-8-sig")
    assert list(rows[0])[len(COLUMNS):] == ["tag_unions", "tag_feminism", "tag_local issue"]
    for row in rows:
        present = set(row["tags"].split(";"))
        for name in ("unions", "feminism", "local issue"):
            assert row[f"tag_{name}"] == ("1" if name in present else "0")


def test_sidecar_records_run_version_and_codebook(coded: Project, tmp_path: Path) -> None:
    result = export_pages(coded, tmp_path / "tagged.csv")
    assert result.sidecar_path == tmp_path / "tagged.run.json"
    data = json.loads(result.sidecar_path.read_text(encoding="utf-8"))
    assert data["software"]["version"] == __version__
    assert data["run"]["params"] == {"tau": 0.4, "d": 2, "c": 3}
    assert data["run"]["method"] == "spotsigs"
    assert [t["name"] for t in data["codebook"]] == ["unions", "feminism", "local issue"]
    assert data["export"]["rows"] == 4 and data["export"]["coded_only"] is True
    assert data["coders"] == ["ann", "bob"]


def test_project_without_a_run_is_a_clear_error(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.wbproj", "/crawl") as project, \
            pytest.raises(ProjectError, match="no detection run"):
        export_pages(project, tmp_path / "t.csv")
    assert not (tmp_path / "t.csv").exists()


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="workbench")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_command_line(coded: Project, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = coded.path
    coded.close()
    out = tmp_path / "cli.csv"
    args = _parse(["export", str(path), "--out", str(out), "--all", "--wide", "--excel"])
    assert args.func is run
    assert run(args) == 0
    assert "Wrote 8 rows" in capsys.readouterr().out
    assert len(read(out, encoding="utf-8-sig")) == 8
    assert run(_parse(["export", str(path), "-o", str(out)])) == 0
    assert len(read(out)) == 4
    with pytest.raises(SystemExit):
        _parse(["export", str(path), "--out", str(out), "--all", "--coded"])
    assert run(_parse(["export", str(tmp_path / "missing.wbproj"), "--out", str(out)])) == 3
    assert "does not exist" in capsys.readouterr().err
