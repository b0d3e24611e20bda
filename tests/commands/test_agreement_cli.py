"""``workbench agreement --table``: Krippendorff's example C through the real command, and
the messages and exit statuses of tables it cannot use."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.commands.cli import main

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C, one line per
# observer, exactly as issue 31 gives it.
EXAMPLE_C = """\
1,2,3,3,2,1,4,1,2,,,
1,2,3,3,2,2,4,1,2,5,,3
,3,3,3,2,3,4,2,2,5,1,
1,2,3,3,2,4,4,1,2,5,1,
"""
PAPER = {"nominal": "0.743", "ordinal": "0.815", "interval": "0.849", "ratio": "0.797"}


def _with_names(table: str) -> str:
    header = "observer," + ",".join(f"unit {k}" for k in range(1, 13))
    return "\n".join([header] + [f"{name},{line}" for name, line in
                                 zip(("Ann", "Ben", "Cem", "Dee"), table.splitlines(), strict=True)]) + "\n"


def _workbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def _alpha(stdout: str) -> str:
    found = re.search(r"^Krippendorff's alpha:\s+(\S+)$", stdout, re.MULTILINE)
    assert found, stdout
    return found.group(1)


@pytest.mark.parametrize("named", [False, True], ids=["plain", "header-and-coders"])
@pytest.mark.parametrize("level", PAPER)
def test_example_c_prints_the_papers_alpha(tmp_path: Path, level: str, named: bool):
    table = tmp_path / "reliability.csv"
    table.write_text(_with_names(EXAMPLE_C) if named else EXAMPLE_C, encoding="utf-8")
    run = _workbench("agreement", "--table", str(table), "--level", level)
    assert run.returncode == 0, run.stderr
    assert _alpha(run.stdout) == PAPER[level]
    assert "4 coders, 12 units (11 coded by two or more coders: 40 codes compared)" in run.stdout
    assert re.search(r"^95% interval: +-?\d\.\d{3} to \d\.\d{3} \(bootstrap over units, 1,000 draws, "
                     r"seed 1\)$", run.stdout, re.MULTILINE), run.stdout
    assert ("read with a header row of unit names and a first column of coder names" in run.stdout) == named
    assert run.stderr == ""


def test_two_coders_get_kappa_and_percent_agreement(tmp_path: Path, capsys):
    # The hand example of tests/core/test_agreement.py: kappa 0.5, 15 of 20 agree.
    a = ["yes"] * 10 + ["no"] * 10
    b = ["yes"] * 8 + ["no"] * 2 + ["yes"] * 3 + ["no"] * 7
    table = tmp_path / "two.csv"
    table.write_text(f"A,{','.join(a)}\nB,{','.join(b)}\n", encoding="utf-8-sig")  # a BOM, as Excel
    assert main(["agreement", "--table", str(table)]) == 0
    out = capsys.readouterr().out
    assert "Cohen's kappa:         0.500" in out
    assert "percent agreement:     75.0% (units both coders coded)" in out
    assert "categories: no, yes" in out


def test_the_interval_follows_the_seed(tmp_path: Path, capsys):
    table = tmp_path / "c.csv"
    table.write_text(EXAMPLE_C, encoding="utf-8")
    lines = []
    for seed in ("3", "3", "4"):
        assert main(["agreement", "--table", str(table), "--level", "interval", "--seed", seed]) == 0
        lines.append(next(line for line in capsys.readouterr().out.splitlines() if "interval:" in line))
    assert lines[0] == lines[1] != lines[2]


@pytest.mark.parametrize("text, message", [
    ("1,2,3\n1,2\n", "line 2 has 2 cells, line 1 has 3: every row needs one cell per unit"),
    ("1,2,3\n1,x,3\n2,2,3\n", "line 2, column 2: 'x' is not a number; at the interval level"),
    ("A,1,2,3\n", "only one coder: agreement needs the codes of at least two coders"),
    ("1,,\n,2,\n", "no unit was coded by two or more coders"),
    ("coder,u1,u2\nA,,\nB,,\n", "every cell is empty: no coder coded any unit"),
    ("", "the table is empty"),
    ("1,1,1\n1,1,1\n", "alpha is undefined: every coder gave every unit the same value (1)"),
])
def test_bad_tables_get_a_specific_message_and_exit_3(tmp_path: Path, capsys, text: str, message: str):
    table = tmp_path / "bad.csv"
    table.write_text(text, encoding="utf-8")
    assert main(["agreement", "--table", str(table), "--level", "interval"]) == 3
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err


def test_a_bad_table_in_a_real_process_exits_3_without_a_traceback(tmp_path: Path):
    table = tmp_path / "ragged.csv"
    table.write_text("1,2,3\n1,2\n", encoding="utf-8")
    run = _workbench("agreement", "--table", str(table))
    assert run.returncode == 3
    assert "line 2 has 2 cells" in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "that is a folder"),
    (lambda p: p.write_bytes(b"1,2\x00,3\n"), "not a text file"),
])
def test_unreadable_files_exit_3(tmp_path: Path, capsys, make, message):
    path = tmp_path / "table.csv"
    make(path)
    assert main(["agreement", "--table", str(path)]) == 3
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    ([], "give a reliability table: --table FILE.csv"),
    (["--table", "t.csv", "--csv", "out.csv"], "go with a PROJECT"),
    (["study.wbproj", "--table", "t.csv"], "not both"),
])
def test_bad_parameters_exit_2(capsys, args, message):
    assert main(["agreement", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--level", "cardinal"], ["--draws", "-1"], ["--draws", "many"]])
def test_bad_options_exit_2(tmp_path: Path, capsys, args):
    with pytest.raises(SystemExit) as stop:
        main(["agreement", "--table", str(tmp_path / "t.csv"), *args])
    assert stop.value.code == 2
