"""A crawl over the pair floor's page limit is matched from tau only, and says so: in the
result, the saved run (what calibration reads), the command line and the window's note."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import main
from workbench.core.clusters.calibration import floor_note, run_floor
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.store import Project
from workbench.usecases.pipeline import detect, load_corpus, save_result

TAU = 0.9  # the demo archive has pairs between the floor and this


def test_floor_for_follows_the_page_limit():
    p = SpotSigsParams(tau=0.35, pair_floor=0.15, pair_floor_max_pages=100)
    assert p.floor_for(100) == 0.15
    assert p.floor_for(101) == 0.35
    assert dataclasses.replace(p, pair_floor_max_pages=0).floor_for(10**9) == 0.15
    assert dataclasses.replace(p, pair_floor=0.5).floor_for(10) == 0.35
    with pytest.raises(ValueError, match="limit"):
        SpotSigsParams(pair_floor_max_pages=-1)


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(DEMO_ARCHIVE, SpotSigsParams(tau=TAU), workers=1)


def _with_limit(corpus, limit: int):
    """detect() with another page limit, leaving the shared corpus as it is."""
    return detect(dataclasses.replace(corpus, params=dataclasses.replace(corpus.params,
                                                                          pair_floor_max_pages=limit)))


def test_over_the_limit_only_pairs_from_tau_are_found(corpus):
    n = len(corpus.pages)
    under = _with_limit(corpus, n)
    over = _with_limit(corpus, n - 1)
    assert under.floor == 0.15 and not under.floor_skipped
    assert (under.floor_pairs.similarity < TAU).any(), "the demo archive must have pairs below tau"
    assert over.floor == TAU and over.floor_skipped
    assert (over.floor_pairs.similarity >= TAU).all()
    # The pairs >= tau do not depend on the floor.
    for result in (under, over):
        assert len(result.pairs) == len(over.floor_pairs)
    np.testing.assert_array_equal(under.pairs.similarity, over.pairs.similarity)


def test_the_saved_run_records_where_its_pairs_start(corpus, tmp_path: Path):
    n = len(corpus.pages)
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        save_result(project, _with_limit(corpus, n - 1))
        params = project.current_run().params
        assert run_floor(params) == TAU
        assert f"limit of {n - 1:,} pages" in floor_note(params)
        save_result(project, _with_limit(corpus, n))
        params = project.current_run().params
        assert run_floor(params) == 0.15 and floor_note(params) == ""


def test_floor_note_without_the_limit_says_to_lower_the_floor():
    note = floor_note({"tau": 0.4, "pair_floor": 0.6})
    assert "lower pair floor" in note and "limit" not in note
    # Recorded with the pair floor at tau (stored_floor says so too): not the limit's doing.
    assert "limit" not in floor_note({"tau": 0.4, "pair_floor": 0.4, "stored_floor": 0.4})
    assert "limit" not in floor_note({"tau": 0.4, "pair_floor": None, "stored_floor": 0.4})
    assert floor_note({"tau": 0.4, "pair_floor": 0.15, "stored_floor": 0.15}) == ""


def test_the_command_line_says_the_floor_was_not_used(capsys):
    assert main(["dedup", str(DEMO_ARCHIVE), "--tau", str(TAU), "--pair-floor-max-pages", "3"]) == 0
    assert "pair floor:        not used" in capsys.readouterr().out
    assert main(["dedup", str(DEMO_ARCHIVE), "--tau", str(TAU)]) == 0
    assert "pair floor:" not in capsys.readouterr().out


def test_a_saved_run_keeps_its_signatures_only_when_weak_joins_need_them(corpus, tmp_path: Path):
    """Checked weak joins need the signature matrix to be repeated from the stored pairs;
    over the page limit there are no pairs below tau to join by, and without weak joins or
    their check nothing needs it."""
    n = len(corpus.pages)
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        kept = {}
        for name, limit, over in (("under", n, {}), ("over", n - 1, {}),
                                  ("no weak joins", n, {"weak_join": 0.0}),
                                  ("unchecked", n, {"weak_join_own_text": 0.0})):
            params = dataclasses.replace(corpus.params, pair_floor_max_pages=limit, **over)
            save_result(project, detect(dataclasses.replace(corpus, params=params)))
            kept[name] = project.run_signatures()
        assert kept["under"] is not None
        assert len(kept["under"].ptr) == n + 1
        np.testing.assert_array_equal(kept["under"].sig, corpus.matrix.sig)
        assert [name for name, sigs in kept.items() if sigs is None] == ["over", "no weak joins",
                                                                         "unchecked"]


def test_without_pairs_below_tau_a_run_makes_and_records_no_weak_joins(corpus, tmp_path: Path):
    """Over the page limit a run keeps no signature matrix, so a checked weak join could not
    be repeated by the calibration view: none are made, the run's saved settings say so, and
    the view repeats its clusters with nothing to warn about."""
    from workbench.core.clusters.calibration import clustering_options, weak_joins_note

    n = len(corpus.pages)
    assert corpus.params.weak_join > 0 and corpus.params.weak_join_own_text > 0
    with Project.create(tmp_path / "p.wbproj", str(DEMO_ARCHIVE)) as project:
        recorded = {}
        for name, limit in (("under", n), ("over", n - 1)):
            params = dataclasses.replace(corpus.params, pair_floor_max_pages=limit)
            result = detect(dataclasses.replace(corpus, params=params))
            save_result(project, result)
            recorded[name] = (result.params.weak_join, project.current_run().params)
    assert recorded["under"][0] == corpus.params.weak_join
    assert recorded["over"][0] == 0.0
    over = recorded["over"][1]
    assert over["weak_join"] == 0.0
    assert not clustering_options(over).get("weak_join") and weak_joins_note(over) == ""
    # A run recorded before this rule, over the limit with checked weak joins, still gets the note.
    assert "Weak joins are left out" in weak_joins_note({**over, "weak_join": 0.15})
