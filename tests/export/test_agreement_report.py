"""The agreement table as CSV (formula-escaped, written whole) and as an HTML report."""

from __future__ import annotations

import csv
from pathlib import Path

import krippendorff
import pytest

from workbench.core.agreement.tags import presence_matrix, tag_agreement
from workbench.export import agreement_report
from workbench.export.agreement_report import (
    CSV_COLUMNS,
    TAG_SET,
    ReportContext,
    write_agreement_csv,
    write_agreement_html,
)
from workbench.store import ProjectError

CODES = {
    "ann": {1: frozenset({"g-pol"}), 2: frozenset(), 3: frozenset({"g-evil"}), 4: frozenset({"g-pol"}),
            5: frozenset({"g-pol", "g-evil"})},
    "bob": {1: frozenset({"g-pol"}), 2: frozenset({"g-evil"}), 3: frozenset({"g-evil"}), 4: frozenset(),
            5: frozenset({"g-pol"})},
}
UNITS = [1, 2, 3, 4, 5]
CONTEXT = ReportContext(
    project="study.wbproj", sample_rule="5 clusters drawn at random, stratified by site",
    sample_seed=20261127,
    detection_settings={"method": "spotsigs", "tau": 0.4, "cluster method": "star"},
    # A name as a crawl or a careless coder might write it: a formula and markup.
    tag_names={"g-pol": "Politics", "g-evil": "=HYPERLINK(\"x\")<script>"},
    written_at="2026-11-27T10:00:00Z")


@pytest.fixture(scope="module")
def table():
    return tag_agreement(CODES, UNITS, ["g-pol", "g-evil", "g-none"], draws=400, seed=9)


def test_the_csv_has_a_row_per_tag_and_one_for_the_tag_set(tmp_path: Path, table):
    path = write_agreement_csv(tmp_path / "agreement.csv", table, CONTEXT)
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == CSV_COLUMNS
    assert [r["tag"] for r in rows] == ["Politics", "'=HYPERLINK(\"x\")<script>", "g-none", TAG_SET]
    politics = rows[0]
    expected = krippendorff.alpha(reliability_data=presence_matrix(CODES, ["ann", "bob"], UNITS, "g-pol"),
                                  level_of_measurement="nominal")
    assert float(politics["alpha"]) == pytest.approx(expected, abs=5e-5)
    assert politics["coders"] == "ann; bob" and politics["units_compared"] == "5"
    assert politics["sample_rule"] == CONTEXT.sample_rule and politics["sample_seed"] == "20261127"
    assert (politics["bootstrap_draws"], politics["bootstrap_seed"]) == ("400", "9")
    # Politics: ann {1, 4, 5}, bob {1, 5}: agree on 1, 2, 3, 5 -> 80 %.
    assert politics["percent_agreement"] == "80.0"
    assert float(politics["alpha_ci_low"]) <= float(politics["alpha"]) <= float(politics["alpha_ci_high"])
    unused = rows[2]
    assert unused["alpha"] == "" and "no coder gave this tag" in unused["note"]


def test_the_tag_set_row_says_when_tags_were_not_exclusive(tmp_path: Path, table):
    # ann gave cluster 5 two tags: the tag set is then no single category.
    path = write_agreement_csv(tmp_path / "agreement.csv", table, CONTEXT)
    tag_set = list(csv.DictReader(path.open(encoding="utf-8", newline="")))[-1]
    assert tag_set["tag"] == TAG_SET and "not used as mutually exclusive" in tag_set["note"]
    one_tag_each = {c: {u: s for u, s in codes.items() if len(s) <= 1} for c, codes in CODES.items()}
    exclusive = tag_agreement(one_tag_each, [1, 2, 3, 4], draws=0)
    path = write_agreement_csv(tmp_path / "exclusive.csv", exclusive, CONTEXT)
    last = list(csv.DictReader(path.open(encoding="utf-8", newline="")))[-1]
    assert last["tag"] == TAG_SET and "mutually exclusive" not in last["note"]


def test_a_negative_alpha_stays_a_number(tmp_path: Path):
    # Two coders who always disagree: alpha below 0 must not be quoted as if it were a formula.
    codes = {"ann": {1: frozenset({"t"}), 2: frozenset(), 3: frozenset({"t"})},
             "bob": {1: frozenset(), 2: frozenset({"t"}), 3: frozenset()}}
    path = write_agreement_csv(tmp_path / "a.csv", tag_agreement(codes, [1, 2, 3], draws=50), CONTEXT)
    row = next(csv.DictReader(path.open(encoding="utf-8", newline="")))
    assert float(row["alpha"]) < 0 and not row["alpha"].startswith("'")


def test_the_html_report_names_everything_a_methods_section_needs(tmp_path: Path, table):
    path = write_agreement_html(tmp_path / "agreement.html", table, CONTEXT)
    page = path.read_text(encoding="utf-8")
    for needed in ("study.wbproj", "5 clusters drawn at random, stratified by site", "seed 20261127",
                   "ann, bob", "Politics", "tau: 0.4", "cluster method: star", "Cohen's kappa",
                   "95 % confidence interval from 400 bootstrap resamplings", "2026-11-27T10:00:00Z"):
        assert needed in page, needed
    politics = next(t.reliability for t in table.tags if t.tag == "g-pol")
    assert f"<td>{politics.alpha:.3f}</td>" in page
    assert f"{politics.interval.low:.3f} to {politics.interval.high:.3f}" in page
    assert "<script>" not in page and "&lt;script&gt;" in page  # names are text, not markup


def test_a_failed_write_leaves_the_old_file(tmp_path: Path, table, monkeypatch):
    old = tmp_path / "agreement.csv"
    old.write_text("the earlier table\n", encoding="utf-8")

    def broken(table, context):
        yield ["half", "a", "row"]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(agreement_report, "table_rows", broken)
    with pytest.raises(ProjectError):
        write_agreement_csv(old, table, CONTEXT)
    assert old.read_text(encoding="utf-8") == "the earlier table\n"
    assert [p.name for p in tmp_path.iterdir()] == ["agreement.csv"]  # no temporary file left


def test_a_link_is_not_written_through(tmp_path: Path, table):
    target = tmp_path / "elsewhere.html"
    target.write_text("keep", encoding="utf-8")
    link = tmp_path / "agreement.html"
    link.symlink_to(target)
    with pytest.raises(ProjectError, match="symbolic link"):
        write_agreement_html(link, table, CONTEXT)
    assert target.read_text(encoding="utf-8") == "keep"
