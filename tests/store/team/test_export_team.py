"""The export of a team's work: one column of tags per coder beside the final (settled)
tags, the samples, and a sidecar naming the coders, each sample's rule and the agreement
at export time; the default export keeps a page only a coder tagged."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.store.team.conftest import tag
from workbench.export import COLUMNS, export_pages
from workbench.export.team_columns import coder_column, unique_headers
from workbench.store import Project
from workbench.store.team import bring_in, draw_sample, hand_out, settle
from workbench.usecases.agreement import describe_rule, project_agreement

ANN = [("unions",), ("unions", "feminism"), ("feminism",), (), ("local issue",)]
BOB = [("unions",), ("unions",), ("feminism",), ("feminism",), ("local issue",)]


def _bring_in_work(lead: Project, out_dir: Path, coders: list[str]) -> list[int]:
    """A blind reliability sample of the demo's five units, coded by ``coders`` (ANN's
    codes, then BOB's) and brought in; returns the units."""
    sample = draw_sample(lead, n=5, seed=2, include_singles=True, reliability=True)
    units = list(sample.clusters)
    for path, given in zip(hand_out(lead, coders, out_dir), (ANN, BOB), strict=True):
        with Project.open(path, backups=0) as copy:
            for unit, names in zip(units, given, strict=True):
                if names:
                    copy.tag_clusters([unit], [tag(copy, n) for n in names])
                else:
                    copy.add_memo(unit, "none of our codes")
        bring_in(lead, path)
    return units


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def _members(project: Project, cluster: int) -> set[int]:
    return {r[0] for r in project.reader().execute(
        "SELECT page_id FROM cluster_members WHERE cluster_id = ?", (cluster,))}


def _page_of_row(project: Project) -> list[int]:
    return [r.page_id for r in project.page_records(coded_only=False)]


def test_one_column_per_coder_the_settled_tags_and_the_samples(lead, out_dir, tmp_path):
    units = _bring_in_work(lead, out_dir, ["bob", "ann"])  # bob codes as ANN, ann as BOB
    settle(lead, units[1], taken_from="ann")  # ann: unions only
    out = tmp_path / "team.csv"
    export_pages(lead, out, coded_only=False, coders=True)
    header, rows = _read(out)
    assert header == [*COLUMNS, "tags_ann", "tags_bob", "samples"]  # coders in name order
    pages = _page_of_row(lead)
    by_page = dict(zip(pages, rows, strict=True))
    for unit, bob, ann in zip(units, ANN, BOB, strict=True):
        for page in _members(lead, unit):
            row = by_page[page]
            assert row["tags_bob"] == ";".join(sorted(bob, key=str.casefold))
            assert row["tags_ann"] == ";".join(sorted(ann, key=str.casefold))
            assert row["samples"] == "Reliability sample 1"
            # The final codes: blind clusters have none until the lead settles them.
            assert row["tags"] == ("unions" if unit == units[1] else "")
    assert all(r["samples"] == "" for p, r in by_page.items()
               if not any(p in _members(lead, u) for u in units))


def test_without_the_option_the_columns_are_as_before(lead, out_dir, tmp_path):
    _bring_in_work(lead, out_dir, ["ann", "bob"])
    export_pages(lead, tmp_path / "plain.csv")
    assert _read(tmp_path / "plain.csv")[0] == COLUMNS


def test_the_default_export_keeps_a_page_only_a_coder_tagged(lead, out_dir, tmp_path):
    """A page of the blind sample that a coder tagged has no final code, no memo, no mark:
    only the coder's own code; it is a decision, so the default export has it."""
    units = _bring_in_work(lead, out_dir, ["ann", "bob"])
    only_coded = units[0]  # both tagged it "unions"; no memo on it
    pages = _members(lead, only_coded)
    assert lead.cluster(only_coded).tags == ()
    out = tmp_path / "coded.csv"
    export_pages(lead, out)  # coded only (the default)
    _header, rows = _read(out)
    exported = {r["cluster"] for r in rows}
    assert str(only_coded) in exported
    assert sum(r["cluster"] == str(only_coded) for r in rows) == len(pages)


def test_the_sidecar_names_coders_samples_and_the_agreement_at_export_time(lead, out_dir,
                                                                            tmp_path):
    units = _bring_in_work(lead, out_dir, ["ann", "bob"])
    plain = draw_sample(lead, n=2, seed=9, name="pilot")
    out = tmp_path / "team.csv"
    result = export_pages(lead, out, coders=True)
    side = json.loads(result.sidecar_path.read_text(encoding="utf-8"))
    team = side["team"]
    assert team["coders_with_own_codes"] == ["ann", "bob"]
    assert {"ann", "bob"} <= set(side["coders"])
    reliable, pilot = team["samples"]
    assert pilot == {"name": "pilot", "rule": describe_rule(plain), "seed": 9,
                     "reliability": False, "clusters": 2, "drawn_at": plain.created_at,
                     "rule_data": plain.rule}
    assert reliable["rule"].startswith("Reliability sample 1: 5 of ")
    assert reliable["seed"] == 2 and reliable["clusters"] == len(units)
    agreement = reliable["agreement"]
    expected = project_agreement(lead, reliable["name"], draws=1000, seed=1)
    names = expected.context.tag_names
    assert agreement["coders"] == ["ann", "bob"] and agreement["units"] == len(units)
    assert agreement["bootstrap"] == {"draws": 1000, "seed": 1}
    by_tag = {t["guid"]: t for t in agreement["tags"]}
    assert [t["tag"] for t in agreement["tags"]][:-1] == [names[t.tag] for t in expected.table.tags]
    for row in expected.table.tags:
        r, got = row.reliability, by_tag[row.tag]
        assert got["alpha"] == r.alpha and got["kappa"] == r.kappa
        assert got["alpha_ci"] == ([r.interval.low, r.interval.high] if r.interval else None)
        assert got["percent_agreement"] == 100 * r.percent_agreement
    assert agreement["tags"][-1]["tag"] == "(tag set)"


def test_the_sidecar_says_why_there_is_no_agreement_yet(lead, tmp_path):
    draw_sample(lead, n=3, seed=1, reliability=True)
    result = export_pages(lead, tmp_path / "early.csv", coded_only=False)
    [sample] = json.loads(result.sidecar_path.read_text(encoding="utf-8"))["team"]["samples"]
    assert "Agreement needs two coders' work" in sample["agreement"]["not_computed"]


def test_odd_coder_names_stay_one_valid_header_each(lead, out_dir, tmp_path):
    """Coder names are free text: a formula-looking name, a comma, a line break."""
    _bring_in_work(lead, out_dir, ["=cmd", "a,b"])
    out = tmp_path / "odd.csv"
    export_pages(lead, out, coders=True)
    header, rows = _read(out)
    assert header[-3:] == ["tags_=cmd", "tags_a,b", "samples"]
    assert rows and all(len(r) == len(header) for r in rows)
    raw = out.read_text(encoding="utf-8").splitlines()[0]
    assert raw.endswith(',tags_=cmd,"tags_a,b",samples')  # quoted, never a formula cell
    assert coder_column("Ann\nLee\t") == "tags_Ann Lee"
    assert unique_headers(["Ann Lee", "Ann\nLee", "ann lee"]) == [
        "tags_Ann Lee", "tags_Ann Lee (2)", "tags_ann lee (3)"]


def test_the_command_line_flag(lead, out_dir, tmp_path):
    _bring_in_work(lead, out_dir, ["ann", "bob"])
    lead.close()
    out = tmp_path / "cli.csv"
    done = subprocess.run([sys.executable, "-m", "workbench", "export", str(lead.path), "--out",
                           str(out), "--coders"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    header, rows = _read(out)
    assert header[-3:] == ["tags_ann", "tags_bob", "samples"]
    assert {r["samples"] for r in rows} == {"Reliability sample 1"}
    assert any(r["tags_ann"] == "feminism;unions" for r in rows)
    side = json.loads(out.with_name("cli.run.json").read_text(encoding="utf-8"))
    assert side["export"]["coders"] is True
    assert "alpha" in side["team"]["samples"][0]["agreement"]["tags"][0]


@pytest.mark.parametrize("flag", [[], ["--all"]])
def test_without_the_flag_no_coder_columns(lead, tmp_path, flag):
    lead.close()
    out = tmp_path / "plain.csv"
    done = subprocess.run([sys.executable, "-m", "workbench", "export", str(lead.path), "--out",
                           str(out), *flag], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert _read(out)[0] == COLUMNS
