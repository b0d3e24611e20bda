"""Agreement on one variable and per tag: alpha from the krippendorff package, kappa,
percent agreement, the bootstrap interval, and the reliability-table reader."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from workbench.core.agreement import reliability as agreement
from workbench.core.agreement.bootstrap import (
    alpha_interval,
    nominal_alphas,
    package_alphas,
    pick_weights,
    unit_picks,
    value_counts,
)
from workbench.core.agreement.matrix import pairable_units, value_domain
from workbench.core.agreement.reliability import (
    AgreementError,
    cohen_kappa,
    percent_agreement,
    reliability,
)
from workbench.core.agreement.table import parse_table
from workbench.core.agreement.tags import presence_matrix, tag_agreement, tag_set_matrix

N = np.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C:
# 4 observers x 12 units, values 1-5, missing data.
EXAMPLE_C = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
])
PAPER = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize("level", PAPER)
def test_example_c_gives_the_papers_alpha(level):
    r = reliability(EXAMPLE_C, level, draws=200)
    assert round(r.alpha, 3) == PAPER[level]
    # 12 units, 11 coded by two or more observers (unit 12 by one): 40 pairable values, as
    # the paper counts them.
    assert (r.n_units, r.n_pairable_units, r.n_coders, r.n_values) == (12, 11, 4, 40)
    assert r.kappa is None  # four coders: kappa is for two


# A 2 x 2 example by hand. Coders A and B judge 20 units yes or no:
#               B yes   B no
#     A yes       8       2     (A: 10 yes)
#     A no        3       7     (A: 10 no)
#               (11)     (9)
# observed agreement p_o = (8 + 7) / 20 = 0.75
# chance agreement   p_e = P(A yes) P(B yes) + P(A no) P(B no)
#                        = (10/20)(11/20) + (10/20)(9/20) = 0.275 + 0.225 = 0.5
# kappa = (p_o - p_e) / (1 - p_e) = (0.75 - 0.5) / (1 - 0.5) = 0.5
TWO_BY_TWO_A = ["yes"] * 8 + ["yes"] * 2 + ["no"] * 3 + ["no"] * 7
TWO_BY_TWO_B = ["yes"] * 8 + ["no"] * 2 + ["yes"] * 3 + ["no"] * 7


def test_kappa_matches_the_hand_computed_two_by_two():
    assert cohen_kappa(TWO_BY_TWO_A, TWO_BY_TWO_B) == pytest.approx(0.5)


def test_kappa_of_a_two_row_matrix_and_percent_agreement():
    matrix = np.array([[1.0 if v == "yes" else 0.0 for v in TWO_BY_TWO_A],
                       [1.0 if v == "yes" else 0.0 for v in TWO_BY_TWO_B]])
    r = reliability(matrix, "nominal", draws=0)
    assert r.kappa == pytest.approx(0.5)
    assert r.percent_agreement == pytest.approx(0.75)  # 15 of 20, as above
    assert r.interval is None  # no draws asked for


def test_kappa_leaves_out_units_one_coder_did_not_code():
    # The hand example plus two units only A coded: the same kappa.
    assert cohen_kappa(TWO_BY_TWO_A + ["yes", "no"], TWO_BY_TWO_B + [None, None]) == pytest.approx(0.5)


def test_kappa_is_undefined_when_both_use_one_category_throughout():
    # p_e = 1: kappa is 0/0, not 1 or 0.
    assert cohen_kappa(["yes"] * 5, ["yes"] * 5) is None


def test_percent_agreement_is_the_mean_over_pairs_of_coders():
    # Three coders, three units. Pairs (A,B): agree on unit 1 of 3 -> 1/3;
    # (A,C): both coded units 1, 2, agree on 1 -> 1/2; (B,C): both coded 1, 2, agree on both -> 1.
    # Mean: (1/3 + 1/2 + 1) / 3 = 11/18.
    matrix = np.array([[1, 1, 2], [1, 2, 1], [1, 2, N]], dtype=float)
    assert percent_agreement(matrix) == pytest.approx(11 / 18)


def test_the_bootstrap_interval_is_reproducible_and_holds_alpha():
    first = alpha_interval(EXAMPLE_C, "interval", draws=1000, seed=42)
    again = alpha_interval(EXAMPLE_C, "interval", draws=1000, seed=42)
    other = alpha_interval(EXAMPLE_C, "interval", draws=1000, seed=43)
    assert first == again
    assert first != other  # the seed is used
    alpha = krippendorff.alpha(reliability_data=EXAMPLE_C, level_of_measurement="interval")
    assert first.low < alpha <= first.high
    assert (first.draws, first.defined_draws, first.seed, first.level) == (1000, 1000, 42, 0.95)


def _random_codes(seed: int, coders: int = 3, units: int = 30, values: int = 4):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, values, size=(coders, units)).astype(float)
    data[rng.random(data.shape) < 0.2] = N  # some codes missing
    return data


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_nominal_draws_equal_the_packages_on_every_draw(seed):
    # The bootstrap's matrix form of nominal alpha against krippendorff.alpha, draw by draw,
    # on data with missing codes and with draws that have no variation (NaN in both).
    data = _random_codes(seed, values=2 if seed == 3 else 4, units=8 if seed == 3 else 30)
    domain = value_domain(data)
    counts = value_counts(data[:, pairable_units(data)], domain)
    picks = unit_picks(len(counts), 300, seed)
    ours = nominal_alphas(counts, pick_weights(picks))
    package = package_alphas(counts, domain, "nominal", picks)
    np.testing.assert_allclose(ours, package, rtol=1e-9, atol=1e-12)  # NaN where the package has NaN
    assert np.isfinite(ours).sum() >= 200


def test_a_tag_set_too_big_for_the_package_gets_the_same_alpha(monkeypatch):
    data = _random_codes(4, values=12)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    monkeypatch.setattr(agreement, "PACKAGE_CELLS", 10)  # as if hundreds of tag sets
    assert agreement.alpha(data, "nominal") == pytest.approx(expected, abs=1e-12)


def test_reliability_reports_the_interval_of_its_seed():
    r = reliability(EXAMPLE_C, "nominal", draws=500, seed=7)
    assert r.interval == alpha_interval(EXAMPLE_C, "nominal", draws=500, seed=7)
    assert r.interval.low < r.alpha <= r.interval.high


def test_alpha_without_variation_is_undefined_not_an_error():
    r = reliability(np.array([[1, 1, N], [1, 1, 1]], dtype=float), "nominal")
    assert r.alpha is None and r.interval is None
    assert "no variation" in r.undefined_reason
    assert r.percent_agreement == 1.0


@pytest.mark.parametrize("matrix, message", [
    (np.array([[1.0, 2.0, 3.0]]), "only one coder"),
    (np.full((3, 4), N), "every cell is empty"),
    (np.array([[1.0, N], [N, 2.0]]), "no unit was coded by two or more coders"),
    (np.zeros((2, 0)), "no unit"),
])
def test_unusable_matrices_say_why(matrix, message):
    with pytest.raises(AgreementError, match=message):
        reliability(matrix, "nominal")


# ------------------------------------------------------------------ per tag

GUID_POL, GUID_SPORT, GUID_UNUSED = "guid-politics", "guid-sport", "guid-unused"
CODES = {
    "ann": {1: frozenset({GUID_POL}), 2: frozenset(), 3: frozenset({GUID_SPORT}), 4: frozenset({GUID_POL}),
            5: frozenset({GUID_POL}), 6: frozenset({GUID_SPORT}), 99: frozenset({GUID_SPORT})},
    "bob": {1: frozenset({GUID_POL}), 2: frozenset({GUID_SPORT}), 3: frozenset({GUID_SPORT}),
            5: frozenset({GUID_POL, GUID_SPORT}), 6: frozenset()},
}
SAMPLE = [1, 2, 3, 4, 5, 6]  # unit 99 is outside the sample; unit 4 only ann coded


def test_presence_matrix_marks_missing_units_as_missing():
    m = presence_matrix(CODES, ["ann", "bob"], SAMPLE, GUID_POL)
    np.testing.assert_array_equal(m, [[1, 0, 0, 1, 1, 0], [1, 0, 0, N, 1, 0]])


def test_alpha_per_tag_equals_the_packages_on_the_same_matrix():
    table = tag_agreement(CODES, SAMPLE, [GUID_POL, GUID_SPORT, GUID_UNUSED], draws=300, seed=5)
    assert table.coders == ("ann", "bob") and table.n_units == 6
    by_tag = {t.tag: t for t in table.tags}
    for tag in (GUID_POL, GUID_SPORT):
        expected = krippendorff.alpha(reliability_data=presence_matrix(CODES, ["ann", "bob"], SAMPLE, tag),
                                      level_of_measurement="nominal")
        assert by_tag[tag].reliability.alpha == pytest.approx(expected, abs=1e-12)
        assert by_tag[tag].reliability.n_pairable_units == 5  # unit 4: ann only
    # Sport: ann {3, 6}, bob {2, 3, 5} over the units both coded (1, 2, 3, 5, 6): agree on 1, 3
    # -> 2 of 5 = 40 %.
    assert by_tag[GUID_SPORT].reliability.percent_agreement == pytest.approx(0.4)
    assert by_tag[GUID_SPORT].uses == 5  # ann 3, 6 and bob 2, 3, 5 (ann's unit 99 is outside)
    assert by_tag[GUID_POL].reliability.kappa is not None  # two coders
    assert by_tag[GUID_UNUSED].uses == 0 and by_tag[GUID_UNUSED].reliability.alpha is None


def test_tags_default_to_those_used_in_the_sample():
    table = tag_agreement(CODES, SAMPLE, draws=0)
    assert [t.tag for t in table.tags] == [GUID_POL, GUID_SPORT]


def test_the_tag_set_is_one_nominal_variable():
    m = tag_set_matrix(CODES, ["ann", "bob"], SAMPLE)
    # Distinct sets, sorted: {} -> 0, {pol} -> 1, {pol, sport} -> 2, {sport} -> 3.
    np.testing.assert_array_equal(m, [[1, 0, 3, 1, 1, 3], [1, 3, 3, N, 2, 0]])
    table = tag_agreement(CODES, SAMPLE, draws=0)
    assert table.tag_set.alpha == pytest.approx(
        krippendorff.alpha(reliability_data=m, level_of_measurement="nominal"), abs=1e-12)


def test_the_table_says_whether_the_tags_were_used_as_mutually_exclusive():
    assert not tag_agreement(CODES, SAMPLE, draws=0).mutually_exclusive  # bob gave unit 5 two tags
    assert tag_agreement(CODES, [1, 2, 3, 4, 6], draws=0).mutually_exclusive  # at most one each


def test_per_tag_needs_two_coders_and_shared_units():
    with pytest.raises(AgreementError, match="only one coder"):
        tag_agreement({"ann": CODES["ann"]}, SAMPLE)
    with pytest.raises(AgreementError, match="no unit was coded by two"):
        tag_agreement({"ann": {1: frozenset({"x"})}, "bob": {2: frozenset({"x"})}}, [1, 2])
    with pytest.raises(AgreementError, match="no units"):
        tag_agreement(CODES, [])


# ------------------------------------------------------------------ the table reader

EXAMPLE_C_CSV = ("1,2,3,3,2,1,4,1,2,,,\n1,2,3,3,2,2,4,1,2,5,,3\n"
                 ",3,3,3,2,3,4,2,2,5,1,\n1,2,3,3,2,4,4,1,2,5,1,\n")


def _named(csv_text: str) -> str:
    lines = csv_text.splitlines()
    header = "observer," + ",".join(f"u{k}" for k in range(1, 13))
    return "\n".join([header] + [f"{name},{line}" for name, line in zip("ABCD", lines, strict=True)]) + "\n"


def test_a_plain_table_is_all_codes():
    t = parse_table(EXAMPLE_C_CSV, "interval")
    assert not t.has_header and not t.has_coder_column and not t.notes
    np.testing.assert_array_equal(t.matrix, EXAMPLE_C)
    assert t.coders == ("coder 1", "coder 2", "coder 3", "coder 4") and t.units[-1] == "12"


def test_a_header_row_and_coder_column_are_recognised():
    t = parse_table(_named(EXAMPLE_C_CSV), "ordinal")
    assert t.has_header and t.has_coder_column
    assert t.coders == ("A", "B", "C", "D") and t.units == tuple(f"u{k}" for k in range(1, 13))
    np.testing.assert_array_equal(t.matrix, EXAMPLE_C)


def test_only_a_header_or_only_a_coder_column():
    header_only = "u1,u2,u3\n1,2,3\n1,2,2\n"
    t = parse_table(header_only)
    assert t.has_header and not t.has_coder_column and t.units == ("u1", "u2", "u3")
    coders_only = "ann,1,2,3\nbob,1,2,2\n"
    t = parse_table(coders_only)
    assert not t.has_header and t.has_coder_column and t.coders == ("ann", "bob")


def test_words_are_nominal_categories_and_never_taken_for_names():
    # "yes"/"no" repeat as codes, so the first row is codes; the coder column is names.
    t = parse_table("ann,yes,no,yes\nbob,yes,yes,no\n", "nominal")
    assert not t.has_header and t.has_coder_column and t.categories == ("no", "yes")
    np.testing.assert_array_equal(t.matrix, [[1, 0, 1], [1, 1, 0]])


def test_semicolons_and_tabs_separate_cells_too():
    for sep in (";", "\t"):
        t = parse_table(EXAMPLE_C_CSV.replace(",", sep), "interval")
        np.testing.assert_array_equal(t.matrix, EXAMPLE_C)


def test_unit_numbers_as_a_header_are_codes_with_a_note():
    t = parse_table("1,2,3,4\n1,1,2,2\n1,2,2,2\n", "interval")
    assert not t.has_header and t.matrix.shape == (3, 4)
    assert "u1, u2" in t.notes[0]


@pytest.mark.parametrize("text, level, message", [
    ("1,2,3\n1,2\n", "nominal", "line 2 has 2 cells, line 1 has 3"),
    ("1,2,yes\n1,2,3\n", "interval", "line 1, column 3: 'yes' is not a number"),
    ("A,1,2\nB,2,x y\n", "ordinal", "line 2, column 3: 'x y' is not a number"),
    ("1,-2\n1,2\n", "ratio", "negative"),
    ("", "nominal", "the table is empty"),
    ("\n ,  ,\n", "nominal", "the table is empty"),
    ("1,2,3\n1,nan,3\n2,2,3\n", "interval", "line 2, column 2: 'nan' is not a number"),
    ("1,2,3\n1,inf,3\n2,2,3\n", "ratio", "line 2, column 2: 'inf' is not a number"),
])
def test_bad_tables_say_what_and_where(text, level, message):
    with pytest.raises(AgreementError, match=message):
        parse_table(text, level)
