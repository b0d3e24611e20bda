"""Agreement over a lead project's reliability sample, from the coders' brought-in copies:
per tag, equal to the krippendorff package on the same matrix, through the real command."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from tests.conftest import REPO
from tests.store.team.conftest import guid, tag
from workbench.store import Project
from workbench.store.team import bring_in, draw_sample, hand_out

# What each coder gives the five sample clusters (the demo archive's every cluster and
# single page), by position: ann and bob agree on three.
ANN = [("unions",), ("unions", "feminism"), ("feminism",), (), ("local issue",)]
BOB = [("unions",), ("unions",), ("feminism",), ("feminism",), ("local issue",)]


def _coded_copies(lead: Project, out_dir: Path) -> tuple[list[Path], list[int]]:
    sample = draw_sample(lead, n=5, seed=2, include_singles=True, reliability=True)
    units = list(sample.clusters)
    copies = hand_out(lead, ["ann", "bob"], out_dir)
    for path, given in zip(copies, (ANN, BOB), strict=True):
        with Project.open(path, backups=0) as copy:
            for unit, names in zip(units, given, strict=True):
                if names:
                    copy.tag_clusters([unit], [tag(copy, n) for n in names])
                else:  # coded, no tag: the coder says so with a memo
                    copy.add_memo(unit, "none of our codes")
    return copies, units


@pytest.fixture
def lead_with_work(lead: Project, out_dir: Path) -> tuple[Path, list[int]]:
    copies, units = _coded_copies(lead, out_dir)
    for path in copies:
        bring_in(lead, path)
    return lead.path, units


def _expected_alpha(name: str) -> float:
    matrix = np.array([[float(name in given) for given in coder] for coder in (ANN, BOB)])
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))


def test_the_command_scores_each_tag_as_the_krippendorff_package_does(lead_with_work, tmp_path):
    path, _units = lead_with_work
    with Project.open(path, backups=0, readonly=True) as project:
        guids = {name: guid(project, name) for name in ("unions", "feminism", "local issue")}
    out_csv, out_html = tmp_path / "agreement.csv", tmp_path / "agreement.html"
    done = subprocess.run([sys.executable, "-m", "workbench", "agreement", str(path),
                           "--csv", str(out_csv), "--html", str(out_html), "--draws", "200"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "coders ann, bob" in done.stdout
    with out_csv.open(encoding="utf-8") as fh:
        rows = {row["tag_guid"]: row for row in csv.DictReader(fh)}
    for name, code in guids.items():
        assert float(rows[code]["alpha"]) == pytest.approx(_expected_alpha(name), abs=1e-4), name
    html = out_html.read_text(encoding="utf-8")
    assert "unions" in html and "seed 2" in html.replace("seed</", "seed ")


def test_a_project_without_two_coders_work_says_what_to_do(lead, tmp_path):
    draw_sample(lead, n=3, seed=1, reliability=True)
    lead.close()
    done = subprocess.run([sys.executable, "-m", "workbench", "agreement", str(lead.path)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 3
    assert "Bring in" in done.stderr and "Traceback" not in done.stderr


def test_an_output_over_the_project_is_refused(lead_with_work):
    path, _units = lead_with_work
    done = subprocess.run([sys.executable, "-m", "workbench", "agreement", str(path), "--csv", str(path)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert Project.open(path, backups=0, readonly=True).codebook()  # still a project


def test_the_report_says_the_sample_rule_in_words_and_orders_tags_by_name(lead):
    from workbench.usecases.agreement import describe_rule

    sample = draw_sample(lead, n=3, seed=5, include_singles=True, stratify_by="size", reliability=True)
    said = describe_rule(sample)
    assert said.startswith(f"{sample.name}: 3 of ")
    assert "clusters at random, stratified by cluster size, single pages included" in said
    assert "{" not in said  # no raw rule


def test_tags_are_in_the_codebooks_alphabetical_order(lead_with_work):
    from workbench.usecases.agreement import project_agreement

    path, _units = lead_with_work
    with Project.open(path, backups=0, readonly=True) as project:
        found = project_agreement(project, draws=0)
        names = [found.context.tag_names[t.tag] for t in found.table.tags]
    assert names == sorted(names, key=str.casefold) and len(names) == 3


def test_copies_not_brought_in_are_scored_without_changing_any_file(lead, out_dir, tmp_path):
    """workbench agreement LEAD COPY...: the same figures as after Bring In, every file as
    it was (the copies are brought into a throw-away copy of the lead's project)."""
    import hashlib

    copies, _units = _coded_copies(lead, out_dir)
    lead.close()
    files = [lead.path, *copies]
    before = [hashlib.sha256(f.read_bytes()).hexdigest() for f in files]
    out_csv = tmp_path / "a.csv"
    done = subprocess.run([sys.executable, "-m", "workbench", "agreement", *map(str, files),
                           "--csv", str(out_csv), "--draws", "0"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [hashlib.sha256(f.read_bytes()).hexdigest() for f in files] == before
    with Project.open(lead.path, backups=0, readonly=True) as project:
        names = {guid(project, n): n for n in ("unions", "feminism", "local issue")}
    with out_csv.open(encoding="utf-8") as fh:
        alphas = {names[r["tag_guid"]]: float(r["alpha"]) for r in csv.DictReader(fh) if r["tag_guid"]}
    assert alphas == pytest.approx({n: _expected_alpha(n) for n in names.values()}, abs=1e-4)
