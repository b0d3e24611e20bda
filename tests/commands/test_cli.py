from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import EXIT_INPUT, main


def test_dedup_writes_pairs_and_clusters(tmp_path: Path, capsys):
    pairs, clusters = tmp_path / "pairs.csv", tmp_path / "clusters.csv"
    assert main(["dedup", str(DEMO_ARCHIVE), "--pairs", str(pairs), "--clusters", str(clusters)]) == 0
    out = capsys.readouterr().out
    for label in ("pages read:", "inputs skipped:", "signatures:", "pairs >=", "clusters:", "wall time:"):
        assert label in out
    with pairs.open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["doc_a", "doc_b", "similarity"]
    assert all((DEMO_ARCHIVE / r["doc_a"]).exists() for r in rows)
    with clusters.open() as fh:
        crow = list(csv.DictReader(fh))
    assert list(crow[0]) == ["cluster", "path", "similarity", "is_reference"]
    assert len({r["cluster"] for r in crow}) == 4
    assert sum(int(r["is_reference"]) for r in crow) == 4


def test_parameters_reach_the_run(tmp_path: Path, capsys):
    assert main(["dedup", str(DEMO_ARCHIVE), "--tau", "1.0", "--spec", "the(1,2)",
                 "--min-sigs", "1", "--cluster-method", "components", "-q"]) == 0
    out = capsys.readouterr().out
    assert "pairs >= 1:" in out and "(components)" in out


@pytest.mark.parametrize("args, message", [
    (["dedup", "/no/such/folder"], "no such file or folder"),
    (["eval", "/no/such/folder"], "no such file or folder"),
])
def test_missing_folder(args, message, capsys):
    assert main(args) == EXIT_INPUT
    assert message in capsys.readouterr().err


def test_empty_folder(tmp_path: Path, capsys):
    assert main(["dedup", str(tmp_path)]) == EXIT_INPUT
    assert "empty" in capsys.readouterr().err


def test_folder_without_pages(tmp_path: Path, capsys):
    (tmp_path / "a.html").write_bytes(b"")
    assert main(["dedup", str(tmp_path)]) == EXIT_INPUT
    assert "no readable pages (empty file)" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [["--tau", "0"], ["--tau", "x"], ["--idf", "0.9,0.1"],
                                 ["--spec", "the"], ["--cluster-method", "magic"], ["--weak-join", "1.5"],
                                 ["--weak-join-own-text", "-0.1"], ["--pair-floor", "0"]])
def test_bad_parameters_exit_2(bad, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["dedup", str(DEMO_ARCHIVE), *bad])
    assert exc.value.code == 2


def test_spec_and_distance_together_are_refused(capsys):
    assert main(["dedup", str(DEMO_ARCHIVE), "--spec", "the(1,2)", "--distance", "2"]) == EXIT_INPUT


def test_eval_needs_cluster_folders(tmp_path: Path, capsys):
    (tmp_path / "page.html").write_text("<p>x</p>")
    assert main(["eval", str(tmp_path)]) == EXIT_INPUT
    assert "one sub-folder per cluster" in capsys.readouterr().err


def test_eval_sweep_on_demo_layout(tmp_path: Path, capsys):
    # A gold set in folder form made from the demo archive: one folder per story.
    for page in DEMO_ARCHIVE.rglob("*.html"):
        target = tmp_path / page.stem / f"{page.parent.name}.html"
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(page.read_bytes())
    assert main(["eval", str(tmp_path), "--sweep", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = [line.split() for line in lines if line.strip()[:1].isdigit()]
    assert len(table) == 19
    row = {float(r[0]): r for r in table}[0.2]
    assert float(row[4]) == 1.0  # cluster precision on the demo stories


def test_dedup_into_a_project_then_export(tmp_path: Path, capsys):
    project = tmp_path / "demo.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project), "-q"]) == 0
    assert "run 1 saved" in capsys.readouterr().out
    # A second run goes into the same project as run 2.
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project), "--tau", "0.5", "-q"]) == 0
    assert "run 2 saved" in capsys.readouterr().out
    out = tmp_path / "pages.csv"
    assert main(["export", str(project), "--out", str(out), "--all"]) == 0
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12
    assert {r["path"] for r in rows} == {p.relative_to(DEMO_ARCHIVE).as_posix()
                                          for p in DEMO_ARCHIVE.rglob("*.html")}
    assert sum(r["is_reference"] == "1" for r in rows if r["cluster_size"] != "1") >= 3


def test_detection_switches_reach_the_parameters():
    from workbench.commands.cli import _params, build_parser

    args = build_parser().parse_args(["dedup", str(DEMO_ARCHIVE), "--no-main-content",
                                      "--no-corpus-boilerplate", "--pair-floor", "0.2", "--weak-join", "0",
                                      "--weak-join-own-text", "0.5"])
    p = _params(args)
    assert (p.main_content, p.corpus_boilerplate, p.pair_floor, p.weak_join) == (False, False, 0.2, 0.0)
    assert p.weak_join_own_text == 0.5
    defaults = _params(build_parser().parse_args(["dedup", str(DEMO_ARCHIVE)]))
    assert (defaults.main_content, defaults.corpus_boilerplate) == (True, True)


def test_progress_in_a_log_is_plain_lines_with_units(capsys):
    # capsys's stderr is no terminal: plain lines, no carriage returns, units on each.
    assert main(["dedup", str(DEMO_ARCHIVE), "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    reading = [line for line in lines if line.startswith("reading")]
    assert reading, err
    assert re.search(r"reading: [\d.,]+ of [\d.,]+ MB \(\d+%\), [\d,]+ pages? extracted", reading[-1]), err
    assert any(line.startswith("matching: ") and " pages" in line for line in lines), err
    assert not re.search(r"read: \d", err)  # no bare byte counts


def test_quiet_progress_is_silent(capsys):
    assert main(["dedup", str(DEMO_ARCHIVE), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_pairs_of_identical_pages_are_said_to_be_uncompared(tmp_path: Path, capsys):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    page = next(p for p in sorted(DEMO_ARCHIVE.rglob("*.htm*")) if p.stat().st_size > 2000).read_bytes()
    for name in ("a.html", "b.html", "c.html"):
        (crawl / name).write_bytes(page)
    assert main(["dedup", str(crawl)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("pairs >="))
    assert line.split()[3] == "3", line  # three identical pages: three pairs
    assert "identical pages are paired without comparing" in line
    assert main(["dedup", str(DEMO_ARCHIVE)]) == 0
    assert "without comparing" not in capsys.readouterr().out
